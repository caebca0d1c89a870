// Nearest neighbours by cosine: an HNSW graph (usearch, half-precision) for broad searches, and
// exact scoring over the allowed documents when a filter leaves few of them, because a graph
// walk under a selective filter loses recall (bench/search.ts measures both).
import usearch, { type Index } from 'usearch';
import { TopK, type Ranked } from './topK.js';

/** Up to this many candidates are scored exactly (~0.3 µs each at 512 dimensions): below it that beats an oversampled graph walk. */
export const EXACT_LIMIT = 10_000;
/**
 * Graph searches ask for at least this many neighbours: the deeper walk is what lifts queries that
 * fall between two topics to recall@10 ≥ 0.95 (bench:search), for ~0.5 ms.
 */
const MIN_GRAPH_DEPTH = 500;
/** Beyond this many graph candidates a filtered search gives up on the graph and scores exactly. */
const MAX_GRAPH_K = 4096;
/** Documents tested to estimate how many a filter without a candidate list allows. */
const SAMPLE = 512;

/** Documents with their cosine similarity, best first. */
export type Neighbours = Ranked;

/** Which documents a filtered search may return: a predicate, and the list when it is cheap to enumerate. */
export interface VectorFilter {
  allows(doc: number): boolean;
  /** The candidates (a superset of the allowed documents), when known. */
  docs?: ArrayLike<number>;
}

export class VectorIndex {
  private readonly graph: Index;
  private readonly vectors: (Float32Array | undefined)[] = [];
  /** Documents holding a vector, and each one's place in that list (for O(1) removal and sampling). */
  private readonly held: number[] = [];
  private readonly place: number[] = [];

  constructor(readonly dimension: number) {
    this.graph = new usearch.Index({
      dimensions: dimension,
      metric: usearch.MetricKind.Cos,
      quantization: usearch.ScalarKind.F16,
      connectivity: 16,
      expansion_add: 128,
      expansion_search: 128,
      multi: false,
    });
  }

  get size(): number {
    return this.held.length;
  }

  get(doc: number): Float32Array | undefined {
    return this.vectors[doc];
  }

  set(doc: number, vector: Float32Array): void {
    this.setMany([doc], [vector]);
  }

  /** Adds or replaces many vectors in one call to the graph (which then builds on every core). */
  setMany(docs: number[], vectors: Float32Array[]): void {
    const keys: bigint[] = [];
    const fresh: Float32Array[] = [];
    docs.forEach((doc, i) => {
      const vector = vectors[i];
      if (vector.length !== this.dimension) return;
      const current = this.vectors[doc];
      if (current && sameVector(current, vector)) return;
      if (current) this.graph.remove(BigInt(doc));
      else this.hold(doc);
      this.vectors[doc] = vector;
      keys.push(BigInt(doc));
      fresh.push(vector);
    });
    if (keys.length === 0) return;
    const matrix = new Float32Array(keys.length * this.dimension);
    fresh.forEach((v, i) => matrix.set(v, i * this.dimension));
    // Always every core (0): usearch sizes its per-thread contexts when it grows, so an add with
    // more threads than the last growth had fails with "Reserve capacity ahead of insertions!"
    // (and casts into another thread's buffer). One vector still runs on this thread alone.
    this.graph.add(BigUint64Array.from(keys), matrix, 0);
  }

  delete(doc: number): void {
    if (!this.vectors[doc]) return;
    this.graph.remove(BigInt(doc));
    this.vectors[doc] = undefined;
    const at = this.place[doc];
    const last = this.held.pop()!;
    if (last !== doc) {
      this.held[at] = last;
      this.place[last] = at;
    }
  }

  /** The k nearest documents to a unit-length query, optionally among the documents a filter allows. */
  search(query: Float32Array, k: number, filter?: VectorFilter): Neighbours {
    if (k <= 0 || this.held.length === 0 || query.length !== this.dimension) return { docs: [], scores: [] };
    if (!filter) return cut(this.graphSearch(query, k, () => true), k);
    if (filter.docs && filter.docs.length <= EXACT_LIMIT) return this.exact(query, k, filter);
    const allowed = this.estimate(filter);
    if (allowed <= EXACT_LIMIT) return this.exact(query, k, filter);
    // Ask the graph for enough candidates that k of them pass the filter, growing until they do.
    let wanted = Math.ceil((k * this.held.length * 1.5) / allowed) + 16;
    while (wanted <= MAX_GRAPH_K) {
      const found = this.graphSearch(query, Math.min(wanted, this.held.length), filter.allows);
      if (found.docs.length >= k || wanted >= this.held.length) return cut(found, k);
      wanted *= 2;
    }
    return this.exact(query, k, filter);
  }

  /** How many documents with a vector the filter allows, from a sample (an upper estimate). */
  private estimate(filter: VectorFilter): number {
    const pool = filter.docs ?? this.held;
    if (pool.length <= SAMPLE) return pool.length;
    let pass = 0;
    const step = pool.length / SAMPLE;
    for (let i = 0; i < SAMPLE; i++) {
      const doc = pool[Math.floor(i * step)];
      if (this.vectors[doc] && filter.allows(doc)) pass++;
    }
    // One more than seen, so a filter the sample missed still counts as rare but not empty.
    return Math.ceil(((pass + 1) / SAMPLE) * pool.length);
  }

  /** Exact cosine scores of the filter's documents (every one without a list; those with a vector) against the query, best first. */
  exact(query: Float32Array, k: number, filter: VectorFilter): Neighbours {
    const docs = filter.docs ?? this.held;
    const allows = filter.allows;
    const top = new TopK(k);
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i];
      const v = this.vectors[doc];
      if (v && allows(doc)) top.offer(doc, dot(query, v));
    }
    return top.sorted();
  }

  private graphSearch(query: Float32Array, k: number, allows: (doc: number) => boolean): Neighbours {
    const matches = this.graph.search(query, Math.min(Math.max(k, MIN_GRAPH_DEPTH), this.held.length), 1);
    const docs: number[] = [];
    const scores: number[] = [];
    for (let i = 0; i < matches.keys.length; i++) {
      const doc = Number(matches.keys[i]);
      if (!this.vectors[doc] || !allows(doc)) continue;
      docs.push(doc);
      scores.push(1 - matches.distances[i]);
    }
    return { docs, scores };
  }

  private hold(doc: number): void {
    this.place[doc] = this.held.length;
    this.held.push(doc);
  }
}

/** Dot product, four lanes at a time (the dimension of every model here is a multiple of 4). */
function dot(a: Float32Array, b: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const n = a.length - (a.length % 4);
  for (let j = 0; j < n; j += 4) {
    s0 += a[j] * b[j];
    s1 += a[j + 1] * b[j + 1];
    s2 += a[j + 2] * b[j + 2];
    s3 += a[j + 3] * b[j + 3];
  }
  for (let j = n; j < a.length; j++) s0 += a[j] * b[j];
  return s0 + s1 + s2 + s3;
}

function sameVector(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const cut = (n: Neighbours, k: number): Neighbours => ({ docs: n.docs.slice(0, k), scores: n.scores.slice(0, k) });
