// The search benchmark's queries, generated once from the catalogue so both engines answer the
// very same ones: the in-process query sets, the related-products rows, the recall cases with
// their exact answers (brute force, computed once), and the HTTP request bodies. A site filter
// holds the site's slug until a column binds it to its server's site id (Column.bind).
import type { ProductFacet, ProductFilters, ProductSearch } from '../../src/search/engine.js';
import { fmt } from './harness.js';
import type { Catalogued } from './searchCatalogue.js';
import { DIM, HTTP_VECTOR_QUERIES, MODEL, QUERIES, RECALL_QUERIES, SITES, siteSlug, TARGET } from './searchConfig.js';
import { bruteForce, centroidMix, nearby, Rng, summarize, type Timing } from './searchData.js';
import { storefrontQuery } from './searchText.js';
import { ms, type Check } from './searchSummary.js';

export const search = (s: Partial<Omit<ProductSearch, 'filters'>> & { filters?: Partial<ProductFilters> }): ProductSearch => ({
  query: '', mode: 'keyword', vector: null, model: MODEL, semanticLanguages: ['en'], language: 'en', minSimilarity: 0, limit: 20, offset: 0, facets: [],
  ...s,
  filters: { variantStrategy: 'all', ...s.filters },
});

export const FACETS: ProductFacet[] = ['brand', 'category', 'availability'];

export interface QuerySet {
  /** The printed line's label. */
  name: string;
  /** The summary row. */
  measure: string;
  searches: ProductSearch[];
  /** Run first, not counted. */
  warmup: ProductSearch[];
  check?: (t: Timing) => Check;
  /** More queries without hits than this share is a problem (the queries are built to match). */
  maxZeroHits?: number;
}

export interface RecallQuery {
  vector: Float32Array;
  filters: Partial<ProductFilters>;
  /** Rows the search may return (the filter's, in a served language). */
  allows: (row: number) => boolean;
  /** The filter's rows, where it is a candidate list (one site). */
  rows?: number[];
  /** The exact top 10 rows. */
  truth: number[];
}

export interface RecallCase {
  name: string;
  short: string;
  target: boolean;
  queries: RecallQuery[];
  /** The brute-force scan's time per query. */
  scan: Timing;
}

export interface Plan {
  sets: QuerySet[];
  /** Rows whose related products are asked for. */
  related: number[];
  recall: RecallCase[];
  http: { keyword: ProductSearch[]; vector: string[] };
}

/** A storefront search: words from one product (so it matches), ~25% with a filter, ~30% with facets. */
export function keywordSearch(rng: Rng, d: Catalogued, mode: ProductSearch['mode'], vector: Float32Array | null = null, t = rng.int(d.n)): ProductSearch {
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

/** Keyword queries with a chosen typo/prefix share and no filter or facet. */
function plainKeyword(rng: Rng, d: Catalogued, typoShare: number, prefixShare: number): ProductSearch {
  const t = rng.int(d.n);
  return search({ query: storefrontQuery(rng, d.words[t], d.head[d.lang[t]], typoShare, prefixShare) });
}

/** A query vector: near a random product (half), or between two topics (half). */
function queryVector(rng: Rng, d: Catalogued, near?: number): Float32Array {
  if (near !== undefined || rng.chance(0.5)) return nearby(rng, d.vectors, (near ?? rng.int(d.n)) * DIM, DIM, 0.6);
  return centroidMix(rng, d.centroids, DIM, 0.5);
}

/** Brands (random ones) that together hold at least `share` of the products. */
function brandShare(d: Catalogued, share: number, rng: Rng): { names: string[]; ids: Set<number>; share: number } {
  const counts = new Map<number, number>();
  for (const b of d.brand) counts.set(b, (counts.get(b) ?? 0) + 1);
  const order = [...counts.keys()].sort(() => rng.next() - 0.5);
  const ids = new Set<number>();
  let covered = 0;
  for (const b of order) {
    if (covered >= share * d.brand.length) break;
    // Skip the very frequent brands: a mix of mid and tail ones gets near the share without overshooting.
    if (counts.get(b)! > share * d.brand.length) continue;
    ids.add(b);
    covered += counts.get(b)!;
  }
  return { names: [...ids].map((b) => d.brands[b]), ids, share: covered / d.brand.length };
}

const timingCheck = (limit: number) => (t: Timing): Check => ({ target: `p99 ≤ ${limit} ms`, met: t.p99 <= limit });

export function makePlan(d: Catalogued): Plan {
  const rng = new Rng(1234);
  const make = (count: number, f: () => ProductSearch) => Array.from({ length: count }, f);
  const warm = Math.min(200, QUERIES);
  const semantic = (filters: Partial<ProductFilters> = {}) => () => search({ mode: 'semantic', vector: queryVector(rng, d), filters });
  const hybrid = () => {
    const t = rng.int(d.n);
    // The words and the vector of one product, as a hybrid query would have them.
    return keywordSearch(rng, d, 'hybrid', queryVector(rng, d, t), t);
  };
  const brands10 = brandShare(d, 0.1, rng);
  const brandsPct = fmt(brands10.share * 100, 0);
  const priceShare = d.price.filter((p) => p >= 40 && p <= 60).length / d.n;
  const pricePct = fmt(priceShare * 100, 0);
  const keyword = () => keywordSearch(rng, d, 'keyword');
  const sets: QuerySet[] = [
    {
      name: 'keyword (mixed: typos, prefixes, filters, facets)', measure: 'keyword, engine time (mixed storefront queries)',
      searches: make(QUERIES, keyword), warmup: make(warm, keyword), check: timingCheck(TARGET.keywordP99), maxZeroHits: 0.5,
    },
    { name: 'keyword, whole words, no filter or facet', measure: 'keyword, whole words, no filter/facet', searches: make(QUERIES, () => plainKeyword(rng, d, 0, 0)), warmup: make(warm, () => plainKeyword(rng, d, 0, 0)) },
    { name: 'keyword, every query with a typo', measure: 'keyword, every query with a typo', searches: make(Math.ceil(QUERIES / 4), () => plainKeyword(rng, d, 1, 0)), warmup: [] },
    { name: 'keyword, every query typed as a prefix', measure: 'keyword, every query typed as a prefix', searches: make(Math.ceil(QUERIES / 4), () => plainKeyword(rng, d, 0, 1)), warmup: [] },
    { name: 'semantic, no filter', measure: 'semantic, engine time, no filter', searches: make(QUERIES, semantic()), warmup: make(warm, semantic()) },
    {
      name: 'semantic, one site (1%)', measure: 'semantic, engine time, one site (1%)',
      searches: make(Math.ceil(QUERIES / 2), () => semantic({ siteId: siteSlug(rng.int(SITES)) })()), warmup: [],
    },
    { name: `semantic, brands (${brandsPct}%)`, measure: `semantic, engine time, brands (${brandsPct}%)`, searches: make(Math.ceil(QUERIES / 2), semantic({ brand: brands10.names })), warmup: [] },
    { name: `semantic, price 40–60 (${pricePct}%)`, measure: `semantic, engine time, price range (${pricePct}%)`, searches: make(Math.ceil(QUERIES / 4), semantic({ priceMin: 40, priceMax: 60 })), warmup: [] },
    { name: 'hybrid (keyword mix + a query vector)', measure: 'hybrid, engine time', searches: make(QUERIES, hybrid), warmup: make(warm, hybrid), check: timingCheck(TARGET.hybridP99) },
  ];
  const related = Array.from({ length: Math.min(QUERIES, 1000) }, () => rng.int(d.n));

  // Recall@10 against the exact scan over the same vectors, among the products the search may
  // return (semantic ranking only considers the served language, en).
  const en = (row: number) => d.isEn[row] === 1;
  const recallCase = (c: Omit<RecallCase, 'queries' | 'scan'>, make: () => Omit<RecallQuery, 'vector' | 'truth'>): RecallCase => {
    const times: number[] = [];
    const started = performance.now();
    const queries = Array.from({ length: RECALL_QUERIES }, () => {
      const vector = queryVector(rng, d);
      const q = make();
      const t = performance.now();
      const truth = bruteForce(d.vectors, DIM, vector, 10, q.allows, q.rows);
      times.push(performance.now() - t);
      return { ...q, vector, truth };
    });
    return { ...c, queries, scan: summarize(times, performance.now() - started) };
  };
  const recall = [
    recallCase({ name: 'unfiltered', short: 'unfiltered', target: true }, () => ({ filters: {}, allows: en })),
    recallCase({ name: `one site of ${SITES} (1% selectivity)`, short: '1% (one site)', target: true }, () => {
      const s = rng.int(SITES);
      return { filters: { siteId: siteSlug(s) }, allows: en, rows: d.siteRows[s] };
    }),
    recallCase({ name: `brands (${brandsPct}% selectivity)`, short: `${brandsPct}% (brands)`, target: false }, () => ({
      filters: { brand: brands10.names }, allows: (row) => en(row) && brands10.ids.has(d.brand[row]),
    })),
    recallCase({ name: `price 40–60 (${pricePct}% selectivity)`, short: `${pricePct}% (price range)`, target: false }, () => ({
      filters: { priceMin: 40, priceMax: 60 }, allows: (row) => en(row) && d.price[row] >= 40 && d.price[row] <= 60,
    })),
  ];
  const scan = recall[0].scan;
  console.log(
    `\n   queries: ${QUERIES.toLocaleString('en')} per main set, ${RECALL_QUERIES} recall queries per case, the same for every engine; ` +
      `their exact answers by brute force (unfiltered scan p50 ${ms(scan.p50)} ms, p99 ${ms(scan.p99)} ms per query)`,
  );

  // The HTTP runs' queries: keyword ones of any kind; a small fixed set for hybrid/semantic.
  const qrng = new Rng(99);
  const http = {
    keyword: Array.from({ length: 500 }, () => keywordSearch(qrng, d, 'keyword')),
    vector: Array.from({ length: HTTP_VECTOR_QUERIES }, () => storefrontQuery(qrng, d.words[qrng.int(d.n)], d.head.en, 0, 0)),
  };
  return { sets, related, recall, http };
}

/** The HTTP request body of an engine search (bound to a server: its site id). */
export function httpBody(s: ProductSearch): Record<string, unknown> {
  const f = s.filters;
  const filters: Record<string, unknown> = {};
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
