// Vector search on the Redis Query Engine: KNN with the filters as pre-filters, sorted by distance.
// A product's vectors are indexed apart from its search fields (schema.ts), with only the filter
// values a change of price or stock leaves alone; a search that filters on price, stock or
// availability checks its candidates against the products index: exactly, among the documents
// that filter allows, where they are few; else among the nearest ones, fetched until enough pass.
import { toBytes } from '../../store/vectorBytes.js';
import type { IndexCommands } from './commands.js';
import type { Ranked } from './keyword.js';
import { all, tagAny } from './query.js';
import { F, type Collection } from './schema.js';

type VectorPolicy = 'ADHOC_BF' | 'BATCHES';

/** A vector search: where, how many, and among which documents. */
export interface Nearest {
  c: Collection;
  vector: 'content' | 'anchor';
  /** The query vector, or a stored one (FLOAT16 bytes). */
  blob: Float32Array | Buffer;
  k: number;
  /** What the vector index can check itself. */
  filter: string;
  /** Similarity below which candidates do not count (no more are fetched past one). */
  floor?: number;
  /** A filter only the products index can check (price, stock, availability), with the vector index's. */
  check?: { c: Collection; filter: string } | null;
  /** How many documents the whole filter allows (VectorSearch.allowed). */
  allowed: number;
}

/**
 * Filtered vector searches over at most this many documents scan them exactly (HYBRID_POLICY
 * ADHOC_BF); larger sets walk the graph in batches. RediSearch 2.10 decides by itself otherwise,
 * and picks the exact scan even for a filter that keeps most of the catalogue (30 ms at 100,000
 * products of 512-d, against 1 ms in batches).
 */
export const EXACT_LIMIT = 8_000;

/**
 * The graph search's candidate list (EF_RUNTIME) for the k nearest among `n` documents: at least k,
 * and one candidate per EF_DOCUMENTS documents (125 at 100,000, 1,250 at 1,000,000). A semantic
 * search asks for its window (100), so below 80,000 documents k sets it. With M 32 (schema.ts) on
 * 512-d vectors in 200 clusters, half the queries near a product and half between two clusters
 * (bench:search's), such a walk stays in one cluster unless the list outgrows it. At 1,000,000
 * (bench:vector-recall, 200 queries) recall@10 is 0.912 at EF_RUNTIME 400 (2.6 ms a query), 0.934
 * at 1,063 (3.1 ms), 0.953 at 2,000 (4.2 ms), 0.987 at 8,000 (17 ms); bench:million's own queries
 * reach 0.958 at 1,063.
 */
export const EF_DOCUMENTS = 800;
export const efRuntime = (k: number, n: number): number => Math.max(k, Math.ceil(n / EF_DOCUMENTS));

/** Candidates fetched at most for a search whose filter the vector index cannot check. */
const MAX_CHECKED = 10_000;

export class VectorSearch {
  constructor(
    private readonly ft: IndexCommands,
    private readonly exactLimit = EXACT_LIMIT,
  ) {}

  /** How many documents a search's whole filter allows, counted where every filter field is. */
  allowed(n: Pick<Nearest, 'c' | 'filter' | 'check'>): Promise<number> {
    return n.check ? this.ft.count(n.check.c, n.check.filter) : this.ft.count(n.c, n.filter || '*');
  }

  /** The nearest documents, best first, at most `k`. */
  async nearest(n: Nearest): Promise<Ranked> {
    const { allowed } = n;
    if (!n.check) return this.knn(n, allowed <= this.exactLimit ? 'ADHOC_BF' : 'BATCHES', allowed);
    if (allowed === 0) return { ids: [], scores: [] };
    if (allowed <= this.exactLimit) {
      const ids = await this.ft.ids(n.check.c, n.check.filter, allowed);
      return this.knn({ ...n, filter: tagAny(F.id, ids) }, 'ADHOC_BF', ids.length);
    }
    // Most documents pass: the nearest ones are fetched in proportion to what the filter keeps.
    const within = await this.ft.count(n.c, n.filter || '*');
    let k = Math.min(MAX_CHECKED, Math.ceil((n.k * 1.5 * Math.max(within, 1)) / allowed));
    for (;;) {
      const found = await this.knn({ ...n, k }, 'BATCHES', within);
      const passing = new Set(found.ids.length > 0 ? await this.ft.ids(n.check.c, all(tagAny(F.id, found.ids), n.check.filter), found.ids.length) : []);
      const ranked: Ranked = { ids: [], scores: [] };
      found.ids.forEach((id, i) => passing.has(id) && ranked.ids.length < n.k && (ranked.ids.push(id), ranked.scores.push(found.scores[i])));
      const exhausted = found.ids.length < k || k >= MAX_CHECKED || k >= within;
      const beyondFloor = n.floor !== undefined && found.scores.length > 0 && found.scores[found.scores.length - 1] < n.floor;
      if (ranked.ids.length >= n.k || exhausted || beyondFloor) return ranked;
      k = Math.min(MAX_CHECKED, k * 4);
    }
  }

  /** The k nearest; through the graph (BATCHES) among `among` documents, or by an exact scan. */
  async knn({ c, vector, blob, k, filter }: Omit<Nearest, 'allowed'>, policy: VectorPolicy, among: number): Promise<Ranked> {
    const bytes = Buffer.isBuffer(blob) ? blob : toBytes(blob);
    const field = vector === 'content' ? F.content : F.anchorVector;
    const ef = policy === 'BATCHES' ? ` EF_RUNTIME ${efRuntime(k, among)}` : '';
    // RediSearch 2.10 returns KNN hits unordered unless the query sorts by the distance.
    const found = await this.ft.query(c, `(${filter || '*'})=>[KNN ${k} @${field} $vec HYBRID_POLICY ${policy}${ef} AS dist]`, {
      args: ['PARAMS', '2', 'vec', bytes, 'SORTBY', 'dist', 'ASC', 'RETURN', '1', 'dist', 'LIMIT', '0', String(k)],
    });
    return { ids: found.rows.map((r) => this.ft.idOf(c, r.key)), scores: found.rows.map((r) => 1 - Number(r.fields.get('dist'))) };
  }

  /** Nearest to `vector` among the documents `filter` allows: by anchor among those with one, and by content among the others, merged. */
  async related(c: Collection, { vector, filter, k }: { vector: Buffer; filter: string; k: number }): Promise<[id: string, score: number][]> {
    // Exact scan for small filtered sets, the graph for large ones (EXACT_LIMIT).
    const among = await this.ft.count(c, filter || '*');
    const policy = among <= this.exactLimit ? 'ADHOC_BF' : 'BATCHES';
    const [byAnchor, byContent] = await Promise.all([
      this.knn({ c, vector: 'anchor', blob: vector, k, filter: all(filter, `@${F.anchor}:[1 1]`) }, policy, among),
      this.knn({ c, vector: 'content', blob: vector, k, filter: all(filter, `@${F.anchor}:[0 0]`) }, policy, among),
    ]);
    const best = new Map<string, number>();
    [byAnchor, byContent].forEach((list) => list.ids.forEach((id, i) => best.set(id, Math.max(best.get(id) ?? -Infinity, list.scores[i]))));
    return [...best].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, k);
  }
}
