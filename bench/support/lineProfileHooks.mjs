// Module hooks for CPU profiles with line numbers (bench/support/lineProfile.mjs registers them).
// tsx compiles every module to one line (esbuild's minifyWhitespace), so a V8 profile of a tsx
// process can say which function ran, never which line. These hooks compile TypeScript the way
// tsx does, without the minifying; profileSummary.ts compiles a file again the same way to map a
// profile's lines back to the TypeScript source.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

/** The repository's compiler options, as tsx hands them to esbuild (it reads the settings that change the output). */
const tsconfigRaw = { compilerOptions: JSON.parse(readFileSync(new URL('../../tsconfig.json', import.meta.url), 'utf8')).compilerOptions };

/** esbuild's options for a TypeScript file. */
export function transformOptions(path) {
  return {
    loader: path.endsWith('.tsx') ? 'tsx' : 'ts',
    format: 'esm',
    target: 'node20',
    // Inline for the process's stack traces (tsx turns source maps on), external for profileSummary.ts.
    sourcemap: 'both',
    sourcefile: path,
    tsconfigRaw,
  };
}

const TYPESCRIPT = /\.(ts|tsx|mts)$/;

/** Loads TypeScript unminified; resolving stays tsx's (it maps this repository's `./x.js` imports to `./x.ts`). */
export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !TYPESCRIPT.test(url) || url.includes('/node_modules/')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { code } = await transform(await readFile(path, 'utf8'), transformOptions(path));
  return { format: 'module', source: code, shortCircuit: true };
}
