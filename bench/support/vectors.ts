// Synthetic embedding vectors for the search benchmarks: unit vectors clustered around random
// centres, queries near a product or between topics, and the exact nearest neighbours by brute
// force that recall is measured against. Deterministic for a seed.
import { fromBytes, toBytes } from '../../src/store/vectorBytes.js';
import type { Rng } from './rng.js';

function normalizeInPlace(v: Float32Array, offset = 0, dim = v.length): void {
  let norm = 0;
  for (let j = 0; j < dim; j++) norm += v[offset + j] * v[offset + j];
  norm = Math.sqrt(norm) || 1;
  for (let j = 0; j < dim; j++) v[offset + j] /= norm;
}

/**
 * Flat vectors as the engines hold them: rounded to FLOAT16 (store/vectorBytes.ts), each scaled back
 * to unit length (cosine does not see the scale), in place. The exact scan then ranks by the same
 * directions the engines compare, so a near tie is not counted as a miss.
 */
export function asStored(vectors: Float32Array, dim: number): Float32Array {
  vectors.set(fromBytes(toBytes(vectors)));
  for (let o = 0; o < vectors.length; o += dim) normalizeInPlace(vectors, o, dim);
  return vectors;
}

/** `count` random unit vectors (the cluster centres), flat. */
export function randomCentroids(rng: Rng, count: number, dim: number): Float32Array {
  const out = new Float32Array(count * dim);
  for (let i = 0; i < out.length; i++) out[i] = rng.gauss();
  for (let c = 0; c < count; c++) normalizeInPlace(out, c * dim, dim);
  return out;
}

/**
 * Unit vectors around given centres: centre + gaussian noise of total length ≈ `noise`, then
 * normalised. With noise 1 a vector has cosine ≈ 0.7 with its centre and ≈ 0.5 with its cluster's
 * other members, ≈ 0 with the rest: nearest neighbours are meaningful, and not trivially found.
 */
export function clusteredVectors(rng: Rng, centroids: Float32Array, dim: number, clusterOf: (i: number) => number, n: number, noise = 1): Float32Array {
  const out = new Float32Array(n * dim);
  const sigma = noise / Math.sqrt(dim);
  for (let i = 0; i < n; i++) {
    const c = clusterOf(i) * dim;
    const o = i * dim;
    for (let j = 0; j < dim; j++) out[o + j] = centroids[c + j] + sigma * rng.gauss();
    normalizeInPlace(out, o, dim);
  }
  return out;
}

/** A noisy copy of a unit vector (a query near a document), normalised. */
export function nearby(rng: Rng, source: Float32Array, offset: number, dim: number, noise: number): Float32Array {
  const out = new Float32Array(dim);
  const sigma = noise / Math.sqrt(dim);
  for (let j = 0; j < dim; j++) out[j] = source[offset + j] + sigma * rng.gauss();
  normalizeInPlace(out);
  return out;
}

/** A mix of two cluster centres plus noise (a query between topics), normalised. */
export function centroidMix(rng: Rng, centroids: Float32Array, dim: number, noise: number): Float32Array {
  const count = centroids.length / dim;
  const a = rng.int(count) * dim;
  const b = rng.int(count) * dim;
  const w = 0.5 + 0.5 * rng.next();
  const out = new Float32Array(dim);
  const sigma = noise / Math.sqrt(dim);
  for (let j = 0; j < dim; j++) out[j] = w * centroids[a + j] + (1 - w) * centroids[b + j] + sigma * rng.gauss();
  normalizeInPlace(out);
  return out;
}

/**
 * Exact top-k by dot product (= cosine for unit vectors) over a flat matrix: a plain loop over
 * every allowed row. `rows` limits the scan to those rows (a filter's documents).
 */
export function bruteForce(vectors: Float32Array, dim: number, query: Float32Array, k: number, allows?: (row: number) => boolean, rows?: ArrayLike<number>): number[] {
  const topRows = new Int32Array(k).fill(-1);
  const topScores = new Float64Array(k).fill(-Infinity);
  const n = rows ? rows.length : vectors.length / dim;
  for (let i = 0; i < n; i++) {
    const row = rows ? rows[i] : i;
    if (allows && !allows(row)) continue;
    const o = row * dim;
    let dot = 0;
    for (let j = 0; j < dim; j++) dot += query[j] * vectors[o + j];
    if (dot <= topScores[k - 1]) continue;
    // Insertion into the small sorted list (k is 10).
    let p = k - 1;
    while (p > 0 && topScores[p - 1] < dot) {
      topScores[p] = topScores[p - 1];
      topRows[p] = topRows[p - 1];
      p--;
    }
    topScores[p] = dot;
    topRows[p] = row;
  }
  return Array.from(topRows).filter((r) => r >= 0);
}

/** Share of `truth` found in `found` (recall@k with k = truth's length). */
export function recall(found: ArrayLike<number | string>, truth: ArrayLike<number | string>): number {
  if (truth.length === 0) return 1;
  const set = new Set(Array.from(found));
  let hit = 0;
  for (let i = 0; i < truth.length; i++) if (set.has(truth[i])) hit++;
  return hit / truth.length;
}
