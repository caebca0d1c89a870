import type { TransformOptions } from 'esbuild';

/** esbuild's options for a TypeScript file (tsconfig.json's compiler options, as tsx passes them). */
export function transformOptions(path: string): TransformOptions;
