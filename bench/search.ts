// Search benchmark (issue 5): 100,000 generated products with 512-d vectors in one tenant.
//
//   1. Engine time, in this process: the built-in engine (BuiltinEngine) built from Redis — build
//      time and memory — then keyword, semantic and hybrid searches called directly, one after
//      another (p50/p99, queries/s), related products, and recall@10 of the vector search against
//      an exact brute-force scan computed in the same run, unfiltered and under filters.
//   2. End to end over HTTP: real `kcs serve` child processes (bench/support/searchServer.ts) on
//      the same Redis, POST /api/knowledge/search/products with autocannon at 1 and 32
//      connections: keyword with KCS_EMBEDDER=none; hybrid and semantic with KCS_EMBEDDER=local
//      over a small fixed set of queries whose embeddings are cached (warm LRU) before measuring.
//   3. Baselines in the same run: the exact brute-force scan per query (the naive alternative to
//      HNSW), and raw Redis round trips (PING; HMGET of the 20 product hashes a page of hits reads).
//
//   npm run bench:search                         100,000 products, 2,000 queries per mode
//   BENCH_PRODUCTS=5000 npm run bench:search     a quick look
//   BENCH_QUERIES=… BENCH_RECALL_QUERIES=… BENCH_SECONDS=…   queries per mode (2,000), recall
//                                                 queries per case (300), seconds per HTTP run (5)
//   BENCH_CPU_PROF=<dir> npm run bench:search    CPU profiles of the serve children (--cpu-prof)
//
// Products are written through the real domain path in-process (createServices → products.
// upsertMany, batches of 1,000, no embedding queue), vectors through VectorRepository.store, into
// a private redis-server. The vectors are synthetic: 200 cluster centres (one per category
// sub-topic) plus gaussian noise, unit length; ~10% of products also get a similarity anchor.
// They are stored under the local embedder's model id (use-lite-512-en) so that the HTTP
// hybrid/semantic runs, whose serve process only loads vectors of its own embedder's model, use
// them too; only timing is measured over HTTP, recall only in process.
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createServices } from '../src/app.js';
import type { ProductInput } from '../src/domain/products.js';
import { SCOPES } from '../src/domain/scopes.js';
import { createLogger } from '../src/log.js';
import { BuiltinEngine } from '../src/search/builtin/engine.js';
import type { ProductFacet, ProductSearch, SearchEngine } from '../src/search/engine.js';
import { EXACT_LIMIT } from '../src/search/vectorIndex.js';
import { startEmbeddedRedis } from '../src/store/embeddedRedis.js';
import { keys } from '../src/store/keys.js';
import { connectRedis, type Store } from '../src/store/redis.js';
import { VectorRepository } from '../src/store/vectors.js';
import { ChildTarget } from './support/child.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { formatCpu, load, type LoadResult } from './support/load.js';
import { cpuMeter, peakRssMiB, redisVersion } from './support/proc.js';
import {
  bruteForce, Catalogue, centroidMix, clusteredVectors, nearby, queryableWords, randomCentroids, recall, Rng, storefrontQuery, summarize, Zipf,
  type Timing,
} from './support/searchData.js';

const PRODUCTS = positiveInt('BENCH_PRODUCTS', 100_000);
const QUERIES = positiveInt('BENCH_QUERIES', 2_000);
const RECALL_QUERIES = positiveInt('BENCH_RECALL_QUERIES', 300);
const SECONDS = positiveInt('BENCH_SECONDS', 5);
const WARMUP_SECONDS = 1;
const SITES = 100;
const DIM = 512;
const CLUSTERS = 200;
const GERMAN = 0.15;
const ANCHORS = 0.1;
const WRITE_BATCH = 1_000;
/** The local embedder's model id (src/embed/local.ts): the serve child with KCS_EMBEDDER=local loads these vectors. */
const MODEL = 'use-lite-512-en';
const HTTP_CONNECTIONS = [1, 32];
/** Distinct queries in the HTTP hybrid/semantic runs: each is embedded once, while warming the cache. */
const HTTP_VECTOR_QUERIES = 50;
const HOST = '127.0.0.1';
const PATH = '/api/knowledge/search/products';
const TARGET = { keywordP99: 5, hybridP99: 15, recall: 0.95 };
const CPU_PROF = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : null;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// Data, writes, the build, 2 × 3 query sets, recall, two serve builds and 12 HTTP runs, with margin.
runBench('bench:search', (300 + PRODUCTS * 0.009 + (QUERIES * 6 + RECALL_QUERIES * 3) * 0.02 + 12 * (SECONDS + WARMUP_SECONDS + 10)) * 1000, main);

interface Row {
  measure: string;
  figure: string;
  target?: string;
  met?: boolean;
}
const summary: Row[] = [];
const note = (row: Row) => summary.push(row);

interface Bench {
  dir: string;
  redisUrl: string;
  redisPid: number;
  store: Store;
  tenantId: string;
  key: string;
  siteIds: string[];
}

async function main(undo: Undo): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'kcs-bench-search-'));
  undo(() => rmSync(dir, { recursive: true, force: true }));
  const redis = await startEmbeddedRedis(dir, { persist: false });
  undo(() => redis.stop());
  const store = connectRedis(redis.url);
  await store.connect();
  undo(() => void store.disconnect());

  console.log(
    `bench:search  ${availableParallelism()} cores, Node ${process.version}, ${redisVersion()}\n` +
      `${PRODUCTS.toLocaleString('en')} products over ${SITES} sites (${Math.round((1 - GERMAN) * 100)}% en, ${Math.round(GERMAN * 100)}% de), ` +
      `${DIM}-d vectors in ${CLUSTERS} clusters, ${Math.round(ANCHORS * 100)}% with an anchor vector; ` +
      `${QUERIES.toLocaleString('en')} engine queries per mode, ${RECALL_QUERIES} recall queries per case, HTTP runs ${SECONDS} s after ${WARMUP_SECONDS} s warm-up\n`,
  );

  const services = createServices(store);
  const tenant = await services.tenants.create('bench', 'Search benchmark');
  const user = await services.users.create(tenant.id, 'bench@bench.test', 'Bench');
  const { key } = await services.apiKeys.create(tenant.id, { userId: user.id, name: 'bench', scopes: [...SCOPES] });
  const siteIds: string[] = [];
  for (let s = 0; s < SITES; s++) {
    siteIds.push((await services.sites.create(tenant.id, { slug: `site-${s}`, name: `Shop ${s}`, language: s % 7 === 0 ? 'de' : 'en' })).id);
  }
  const bench: Bench = { dir, redisUrl: redis.url, redisPid: redis.pid, store, tenantId: tenant.id, key, siteIds };

  const problems: string[] = [];
  const httpQueries = await (async () => {
    const data = await writeCatalogue(bench, services);
    await inProcess(bench, data, problems);
    await redisFloor(bench, data);
    return data.httpQueries;
  })();
  // The catalogue's big arrays are garbage now: the load generator runs with a small heap.
  gc();
  await overHttp(bench, httpQueries, undo, problems);

  printSummary();
  if (problems.length > 0) {
    console.error(`\nproblems:\n- ${problems.join('\n- ')}`);
    return 1;
  }
  return 0;
}

// ---- 0. the catalogue ------------------------------------------------------------------------

interface Catalogued {
  ids: string[];
  rowOf: Map<string, number>;
  site: Uint16Array;
  brand: Uint16Array;
  isEn: Uint8Array;
  price: Float32Array;
  inStock: Uint8Array;
  /** Per product: query words from its own texts (title, category, a few description words). */
  words: string[][];
  lang: ('en' | 'de')[];
  brands: string[];
  head: Record<'en' | 'de', Zipf<string>>;
  vectors: Float32Array;
  centroids: Float32Array;
  /** Rows of each site. */
  siteRows: number[][];
  httpQueries: { keyword: string[]; vector: string[] };
}

async function writeCatalogue(bench: Bench, services: ReturnType<typeof createServices>): Promise<Catalogued> {
  const rng = new Rng(20240605);
  const catalogue = new Catalogue(rng, { sites: SITES, clusters: CLUSTERS, german: GERMAN, anchors: ANCHORS });
  const n = PRODUCTS;
  const ids: string[] = new Array(n);
  const thash: string[] = new Array(n);
  const site = new Uint16Array(n);
  const brand = new Uint16Array(n);
  const cluster = new Uint16Array(n);
  const isEn = new Uint8Array(n);
  const price = new Float32Array(n);
  const inStock = new Uint8Array(n);
  const anchored = new Uint8Array(n);
  const words: string[][] = new Array(n);
  const lang: ('en' | 'de')[] = new Array(n);
  let bytes = 0;
  let genMs = 0;

  const started = performance.now();
  for (let start = 0; start < n; start += WRITE_BATCH) {
    const g = performance.now();
    const batch = [];
    for (let i = start; i < Math.min(n, start + WRITE_BATCH); i++) {
      const p = catalogue.product(i);
      site[i] = p.site;
      brand[i] = p.brand;
      cluster[i] = p.cluster;
      isEn[i] = p.input.language === 'en' ? 1 : 0;
      lang[i] = p.input.language as 'en' | 'de';
      price[i] = p.price;
      inStock[i] = p.inStock ? 1 : 0;
      anchored[i] = p.input.similarity_text ? 1 : 0;
      words[i] = queryableWords(`${p.input.title} ${p.input.category} ${p.input.description.split(' ', 12).join(' ')}`);
      bytes += JSON.stringify(p.input).length;
      batch.push({ siteId: bench.siteIds[p.site], input: p.input as ProductInput, source: 'bench' });
    }
    genMs += performance.now() - g;
    const outcomes = await services.products.upsertMany(bench.tenantId, batch);
    outcomes.forEach((o, k) => {
      if (o.result !== 'created') throw new Error(`product ${start + k}: ${o.result}, expected created`);
      ids[start + k] = o.id;
      thash[start + k] = o.thash;
    });
  }
  const writeMs = performance.now() - started;
  console.log(
    `0. wrote ${n.toLocaleString('en')} products (${fmt(bytes / n, 0)} bytes of input JSON each) through products.upsertMany in ` +
      `${fmt(writeMs / 1000, 1)} s (${fmt(n / (writeMs / 1000), 0)}/s, of which generating ${fmt(genMs / 1000, 1)} s)`,
  );

  // Vectors: a separate seed, so the texts above do not depend on the vector settings.
  const vrng = new Rng(7);
  const g = performance.now();
  const centroids = randomCentroids(vrng, CLUSTERS, DIM);
  const vectors = clusteredVectors(vrng, centroids, DIM, (i) => cluster[i], n, 1);
  const repo = new VectorRepository(bench.store);
  const genVectorsMs = performance.now() - g;
  const stored = performance.now();
  let anchors = 0;
  for (let start = 0; start < n; start += WRITE_BATCH) {
    const calls: Promise<boolean>[] = [];
    for (let i = start; i < Math.min(n, start + WRITE_BATCH); i++) {
      const description = vectors.subarray(i * DIM, (i + 1) * DIM);
      const named: Record<string, Float32Array> = { description };
      if (anchored[i]) {
        named.anchor = nearby(vrng, vectors, i * DIM, DIM, 0.5);
        anchors++;
      }
      // Auto-pipelined by the connection: one batch is one round trip.
      calls.push(repo.store(bench.tenantId, { kind: 'product', id: ids[i] }, thash[i], MODEL, named));
    }
    const results = await Promise.all(calls);
    const refused = results.filter((ok) => !ok).length;
    if (refused > 0) throw new Error(`${refused} vectors refused by storeVectors (thash mismatch)`);
  }
  const storeMs = performance.now() - stored;
  console.log(
    `   generated ${n.toLocaleString('en')} + ${anchors.toLocaleString('en')} anchor vectors in ${fmt(genVectorsMs / 1000, 1)} s; ` +
      `stored through VectorRepository.store in ${fmt(storeMs / 1000, 1)} s (${fmt(n / (storeMs / 1000), 0)} products/s)`,
  );
  const info = await bench.store.info('memory');
  console.log(`   redis used_memory ${/used_memory_human:(\S+)/.exec(info)?.[1] ?? '?'}\n`);

  const vocabulary = catalogue.vocabulary();
  const head = { en: new Zipf(vocabulary.words.en, 1), de: new Zipf(vocabulary.words.de, 1) };
  const siteRows: number[][] = Array.from({ length: SITES }, () => []);
  for (let i = 0; i < n; i++) siteRows[site[i]].push(i);

  // The HTTP runs' queries: keyword ones of any kind; a small fixed set for hybrid/semantic.
  const qrng = new Rng(99);
  const keywordBodies = Array.from({ length: 500 }, () => JSON.stringify(httpBody(keywordSearch(qrng, { ids, site, brand, brands: vocabulary.brands, price, words, lang, head, siteIds: bench.siteIds }, 'keyword'))));
  const vectorTexts = Array.from({ length: HTTP_VECTOR_QUERIES }, () => {
    const t = qrng.int(n);
    return storefrontQuery(qrng, words[t], head.en, 0, 0);
  });
  return {
    ids, rowOf: new Map(ids.map((id, i) => [id, i])), site, brand, isEn, price, inStock, words, lang, brands: vocabulary.brands, head,
    vectors, centroids, siteRows, httpQueries: { keyword: keywordBodies, vector: vectorTexts },
  };
}

// ---- queries ---------------------------------------------------------------------------------

type QueryData = Pick<Catalogued, 'ids' | 'site' | 'brand' | 'brands' | 'price' | 'words' | 'lang' | 'head'> & { siteIds: string[] };

const search = (s: Partial<Omit<ProductSearch, 'filters'>> & { filters?: Partial<ProductSearch['filters']> }): ProductSearch => ({
  query: '', mode: 'keyword', vector: null, semanticLanguages: ['en'], limit: 20, offset: 0, facets: [],
  ...s,
  filters: { variantStrategy: 'all', ...s.filters },
});

const FACETS: ProductFacet[] = ['brand', 'category', 'availability'];

/** A storefront search: words from one product (so it matches), ~25% with a filter, ~30% with facets. */
function keywordSearch(rng: Rng, d: QueryData, mode: ProductSearch['mode'], vector: Float32Array | null = null, t = rng.int(d.ids.length)): ProductSearch {
  const query = storefrontQuery(rng, d.words[t], d.head[d.lang[t]]);
  const filters: Partial<ProductSearch['filters']> = {};
  if (rng.chance(0.25)) {
    switch (rng.int(4)) {
      case 0: filters.siteId = d.siteIds[d.site[t]]; break;
      case 1: filters.brand = [d.brands[d.brand[t]]]; break;
      case 2: filters.priceMin = Math.floor(d.price[t] / 2); filters.priceMax = Math.ceil(d.price[t] * 2); break;
      default: filters.inStock = true;
    }
  }
  return search({ query, mode, vector, filters, facets: rng.chance(0.3) ? FACETS : [] });
}

/** The HTTP request body of an engine search. */
function httpBody(s: ProductSearch): Record<string, unknown> {
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

/** A query vector: near a random product (half), or between two topics (half). */
function queryVector(rng: Rng, d: Pick<Catalogued, 'vectors' | 'centroids'>, near?: number): Float32Array {
  const n = d.vectors.length / DIM;
  if (near !== undefined || rng.chance(0.5)) return nearby(rng, d.vectors, (near ?? rng.int(n)) * DIM, DIM, 0.6);
  return centroidMix(rng, d.centroids, DIM, 0.5);
}

// ---- 1. engine time, in process --------------------------------------------------------------

interface EngineRun extends Timing {
  zeroHits: number;
  meanTotal: number;
  /** Garbage-collection pauses of this process during the run: count, total and longest (ms). */
  gc?: { count: number; total: number; max: number };
}

/** Collects this process's GC pauses while `run` runs (they land in the latency tail). */
async function watchGc<T>(run: () => Promise<T>): Promise<[T, NonNullable<EngineRun['gc']>]> {
  const pauses: number[] = [];
  const observer = new PerformanceObserver((list) => list.getEntries().forEach((e) => pauses.push(e.duration)));
  observer.observe({ entryTypes: ['gc'] });
  try {
    const result = await run();
    // Entries are delivered on a later turn of the event loop: let them arrive.
    await new Promise((r) => setTimeout(r, 50));
    return [result, { count: pauses.length, total: pauses.reduce((a, b) => a + b, 0), max: Math.max(0, ...pauses) }];
  } finally {
    observer.disconnect();
  }
}

async function timed(engine: SearchEngine, tenantId: string, searches: ProductSearch[], warmup: ProductSearch[]): Promise<EngineRun> {
  for (const s of warmup) await engine.searchProducts(tenantId, s);
  const times: number[] = [];
  let zeroHits = 0;
  let totals = 0;
  const started = performance.now();
  const [, gcPauses] = await watchGc(async () => {
    for (const s of searches) {
      const t = performance.now();
      const result = await engine.searchProducts(tenantId, s);
      times.push(performance.now() - t);
      if (result.hits.length === 0) zeroHits++;
      totals += result.total;
    }
  });
  return { ...summarize(times, performance.now() - started), zeroHits: zeroHits / searches.length, meanTotal: totals / searches.length, gc: gcPauses };
}

const ms = (v: number) => fmt(v, v < 1 ? 3 : 2);
const line = (name: string, r: EngineRun) =>
  console.log(
    `   ${name.padEnd(44)} p50 ${ms(r.p50).padStart(7)} ms  p99 ${ms(r.p99).padStart(7)} ms  max ${ms(r.max).padStart(7)} ms  ` +
      `${fmt(r.rate, 0).padStart(6)} q/s` + (Number.isFinite(r.meanTotal) ? `  (zero hits ${fmt(r.zeroHits * 100, 0)}%, mean total ${fmt(r.meanTotal, 0)})` : '') +
      (r.gc ? `  GC ${r.gc.count}× ${ms(r.gc.total)} ms, max ${ms(r.gc.max)} ms` : ''),
  );
const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 0)} MiB`;

async function inProcess(bench: Bench, data: Catalogued, problems: string[]): Promise<void> {
  const n = data.ids.length;
  const q: QueryData = { ...data, siteIds: bench.siteIds };
  const rng = new Rng(1234);

  gc();
  gc();
  const before = process.memoryUsage();
  const engine = new BuiltinEngine(bench.store, createLogger('silent', 'bench'), { modelId: MODEL });
  let marks = 0;
  const started = performance.now();
  await engine.start((p) => {
    if (p.documents >= ((marks + 1) * n) / 4 && p.documents < n) {
      marks++;
      console.log(`   … ${p.documents.toLocaleString('en')} documents after ${fmt((performance.now() - started) / 1000, 1)} s`);
    }
  });
  const buildMs = performance.now() - started;
  gc();
  gc();
  const after = process.memoryUsage();
  const delta = (k: keyof NodeJS.MemoryUsage) => after[k] - before[k];
  console.log(
    `1. engine (in process): built the replica of ${n.toLocaleString('en')} products (text index + HNSW f16 + anchors) in ` +
      `${fmt(buildMs / 1000, 1)} s (${fmt(n / (buildMs / 1000), 0)} products/s)\n` +
      `   memory after − before (after GC): rss +${mib(delta('rss'))}, heapUsed +${mib(delta('heapUsed'))}, ` +
      `external +${mib(delta('external'))} (arrayBuffers +${mib(delta('arrayBuffers'))}); usearch's graph is native memory, counted in rss only`,
  );
  note({ measure: `index build, ${n.toLocaleString('en')} products (in process)`, figure: `${fmt(buildMs / 1000, 1)} s (${fmt(n / (buildMs / 1000), 0)}/s)` });
  note({ measure: 'index memory: rss delta (heapUsed / arrayBuffers delta)', figure: `${mib(delta('rss'))} (${mib(delta('heapUsed'))} / ${mib(delta('arrayBuffers'))})` });

  const meter = cpuMeter({ bench: process.pid, 'redis-server': bench.redisPid });
  try {
    // Keyword: storefront queries; each set has its own warm-up queries (not counted).
    const make = (count: number, f: () => ProductSearch) => Array.from({ length: count }, f);
    const warm = Math.min(200, QUERIES);
    const kw = await timed(engine, bench.tenantId, make(QUERIES, () => keywordSearch(rng, q, 'keyword')), make(warm, () => keywordSearch(rng, q, 'keyword')));
    line('keyword (mixed: typos, prefixes, filters, facets)', kw);
    const kwPlain = await timed(engine, bench.tenantId, make(QUERIES, () => plainKeyword(rng, q, 0, 0)), make(warm, () => plainKeyword(rng, q, 0, 0)));
    line('keyword, whole words, no filter or facet', kwPlain);
    const kwTypo = await timed(engine, bench.tenantId, make(Math.ceil(QUERIES / 4), () => plainKeyword(rng, q, 1, 0)), []);
    line('keyword, every query with a typo', kwTypo);
    const kwPrefix = await timed(engine, bench.tenantId, make(Math.ceil(QUERIES / 4), () => plainKeyword(rng, q, 0, 1)), []);
    line('keyword, every query typed as a prefix', kwPrefix);

    const sem = await timed(engine, bench.tenantId, make(QUERIES, () => search({ mode: 'semantic', vector: queryVector(rng, data) })), make(warm, () => search({ mode: 'semantic', vector: queryVector(rng, data) })));
    line('semantic, no filter', sem);
    const semSite = await timed(engine, bench.tenantId, make(Math.ceil(QUERIES / 2), () => search({ mode: 'semantic', vector: queryVector(rng, data), filters: { siteId: bench.siteIds[rng.int(SITES)] } })), []);
    line(`semantic, one site (1%: exact ≤ ${EXACT_LIMIT})`, semSite);
    const brands10 = brandShare(data, 0.1, rng);
    const semBrands = await timed(engine, bench.tenantId, make(Math.ceil(QUERIES / 2), () => search({ mode: 'semantic', vector: queryVector(rng, data), filters: { brand: brands10.names } })), []);
    line(`semantic, brands (${fmt(brands10.share * 100, 0)}%: graph, oversampled)`, semBrands);
    const semPrice = await timed(engine, bench.tenantId, make(Math.ceil(QUERIES / 4), () => search({ mode: 'semantic', vector: queryVector(rng, data), filters: { priceMin: 40, priceMax: 60 } })), []);
    const priceShare = data.price.filter((p) => p >= 40 && p <= 60).length / n;
    line(`semantic, price 40–60 (${fmt(priceShare * 100, 0)}%, not a candidate list)`, semPrice);

    const hybridSearch = () => {
      const t = rng.int(n);
      // The words and the vector of one product, as a hybrid query would have them.
      return keywordSearch(rng, q, 'hybrid', queryVector(rng, data, t), t);
    };
    const hyb = await timed(engine, bench.tenantId, make(QUERIES, hybridSearch), make(warm, hybridSearch));
    line('hybrid (keyword mix + a query vector)', hyb);

    const relatedTimes: number[] = [];
    let relatedSelf = 0;
    let relatedDuplicates = 0;
    const relatedCalls = Math.min(QUERIES, 1000);
    const relStarted = performance.now();
    for (let i = 0; i < relatedCalls; i++) {
      const id = data.ids[rng.int(n)];
      const t = performance.now();
      const result = await engine.relatedProducts(bench.tenantId, id, { limit: 10, offset: 0, variantStrategy: 'all' });
      relatedTimes.push(performance.now() - t);
      const ids = result?.hits.map((h) => h.id) ?? [];
      if (ids.includes(id)) relatedSelf++;
      if (new Set(ids).size !== ids.length) relatedDuplicates++;
    }
    const related = summarize(relatedTimes, performance.now() - relStarted);
    line('related products (same site, by anchor)', { ...related, zeroHits: 0, meanTotal: NaN });
    if (relatedSelf > 0 || relatedDuplicates > 0) {
      const message = `related products: ${relatedSelf} of ${relatedCalls} answers contain the product itself, ${relatedDuplicates} contain a product twice`;
      console.log(`   !! ${message}`);
      problems.push(message);
    }

    note({ measure: 'keyword, engine time (mixed storefront queries)', figure: `p50 ${ms(kw.p50)} ms, p99 ${ms(kw.p99)} ms, ${fmt(kw.rate, 0)} q/s`, target: `p99 ≤ ${TARGET.keywordP99} ms`, met: kw.p99 <= TARGET.keywordP99 });
    note({ measure: 'keyword, whole words, no filter/facet', figure: `p50 ${ms(kwPlain.p50)} ms, p99 ${ms(kwPlain.p99)} ms, ${fmt(kwPlain.rate, 0)} q/s` });
    note({ measure: 'semantic, engine time, no filter', figure: `p50 ${ms(sem.p50)} ms, p99 ${ms(sem.p99)} ms, ${fmt(sem.rate, 0)} q/s` });
    note({ measure: 'semantic, engine time, one site (1%)', figure: `p50 ${ms(semSite.p50)} ms, p99 ${ms(semSite.p99)} ms` });
    note({ measure: `semantic, engine time, brands (${fmt(brands10.share * 100, 0)}%)`, figure: `p50 ${ms(semBrands.p50)} ms, p99 ${ms(semBrands.p99)} ms` });
    note({ measure: `semantic, engine time, price range (${fmt(priceShare * 100, 0)}%)`, figure: `p50 ${ms(semPrice.p50)} ms, p99 ${ms(semPrice.p99)} ms` });
    note({ measure: 'hybrid, engine time', figure: `p50 ${ms(hyb.p50)} ms, p99 ${ms(hyb.p99)} ms, ${fmt(hyb.rate, 0)} q/s`, target: `p99 ≤ ${TARGET.hybridP99} ms`, met: hyb.p99 <= TARGET.hybridP99 });
    note({ measure: 'related products, engine time', figure: `p50 ${ms(related.p50)} ms, p99 ${ms(related.p99)} ms` });

    // Recall@10 against the exact scan over the same stored vectors, among the products the
    // search may return (semantic ranking only considers the served language, en).
    console.log(`\n   recall@10 against brute force (${RECALL_QUERIES} queries per case; the brute-force scan is also the baseline)`);
    const en = (row: number) => data.isEn[row] === 1;
    const cases: { name: string; short: string; target: boolean; make: () => { filters: Partial<ProductSearch['filters']>; allows: (row: number) => boolean; rows?: number[] } }[] = [
      { name: 'unfiltered', short: 'unfiltered', target: true, make: () => ({ filters: {}, allows: en }) },
      {
        name: `one site of ${SITES} (1% selectivity)`, short: '1% (one site)', target: true,
        make: () => {
          const s = rng.int(SITES);
          return { filters: { siteId: bench.siteIds[s] }, allows: en, rows: data.siteRows[s] };
        },
      },
      {
        name: `brands (${fmt(brands10.share * 100, 0)}% selectivity, > EXACT_LIMIT: graph)`, short: `${fmt(brands10.share * 100, 0)}% (brands)`, target: false,
        make: () => ({ filters: { brand: brands10.names }, allows: (row) => en(row) && brands10.ids.has(data.brand[row]) }),
      },
      {
        name: `price 40–60 (${fmt(priceShare * 100, 0)}% selectivity, no candidate list)`, short: `${fmt(priceShare * 100, 0)}% (price range)`, target: false,
        make: () => ({ filters: { priceMin: 40, priceMax: 60 }, allows: (row) => en(row) && data.price[row] >= 40 && data.price[row] <= 60 }),
      },
    ];
    for (const c of cases) {
      let sum = 0;
      let worst = 1;
      let violations = 0;
      let hitsSeen = 0;
      const scanTimes: number[] = [];
      const scanStarted = performance.now();
      for (let i = 0; i < RECALL_QUERIES; i++) {
        const vector = queryVector(rng, data);
        const { filters, allows, rows } = c.make();
        const t = performance.now();
        const truth = bruteForce(data.vectors, DIM, vector, 10, allows, rows);
        scanTimes.push(performance.now() - t);
        const result = await engine.searchProducts(bench.tenantId, search({ mode: 'semantic', vector, limit: 10, filters }));
        const found = result.hits.map((h) => data.rowOf.get(h.id) ?? -1);
        // Hits the filter does not allow (another language, site, brand or price): a wrong answer, not a recall miss.
        hitsSeen += found.length;
        violations += found.filter((row) => row < 0 || !allows(row) || (rows !== undefined && !rows.includes(row))).length;
        const r = recall(found, truth);
        sum += r;
        worst = Math.min(worst, r);
      }
      const mean = sum / RECALL_QUERIES;
      const scan = summarize(scanTimes, performance.now() - scanStarted);
      console.log(`   ${c.name.padEnd(58)} recall@10 ${fmt(mean, 4)} (worst query ${fmt(worst, 1)})  brute-force scan p50 ${ms(scan.p50)} ms, p99 ${ms(scan.p99)} ms`);
      if (violations > 0) {
        const message = `semantic, ${c.short}: ${violations} of ${hitsSeen} hits (${fmt((100 * violations) / hitsSeen, 1)}%) are not allowed by the filter (e.g. not in a served language)`;
        console.log(`   !! ${message}`);
        problems.push(message);
      }
      note({
        measure: `recall@10, ${c.short}`, figure: fmt(mean, 4),
        ...(c.target ? { target: `≥ ${TARGET.recall}`, met: mean >= TARGET.recall } : {}),
      });
      if (c.short === 'unfiltered') note({ measure: `baseline: exact brute-force scan of ${fmt(data.isEn.reduce((a, b) => a + b, 0), 0)} vectors (JS loop)`, figure: `p50 ${ms(scan.p50)} ms, p99 ${ms(scan.p99)} ms per query` });
    }
    if (kw.zeroHits > 0.5) problems.push(`keyword: ${fmt(kw.zeroHits * 100, 0)}% of queries found nothing`);
    const cpu = meter();
    console.log(`   CPU over the in-process queries: ${formatCpu(cpu.cores)}${(cpu.cores.other ?? 0) > 0.1 ? ' — other processes were busy: latency tails are not those of an idle machine' : ''}`);
  } finally {
    await engine.close();
  }
}

/** Keyword queries with a chosen typo/prefix share and no filter or facet. */
function plainKeyword(rng: Rng, d: QueryData, typoShare: number, prefixShare: number): ProductSearch {
  const t = rng.int(d.ids.length);
  return search({ query: storefrontQuery(rng, d.words[t], d.head[d.lang[t]], typoShare, prefixShare) });
}

/** Brands (random ones) that together hold at least `share` of the products. */
function brandShare(d: Pick<Catalogued, 'brand' | 'brands'>, share: number, rng: Rng): { names: string[]; ids: Set<number>; share: number } {
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

// ---- 3. the Redis floor ----------------------------------------------------------------------

async function redisFloor(bench: Bench, data: Catalogued): Promise<void> {
  const rng = new Rng(5);
  const run = async (name: string, op: () => Promise<unknown>, count = 2000) => {
    for (let i = 0; i < 100; i++) await op();
    const times: number[] = [];
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      await op();
      times.push(performance.now() - t);
    }
    const r = summarize(times, performance.now() - started);
    console.log(`   ${name.padEnd(58)} p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms  ${fmt(r.rate, 0)}/s`);
    note({ measure: `baseline: ${name}`, figure: `p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms` });
  };
  console.log('\n   raw Redis from this process (the floor under every end-to-end search; sequential)');
  await run('raw Redis PING', () => bench.store.ping());
  await run('raw Redis HMGET doc of 20 products (one pipeline)', () => {
    const pipeline = bench.store.pipeline();
    for (let i = 0; i < 20; i++) pipeline.hmget(keys.product(bench.tenantId, data.ids[rng.int(data.ids.length)]), 'doc', 'rev', 'pext', 'estatus');
    return pipeline.exec();
  });
}

// ---- 2. end to end over HTTP -----------------------------------------------------------------

function call(port: number, method: string, path: string, headers: Record<string, string>, body?: string, timeoutMs = 120_000): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: HOST, port, method, path, headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) }, timeout: timeoutMs },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function startServe(bench: Bench, undo: Undo, embedder: 'none' | 'local'): Promise<{ serve: ChildTarget<{ type: 'ready'; port: number }>; port: number; readyMs: number }> {
  const profile = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, `serve-${embedder}`)}`] : [];
  const serve = new ChildTarget<{ type: 'ready'; port: number }>(`kcs serve (KCS_EMBEDDER=${embedder})`, new URL('./support/searchServer.ts', import.meta.url), {
    BENCH_REDIS_URL: bench.redisUrl, BENCH_DATA_DIR: bench.dir, KCS_EMBEDDER: embedder,
  }, undefined, profile);
  undo(() => serve.stop());
  const { port } = await serve.ready;
  // The replica builds in the background; /readyz answers 200 once it is done.
  const started = performance.now();
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    const { status } = await call(port, 'GET', '/readyz', {});
    if (status === 200) break;
    if (Date.now() > deadline) throw new Error(`${serve.name}: not ready after 30 minutes`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { serve, port, readyMs: performance.now() - started };
}

async function overHttp(bench: Bench, queries: Catalogued['httpQueries'], undo: Undo, problems: string[]): Promise<void> {
  const runs: { name: string; connections: number; result: LoadResult }[] = [];
  const measure = async (name: string, port: number, pids: Record<string, number | undefined>, bodies: string[]) => {
    const headers = { host: `bench.localhost:${port}`, authorization: `Bearer ${bench.key}`, 'content-type': 'application/json' };
    for (const connections of HTTP_CONNECTIONS) {
      let next = 0;
      const options = (seconds: number) => ({
        url: `http://${HOST}:${port}`, connections, duration: seconds,
        requests: [{ method: 'POST' as const, path: PATH, headers, setupRequest: (req: object) => ({ ...req, body: bodies[next++ % bodies.length] }) }],
      });
      await load(options(WARMUP_SECONDS), {});
      const result = await load(options(SECONDS), { ...pids, 'load generator': process.pid });
      runs.push({ name, connections, result });
      const cpu = formatCpu(result.cpu);
      console.log(
        `   ${name.padEnd(34)} c=${String(connections).padEnd(3)} ${fmt(result.rps, 0).padStart(6)} req/s  p50 ${fmt(result.p50, 2).padStart(7)} ms  ` +
          `p99 ${fmt(result.p99, 2).padStart(7)} ms  non-2xx ${result.non2xx}  errors ${result.errors}${cpu ? `  (CPU ${cpu})` : ''}`,
      );
      if (result.non2xx > 0 || result.errors > 0) problems.push(`${name} c=${connections}: ${result.non2xx} non-2xx, ${result.errors} errors (${JSON.stringify(result.statuses)})`);
      note({ measure: `${name}, end to end, ${connections} conn`, figure: `${fmt(result.rps, 0)} req/s, p50 ${fmt(result.p50, 2)} ms, p99 ${fmt(result.p99, 2)} ms` });
    }
  };
  const headersFor = (port: number) => ({ host: `bench.localhost:${port}`, authorization: `Bearer ${bench.key}`, 'content-type': 'application/json' });

  // Keyword, embedding off.
  {
    const { serve, port, readyMs } = await startServe(bench, undo, 'none');
    console.log(`\n2. over HTTP: POST ${PATH}, ${SECONDS} s per run after ${WARMUP_SECONDS} s warm-up, limit 20 (hits carry their products)`);
    console.log(`   kcs serve (KCS_EMBEDDER=none): replica built (no vectors) ${fmt(readyMs / 1000, 1)} s after listening`);
    note({ measure: 'serve start → /readyz 200, KCS_EMBEDDER=none (text only)', figure: `${fmt(readyMs / 1000, 1)} s` });
    const probe = await call(port, 'POST', PATH, headersFor(port), queries.keyword[0]);
    if (probe.status !== 200) throw new Error(`keyword search answered ${probe.status}: ${probe.text.slice(0, 500)}`);
    const answer = JSON.parse(probe.text) as { mode: string; total: number; hits: unknown[] };
    console.log(`   one keyword answer: ${answer.hits.length} hits of ${answer.total}, ${fmt(Buffer.byteLength(probe.text) / 1024, 1)} KiB of JSON`);
    await measure('keyword (500 distinct queries)', port, { serve: serve.proc.pid, 'redis-server': bench.redisPid }, queries.keyword);
    const rss = peakRssMiB(serve.proc.pid);
    if (rss !== null) note({ measure: 'peak RSS, kcs serve (KCS_EMBEDDER=none)', figure: `${fmt(rss, 0)} MiB` });
    await serve.stop();
  }

  // Hybrid and semantic with the local model: a fixed set of queries, embedded once while warming.
  {
    const { serve, port, readyMs } = await startServe(bench, undo, 'local');
    console.log(`   kcs serve (KCS_EMBEDDER=local): replica built (text + vectors) ${fmt(readyMs / 1000, 1)} s after listening`);
    note({ measure: 'serve start → /readyz 200, KCS_EMBEDDER=local (text + vectors)', figure: `${fmt(readyMs / 1000, 1)} s` });
    const embedTimes: number[] = [];
    for (const query of queries.vector) {
      const t = performance.now();
      const res = await call(port, 'POST', PATH, headersFor(port), JSON.stringify({ query, mode: 'hybrid' }));
      embedTimes.push(performance.now() - t);
      const body = JSON.parse(res.text) as { mode?: string; semantic_fallback?: string | null; hits?: { ranks: { semantic: number | null } }[] };
      if (res.status !== 200 || body.mode !== 'hybrid' || body.semantic_fallback) throw new Error(`hybrid search did not run semantic: ${res.status} ${res.text.slice(0, 300)}`);
      if (!body.hits?.some((h) => h.ranks.semantic !== null)) problems.push(`hybrid '${query}': no semantic rank in the hits (vectors not loaded under ${MODEL}?)`);
    }
    const sorted = [...embedTimes.slice(1)].sort((a, b) => a - b);
    console.log(
      `   query cache warmed: ${queries.vector.length} distinct queries embedded by the local model (first, with model load, ${fmt(embedTimes[0], 0)} ms; ` +
        `then median ${fmt(sorted[sorted.length >> 1] ?? NaN, 1)} ms per uncached query); the runs below hit the LRU query cache only`,
    );
    note({ measure: 'uncached query embedding (local model), median, end to end', figure: `${fmt(sorted[sorted.length >> 1] ?? NaN, 1)} ms` });
    const pids = { serve: serve.proc.pid, 'redis-server': bench.redisPid };
    await measure(`hybrid (${HTTP_VECTOR_QUERIES} cached queries)`, port, pids, queries.vector.map((query, i) => JSON.stringify({ query, mode: 'hybrid', ...(i % 3 === 0 ? { facets: FACETS } : {}) })));
    await measure(`semantic (${HTTP_VECTOR_QUERIES} cached queries)`, port, pids, queries.vector.map((query) => JSON.stringify({ query, mode: 'semantic' })));
    const rss = peakRssMiB(serve.proc.pid);
    if (rss !== null) note({ measure: 'peak RSS, kcs serve (KCS_EMBEDDER=local, model loaded)', figure: `${fmt(rss, 0)} MiB` });
    await serve.stop();
  }
  const busiest = Math.max(...runs.map((r) => r.result.cpu.other ?? 0));
  if (busiest > 0.1) {
    console.log(`   note: other processes took up to ${fmt(busiest * 100, 0)}% of a core during an HTTP run: these are not the figures of an idle machine`);
  }
}

function printSummary(): void {
  console.log(`\n| measurement (${PRODUCTS.toLocaleString('en')} products) | figure | target |\n|---|---|---|`);
  for (const r of summary) console.log(`| ${r.measure} | ${r.figure} | ${r.target ? `${r.target}: **${r.met ? 'met' : 'MISS'}**` : ''} |`);
}
