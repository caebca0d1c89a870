import type { TransformOptions } from 'esbuild';

/** esbuild's options for a TypeScript file: tsconfig.json's settings that change the output. */
export function transformOptions(path: string): TransformOptions;
