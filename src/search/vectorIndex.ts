// Nearest neighbours by cosine: an HNSW graph (usearch, half-precision) for broad searches, and
// exact scoring over the allowed documents when a filter leaves few of them, because a graph
// walk under a selective filter loses recall (bench/search.ts measures both).
import usearch, { type Index } from 'usearch';
import { TopK, type Ranked } from './topK.js';

/** Up to this many allowed documents are scored exactly (~1 ms at 512 dimensions). */
export const EXACT_LIMIT = 4000;
/** Beyond this many graph candidates a filtered search gives up on the graph and scores exactly. */
const MAX_GRAPH_K = 4096;

/** Documents with their cosine similarity, best first. */
export type Neighbours = Ranked;

/** Which documents a filtered search may return: a predicate, and the list when it is cheap to enumerate. */
export interface VectorFilter {
  allows(doc: number): boolean;
  /** The allowed documents, when known (at most EXACT_LIMIT of them make the search exact). */
  docs?: ArrayLike<number>;
  /** How many documents the filter allows (an estimate is fine). */
  count: number;
}

export class VectorIndex {
  private graph: Index;
  private readonly vectors: (Float32Array | undefined)[] = [];
  private stored = 0;

  constructor(readonly dimension: number) {
    this.graph = VectorIndex.newGraph(dimension);
  }

  private static newGraph(dimensions: number): Index {
    return new usearch.Index({
      dimensions,
      metric: usearch.MetricKind.Cos,
      quantization: usearch.ScalarKind.F16,
      connectivity: 16,
      expansion_add: 128,
      expansion_search: 64,
      multi: false,
    });
  }

  get size(): number {
    return this.stored;
  }

  get(doc: number): Float32Array | undefined {
    return this.vectors[doc];
  }

  set(doc: number, vector: Float32Array): void {
    if (vector.length !== this.dimension) return;
    const current = this.vectors[doc];
    if (current && sameVector(current, vector)) return;
    const key = BigInt(doc);
    if (current) this.graph.remove(key);
    else this.stored++;
    this.graph.add(key, vector);
    this.vectors[doc] = vector;
  }

  delete(doc: number): void {
    if (!this.vectors[doc]) return;
    this.graph.remove(BigInt(doc));
    this.vectors[doc] = undefined;
    this.stored--;
  }

  /** The k nearest documents to a unit-length query, optionally among the documents a filter allows. */
  search(query: Float32Array, k: number, filter?: VectorFilter): Neighbours {
    if (k <= 0 || this.stored === 0 || query.length !== this.dimension) return { docs: [], scores: [] };
    if (!filter) return this.graphSearch(query, k, () => true);
    if (filter.count === 0) return { docs: [], scores: [] };
    if (filter.docs && filter.docs.length <= EXACT_LIMIT) return this.exact(query, k, filter.docs, filter.allows);
    // Ask the graph for enough candidates that k of them pass the filter, growing until they do.
    const selectivity = Math.min(1, filter.count / this.stored);
    let wanted = Math.ceil((k / selectivity) * 1.5) + 16;
    while (wanted <= MAX_GRAPH_K) {
      const found = this.graphSearch(query, Math.min(wanted, this.stored), filter.allows);
      if (found.docs.length >= k || wanted >= this.stored) return cut(found, k);
      wanted *= 2;
    }
    return this.exact(query, k, filter.docs ?? this.allDocs(), filter.allows);
  }

  /** Exact cosine scores of the given documents (those with a vector) against the query, best first. */
  exact(query: Float32Array, k: number, docs: ArrayLike<number>, allows: (doc: number) => boolean): Neighbours {
    const top = new TopK(k);
    const dim = this.dimension;
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i];
      const v = this.vectors[doc];
      if (!v || !allows(doc)) continue;
      let dot = 0;
      for (let j = 0; j < dim; j++) dot += query[j] * v[j];
      top.offer(doc, dot);
    }
    return top.sorted();
  }

  private graphSearch(query: Float32Array, k: number, allows: (doc: number) => boolean): Neighbours {
    const matches = this.graph.search(query, k, 1);
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

  private allDocs(): number[] {
    const out: number[] = [];
    this.vectors.forEach((v, doc) => v && out.push(doc));
    return out;
  }
}

function sameVector(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const cut = (n: Neighbours, k: number): Neighbours => ({ docs: n.docs.slice(0, k), scores: n.scores.slice(0, k) });
