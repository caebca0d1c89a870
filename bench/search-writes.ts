// What search costs on the write path. With the built-in engine a write stores the document and
// nothing more (each serve process indexes its replica itself); with the Redis Query Engine the
// write also stores the document's search fields and the server indexes the hash before it answers
// — and re-indexes the whole document, vector included, whenever a field it reads changes.
//
// The same generated products go through the real domain path (products.upsertMany in batches of
// 1,000, VectorRepository.store for 512-d vectors) into two servers, one after the other:
//   builtin — a private redis-server (the one on PATH), no projection;
//   redis-query-engine — BENCH_REDIS_URL (a server with the search module), a fresh tenant whose
//     indexes exist before the writes, writes carrying the projection.
// Steps: create, store vectors, re-send unchanged, change every price (same sync_hash: volatile
// fields only), and on the Query Engine the projection job over the stored catalogue (what moving a
// deployment to it costs). Each step prints products/s and the server's CPU per product (INFO cpu).
//
//   BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:search-writes
//   BENCH_PRODUCTS=100000 ...                  more products (default 20,000)
import { availableParallelism } from 'node:os';
import { createServices } from '../src/app.js';
import type { ProductInput } from '../src/domain/products.js';
import { searchWrites, type EngineKind } from '../src/search/index.js';
import { hasQueryEngine } from '../src/search/redisQuery/schema.js';
import { ProjectionBackfill } from '../src/store/projectionBackfill.js';
import { connectRedis, type Store } from '../src/store/redis.js';
import { VectorRepository } from '../src/store/vectors.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { describeServer, dropTenant, openPrivateRedis, serverCpuSeconds } from './support/redisServers.js';
import { clusteredVectors, randomCentroids, Rng } from './support/searchData.js';
import { Catalogue } from './support/searchText.js';

const PRODUCTS = positiveInt('BENCH_PRODUCTS', 20_000);
const BATCH = 1_000;
const DIM = 512;
const MODEL = 'use-lite-512-en';
const URL_WITH_MODULE = process.env.BENCH_REDIS_URL;

runBench('bench:search-writes', (120 + PRODUCTS * 0.01) * 1000, main);

interface Step {
  name: string;
  perSecond: number;
  /** The Redis server's CPU per product, µs. */
  redisMicros: number;
}

interface Target {
  name: string;
  store: Store;
  engine: EngineKind;
}

async function runTarget(target: Target, catalogue: Catalogue, vectors: Float32Array): Promise<Step[]> {
  const { store } = target;
  // As a serve process of that engine writes: with the Query Engine, a new tenant's indexes exist before its first document.
  const writes = searchWrites(target.engine, store, { modelId: MODEL, dimension: DIM });
  const services = createServices(store, { search: writes });
  const slug = `bench-writes-${Date.now().toString(36)}`;
  const tenant = await services.tenants.create(slug, 'Write benchmark');
  const site = await services.sites.create(tenant.id, { slug: 'shop', name: 'Shop', language: 'en' });
  const inputs = Array.from({ length: PRODUCTS }, (_, i) => catalogue.product(i).input as unknown as ProductInput);
  const ids: string[] = new Array(PRODUCTS);
  const thashes: string[] = new Array(PRODUCTS);
  const steps: Step[] = [];
  /** Times `work` over the whole catalogue: products/s, and the server's CPU per product. */
  const measure = async (name: string, work: () => Promise<unknown>) => {
    const cpu = await serverCpuSeconds(store);
    const started = performance.now();
    await work();
    const seconds = (performance.now() - started) / 1000;
    const redisMicros = ((await serverCpuSeconds(store)) - cpu) * 1e6 / PRODUCTS;
    steps.push({ name, perSecond: PRODUCTS / seconds, redisMicros });
    console.log(`   ${target.name.padEnd(20)} ${name.padEnd(44)} ${fmt(PRODUCTS / seconds, 0).padStart(7)} products/s  redis ${fmt(redisMicros, 0).padStart(5)} µs/product`);
  };
  const step = (name: string, run: (from: number, to: number) => Promise<void>) =>
    measure(name, async () => {
      for (let from = 0; from < PRODUCTS; from += BATCH) await run(from, Math.min(PRODUCTS, from + BATCH));
    });
  const upsert = async (from: number, to: number, expect: string, over: (i: number) => Partial<ProductInput> = () => ({})) => {
    const outcomes = await services.products.upsertMany(tenant.id, inputs.slice(from, to).map((input, k) => ({ siteId: site.id, input: { ...input, ...over(from + k) } as ProductInput, source: 'bench' })));
    outcomes.forEach((o, k) => {
      if (o.result !== expect) throw new Error(`${target.name}: product ${from + k} ${o.result}, expected ${expect}`);
      ids[from + k] = o.id;
      thashes[from + k] ??= o.textHash;
    });
  };
  const repo = new VectorRepository(store);
  await step('create', (from, to) => upsert(from, to, 'created'));
  await step('store a 512-d vector', async (from, to) => {
    const stored = await Promise.all(ids.slice(from, to).map((id, k) => repo.store(tenant.id, { kind: 'product', id }, { textHash: thashes[from + k], model: MODEL, vectors: { description: vectors.subarray((from + k) * DIM, (from + k + 1) * DIM) } })));
    if (stored.includes(false)) throw new Error(`${target.name}: a vector was refused`);
  });
  await step('re-send unchanged', (from, to) => upsert(from, to, 'unchanged'));
  await step('change the price (volatile fields only)', (from, to) => upsert(from, to, 'updated', (i) => ({ price_current: (Number(inputs[i].price_current) + 1).toFixed(2) })));
  if (writes.projection) {
    // The job's own check (documents already at this version are left alone) is skipped here: it measures a real migration.
    const backfill = new ProjectionBackfill(store, { ...writes.projection, version: `${writes.projection.version}-bench` });
    await measure('projection job over the stored catalogue', () => backfill.run(tenant.id));
  }
  await dropTenant(store, slug);
  return steps;
}

async function main(undo: Undo): Promise<number> {
  const rng = new Rng(31);
  const catalogue = new Catalogue(rng, { sites: 1, clusters: 200, german: 0.15, anchors: 0 });
  const vectors = clusteredVectors(new Rng(7), randomCentroids(new Rng(7), 200, DIM), DIM, (i) => i % 200, PRODUCTS, 1);
  const { store: plainStore } = await openPrivateRedis(undo, 'search-writes');

  console.log(`bench:search-writes  ${availableParallelism()} cores, Node ${process.version}; ${PRODUCTS.toLocaleString('en')} products, batches of ${BATCH}`);
  console.log(`   builtin: ${await describeServer(plainStore)}, private`);
  const results: [string, Step[]][] = [['builtin', await runTarget({ name: 'builtin', store: plainStore, engine: 'builtin' }, catalogue, vectors)]];

  if (!URL_WITH_MODULE) {
    console.log('   redis-query-engine: skipped (set BENCH_REDIS_URL to a Redis Stack / Redis 8 server to measure it beside the built-in engine)');
  } else {
    const store = connectRedis(URL_WITH_MODULE);
    await store.connect();
    undo(() => void store.disconnect());
    if (!(await hasQueryEngine(store))) throw new Error(`BENCH_REDIS_URL (${URL_WITH_MODULE}) has no search module`);
    console.log(`   redis-query-engine: ${await describeServer(store)} at ${URL_WITH_MODULE} (shared: its other load counts in its CPU figures)`);
    results.push(['redis-query-engine', await runTarget({ name: 'redis-query-engine', store, engine: 'redis-query-engine' }, catalogue, vectors)]);
  }

  const names = [...new Set(results.flatMap(([, steps]) => steps.map((s) => s.name)))];
  console.log(`\n| step (${PRODUCTS.toLocaleString('en')} products) | ${results.map(([name]) => `${name}: products/s, Redis µs/product`).join(' | ')} |`);
  console.log(`|---|${results.map(() => '---|').join('')}`);
  for (const name of names) {
    const cells = results.map(([, steps]) => steps.find((s) => s.name === name)).map((s) => (s ? `${fmt(s.perSecond, 0)}, ${fmt(s.redisMicros, 0)} µs` : '—'));
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
  return 0;
}
