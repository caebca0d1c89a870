// The search benchmark's queries, generated once from the catalogue so both engines answer the
// very same ones: the in-process query sets, the related-products rows, the recall cases with
// their exact answers (brute force, computed once), and the HTTP request bodies. A site filter
// holds the site's slug until a column binds it to its server's site id (Column.bind).
import type { FacetName, ProductFilters, ProductSearch } from '../../src/search/engine.js';
import { summarize, type Timing } from './harness.js';
import { Rng } from './rng.js';
import type { Catalogued } from './searchCatalogue.js';
import { DIM, HTTP_VECTOR_QUERIES, MODEL, QUERIES, RECALL_QUERIES, SITES, siteSlug, TARGET } from './searchConfig.js';
import type { Check } from './searchSummary.js';
import { storefrontQuery } from './searchText.js';
import { asStored, bruteForce, centroidMix, nearby } from './vectors.js';

export const search = (s: Partial<Omit<ProductSearch, 'filters'>> & { filters?: Partial<ProductFilters> }): ProductSearch => ({
  query: '', mode: 'keyword', vector: null, model: MODEL, semanticLanguages: ['en'], language: 'en', minSimilarity: 0, limit: 20, offset: 0, facets: [],
  ...s,
  filters: { variantStrategy: 'all', ...s.filters },
});

export const FACETS: FacetName[] = ['brand', 'category', 'availability'];

/** A query set: its summary row, its searches after untimed warm-up ones, a target, and the share of them that may find nothing (they are built to match). */
interface QuerySet {
  measure: string;
  searches: ProductSearch[];
  warmup: ProductSearch[];
  check?: (t: Timing) => Check;
  maxZeroHits?: number;
}

/** A recall query: the rows the search may return (the filter's, in a served language) and the exact top 10 rows. */
interface RecallQuery {
  vector: Float32Array;
  filters: Partial<ProductFilters>;
  allows: (row: number) => boolean;
  truth: number[];
}

export interface Plan {
  sets: QuerySet[];
  /** Rows whose related products are asked for. */
  related: number[];
  /** Recall cases, with the brute-force scan's time per query. */
  recall: { name: string; queries: RecallQuery[]; scan: Timing }[];
  http: { keyword: ProductSearch[]; vector: string[]; fresh: string[]; skewed: SkewedQueries };
}

/** The skewed storefront workload's searches (searchSkewed.ts): a pool drawn from by popularity, and never-seen ones, none in the pool. */
export interface SkewedQueries {
  pool: ProductSearch[];
  fresh: ProductSearch[];
}

/** Distinct searches in the skewed workload's pool, and never-seen ones to draw the rest from. */
const SKEWED_POOL = 3_000;
const SKEWED_FRESH = 40_000;

/** A storefront search: words from one product (so it matches), ~25% with a filter, ~30% with facets. */
function keywordSearch(rng: Rng, d: Catalogued, mode: ProductSearch['mode'], vector: Float32Array | null = null, t = rng.int(d.n)): ProductSearch {
  const query = storefrontQuery(rng, d.words[t], d.head[d.lang[t]]);
  const filters: Partial<ProductFilters> = {};
  if (rng.chance(0.25)) {
    switch (rng.int(4)) {
      case 0: filters.siteId = siteSlug(d.site[t]); break;
      case 1: filters.brand = [d.brands[d.brand[t]]]; break;
      case 2: filters.priceMin = Math.floor(d.price[t] / 2); filters.priceMax = Math.ceil(d.price[t] * 2); break;
      default: filters.inStock = true;
    }
  }
  return search({ query, mode, vector, filters, facets: rng.chance(0.3) ? FACETS : [] });
}

/** A query vector: near a random product (half), or between two topics (half). */
function queryVector(rng: Rng, d: Catalogued, near?: number): Float32Array {
  if (near !== undefined || rng.chance(0.5)) return nearby(rng, d.vectors, (near ?? rng.int(d.n)) * DIM, DIM, 0.6);
  return centroidMix(rng, d.centroids, DIM, 0.5);
}

const timingCheck = (limit: number) => (t: Timing): Check => ({ target: `p99 ≤ ${limit} ms`, met: t.p99 <= limit });

export function makePlan(d: Catalogued): Plan {
  const rng = new Rng(1234);
  const make = (count: number, f: () => ProductSearch) => Array.from({ length: count }, f);
  const warm = Math.min(200, QUERIES);
  const keyword = () => keywordSearch(rng, d, 'keyword');
  const semantic = (filters: () => Partial<ProductFilters> = () => ({})) => () => search({ mode: 'semantic', vector: queryVector(rng, d), filters: filters() });
  const oneSite = () => ({ siteId: siteSlug(rng.int(SITES)) });
  // The words and the vector of one product, as a hybrid query would have them.
  const hybrid = (t = rng.int(d.n)) => keywordSearch(rng, d, 'hybrid', queryVector(rng, d, t), t);
  const sets: QuerySet[] = [
    {
      measure: 'keyword, engine time (storefront queries: typos, prefixes, filters, facets)',
      searches: make(QUERIES, keyword), warmup: make(warm, keyword), check: timingCheck(TARGET.keywordP99), maxZeroHits: 0.5,
    },
    { measure: 'semantic, engine time, no filter', searches: make(QUERIES, semantic()), warmup: make(warm, semantic()) },
    { measure: 'semantic, engine time, one site (1%)', searches: make(Math.ceil(QUERIES / 2), semantic(oneSite)), warmup: [] },
    { measure: 'hybrid, engine time', searches: make(QUERIES, () => hybrid()), warmup: make(warm, () => hybrid()), check: timingCheck(TARGET.hybridP99) },
  ];
  const related = Array.from({ length: Math.min(QUERIES, 1000) }, () => rng.int(d.n));

  // Recall@10 against the exact scan over the same vectors, among the products the search may
  // return (semantic ranking only considers the served language, en).
  const en = (row: number) => d.isEn[row] === 1;
  const recallCase = (name: string, filter: () => Omit<RecallQuery, 'vector' | 'truth'> & { rows?: number[] }): Plan['recall'][number] => {
    const times: number[] = [];
    const started = performance.now();
    const queries = Array.from({ length: RECALL_QUERIES }, () => {
      const vector = asStored(queryVector(rng, d), DIM);
      const { rows, ...q } = filter();
      const t = performance.now();
      const truth = bruteForce(d.vectors, DIM, vector, 10, q.allows, rows);
      times.push(performance.now() - t);
      return { ...q, vector, truth };
    });
    return { name, queries, scan: summarize(times, performance.now() - started) };
  };
  const recall = [
    recallCase('unfiltered', () => ({ filters: {}, allows: en })),
    recallCase(`one site of ${SITES} (1%)`, () => {
      const s = rng.int(SITES);
      const rows = d.siteRows[s];
      return { filters: { siteId: siteSlug(s) }, allows: (row) => en(row) && d.site[row] === s, rows };
    }),
  ];

  // The HTTP runs' queries: keyword ones of any kind; a small fixed set for hybrid/semantic.
  const qrng = new Rng(99);
  const http = {
    keyword: Array.from({ length: 500 }, () => keywordSearch(qrng, d, 'keyword')),
    vector: Array.from({ length: HTTP_VECTOR_QUERIES }, () => storefrontQuery(qrng, d.words[qrng.int(d.n)], d.head.en, 0, 0)),
    fresh: [] as string[],
    skewed: skewedQueries(new Rng(4242), d),
  };
  // Never-seen queries for hybrid: distinct, and none of the cached set.
  const seen = new Set(http.vector);
  for (let tries = 0; http.fresh.length < 5_000 && tries < 50_000; tries++) {
    const query = storefrontQuery(qrng, d.words[qrng.int(d.n)], d.head.en, 0.2, 0);
    if (seen.has(query)) continue;
    seen.add(query);
    http.fresh.push(query);
  }
  return { sets, related, recall, http };
}

/** SKEWED_POOL distinct storefront searches, and SKEWED_FRESH more, distinct and none of them in the pool. */
function skewedQueries(rng: Rng, d: Catalogued): SkewedQueries {
  const seen = new Set<string>();
  const distinct = (count: number): ProductSearch[] => {
    const out: ProductSearch[] = [];
    for (let tries = 0; out.length < count && tries < count * 10; tries++) {
      const s = keywordSearch(rng, d, 'keyword');
      const key = JSON.stringify([s.query, s.filters, s.facets]);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(s);
    }
    return out;
  };
  return { pool: distinct(SKEWED_POOL), fresh: distinct(SKEWED_FRESH) };
}

/** What the keyword runs POST (and the direct floor reads). */
export interface HttpBody {
  query: string;
  mode: ProductSearch['mode'];
  limit: number;
  site_id?: string;
  filters?: { brand?: string[]; price_min?: number; price_max?: number; in_stock?: boolean };
  facets?: FacetName[];
}

/** The HTTP request body of an engine search (bound to a server: its site id). */
export function httpBody(s: ProductSearch): HttpBody {
  const f = s.filters;
  const filters: NonNullable<HttpBody['filters']> = {};
  if (f.brand) filters.brand = f.brand;
  if (f.priceMin !== undefined) filters.price_min = f.priceMin;
  if (f.priceMax !== undefined) filters.price_max = f.priceMax;
  if (f.inStock !== undefined) filters.in_stock = f.inStock;
  return {
    query: s.query, mode: s.mode, limit: s.limit,
    ...(f.siteId ? { site_id: f.siteId } : {}),
    ...(Object.keys(filters).length ? { filters } : {}),
    ...(s.facets.length ? { facets: s.facets } : {}),
  };
}
