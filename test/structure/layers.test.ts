// The structure of src/ (README "Working on kcs"): every import runs down the layers
// api → http, mcp, queue → domain → search, embed → store → schemas, and no module imports itself
// back through a circle of imports, type-only imports included (a circle of types is a circle of
// meaning all the same). config.ts and log.ts, at the root, may be imported by all.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/process.js';

const SRC = join(ROOT, 'src');
/** Lower is further down; siblings share a rank (they do not import each other, but may). */
const RANK: Record<string, number> = { api: 5, http: 4, mcp: 4, queue: 4, domain: 3, search: 2, embed: 2, store: 1, schemas: 0 };

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });

/** The files a file imports by relative path: `import … from`, `import type … from`, `export … from` and `import '…'`. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:(?:import|export)\s[^;]*?from\s+|import\s+)'(\.[^']+)'/gm)].map((m) =>
    normalize(join(dirname(file), m[1])).replace(/\.js$/, '.ts'),
  );
}

const layerOf = (file: string) => relative(SRC, file).split('/')[0];

test('no import runs up a layer', () => {
  const upward: string[] = [];
  for (const file of files(SRC)) {
    const from = layerOf(file);
    if (!(from in RANK)) continue;
    for (const target of importsOf(file)) {
      const to = layerOf(target);
      if (to in RANK && RANK[to] > RANK[from]) upward.push(`${relative(ROOT, file)} → ${relative(ROOT, target)}`);
    }
  }
  assert.deepEqual(upward, []);
});

test('no circle of imports, type-only imports included', () => {
  const graph = new Map(files(SRC).map((f) => [f, importsOf(f)]));
  const state = new Map<string, 'open' | 'done'>();
  const circles: string[] = [];
  const visit = (file: string, path: string[]) => {
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next].map((f) => relative(SRC, f)).join(' → '));
      else if (!state.has(next)) visit(next, [...path, next]);
    }
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file, [file]);
  assert.deepEqual(circles, []);
});

test('no source file over 400 lines', () => {
  const long = files(SRC)
    .map((f) => ({ file: relative(ROOT, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
    .filter((f) => f.lines > 400);
  assert.deepEqual(long, []);
});
