// The built-in engine's vector index under a mix of single adds, replacements, removals and
// batches, the pattern concurrent upserts produce in the search replica.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VectorIndex } from '../../src/search/builtin/vectorIndex.js';

const DIMENSION = 8;

/** A deterministic unit vector per seed. */
function vectorOf(seed: number): Float32Array {
  const v = new Float32Array(DIMENSION);
  for (let i = 0; i < DIMENSION; i++) v[i] = Math.sin(seed * (i + 1)) + 1.5;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** Park–Miller: the same sequence on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}

test('single adds, removals and batches interleaved never fail and every vector stays findable', () => {
  const index = new VectorIndex(DIMENSION);
  const live = new Set<number>();
  const next = random(42);
  for (let step = 0; step < 5000; step++) {
    const r = next();
    if (r < 0.4) {
      const doc = Math.floor(next() * 200);
      index.set(doc, vectorOf(doc + step)); // replaces when present
      live.add(doc);
    } else if (r < 0.6) {
      const doc = Math.floor(next() * 200);
      index.delete(doc);
      live.delete(doc);
    } else {
      const docs = [...new Set(Array.from({ length: 2 + Math.floor(next() * 6) }, () => 1000 + Math.floor(next() * 300)))];
      index.setMany(docs, docs.map((doc) => vectorOf(doc + step)));
      for (const doc of docs) live.add(doc);
    }
  }
  assert.equal(index.size, live.size);
  for (const doc of [...live].slice(0, 50)) {
    const found = index.search(index.get(doc)!, 1);
    assert.ok(found.scores[0] > 0.999, `doc ${doc} finds a vector equal to its own`);
  }
});
