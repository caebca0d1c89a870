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
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../src/app.js';
import type { ProductInput } from '../src/domain/products.js';
import { searchWrites, type EngineKind } from '../src/search/index.js';
import { hasQueryEngine } from '../src/search/redisQuery/schema.js';
import { startEmbeddedRedis } from '../src/store/embeddedRedis.js';
import { keys } from '../src/store/keys.js';
import { ProjectionBackfill } from '../src/store/projectionBackfill.js';
import { connectRedis, type Store } from '../src/store/redis.js';
import { VectorRepository } from '../src/store/vectors.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { Catalogue, clusteredVectors, randomCentroids, Rng } from './support/searchData.js';

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

/** The server's own CPU seconds (user + system), from INFO cpu: right for a server elsewhere too. */
async function serverCpu(store: Store): Promise<number> {
  const info = await store.info('cpu');
  const value = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return value('used_cpu_user') + value('used_cpu_sys');
}

async function serverVersion(store: Store): Promise<string> {
  const version = /redis_version:(\S+)/.exec(await store.info('server'))?.[1] ?? '?';
  const modules = ((await store.call('MODULE', 'LIST')) as unknown[][]).map((m) => {
    const at = (name: string) => String(m[m.findIndex((f) => String(f) === name) + 1]);
    return `${at('name')} ${at('ver')}`;
  });
  return `Redis ${version}${modules.length ? ` (${modules.join(', ')})` : ''}`;
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
  const tenant = await services.tenants.create(`bench-writes-${Date.now().toString(36)}`, 'Write benchmark');
  const site = await services.sites.create(tenant.id, { slug: 'shop', name: 'Shop', language: 'en' });
  const inputs = Array.from({ length: PRODUCTS }, (_, i) => catalogue.product(i).input as unknown as ProductInput);
  const ids: string[] = new Array(PRODUCTS);
  const thashes: string[] = new Array(PRODUCTS);
  const steps: Step[] = [];
  const step = async (name: string, run: (from: number, to: number) => Promise<void>) => {
    const cpu = await serverCpu(store);
    const started = performance.now();
    for (let from = 0; from < PRODUCTS; from += BATCH) await run(from, Math.min(PRODUCTS, from + BATCH));
    const seconds = (performance.now() - started) / 1000;
    const redisMicros = ((await serverCpu(store)) - cpu) * 1e6 / PRODUCTS;
    steps.push({ name, perSecond: PRODUCTS / seconds, redisMicros });
    console.log(`   ${target.name.padEnd(20)} ${name.padEnd(44)} ${fmt(PRODUCTS / seconds, 0).padStart(7)} products/s  redis ${fmt(redisMicros, 0).padStart(5)} µs/product`);
  };
  const upsert = async (from: number, to: number, expect: string, over: (i: number) => Partial<ProductInput> = () => ({})) => {
    const outcomes = await services.products.upsertMany(tenant.id, inputs.slice(from, to).map((input, k) => ({ siteId: site.id, input: { ...input, ...over(from + k) } as ProductInput, source: 'bench' })));
    outcomes.forEach((o, k) => {
      if (o.result !== expect) throw new Error(`${target.name}: product ${from + k} ${o.result}, expected ${expect}`);
      ids[from + k] = o.id;
      thashes[from + k] ??= o.thash;
    });
  };
  const repo = new VectorRepository(store);
  await step('create', (from, to) => upsert(from, to, 'created'));
  await step('store a 512-d vector', async (from, to) => {
    const stored = await Promise.all(ids.slice(from, to).map((id, k) => repo.store(tenant.id, { kind: 'product', id }, thashes[from + k], MODEL, { description: vectors.subarray((from + k) * DIM, (from + k + 1) * DIM) })));
    if (stored.includes(false)) throw new Error(`${target.name}: a vector was refused`);
  });
  await step('re-send unchanged', (from, to) => upsert(from, to, 'unchanged'));
  await step('change the price (volatile fields only)', (from, to) => upsert(from, to, 'updated', (i) => ({ price_current: `${(i % 500) + 1}.99` })));
  if (writes.projection) {
    // The job's own check (documents already at this version are left alone) is skipped here: it measures a real migration.
    const backfill = new ProjectionBackfill(store, { ...writes.projection, version: `${writes.projection.version}-bench` });
    const cpu = await serverCpu(store);
    const started = performance.now();
    await backfill.run(tenant.id);
    const seconds = (performance.now() - started) / 1000;
    const redisMicros = ((await serverCpu(store)) - cpu) * 1e6 / PRODUCTS;
    steps.push({ name: 'projection job over the stored catalogue', perSecond: PRODUCTS / seconds, redisMicros });
    console.log(`   ${target.name.padEnd(20)} ${'projection job over the stored catalogue'.padEnd(44)} ${fmt(PRODUCTS / seconds, 0).padStart(7)} products/s  redis ${fmt(redisMicros, 0).padStart(5)} µs/product`);
  }
  await dropTenant(store, tenant.id);
  return steps;
}

/** Removes what the run stored under its tenant (on a shared server nothing else is touched). */
async function dropTenant(store: Store, tenantId: string): Promise<void> {
  for (const name of await store.call('FT._LIST').catch(() => []) as string[]) {
    if (name.startsWith(keys.searchIndex(tenantId, ''))) await store.call('FT.DROPINDEX', name);
  }
  let cursor = '0';
  do {
    const [next, found] = await store.scan(cursor, 'MATCH', `kcs:{t:${tenantId}}*`, 'COUNT', 1000);
    cursor = next;
    if (found.length > 0) await store.unlink(...found);
  } while (cursor !== '0');
  await store.hdel(keys.tenantSlugs, ...(await store.hgetall(keys.tenantSlugs).then((all) => Object.keys(all).filter((slug) => all[slug] === tenantId))));
}

async function main(undo: Undo): Promise<number> {
  const rng = new Rng(31);
  const catalogue = new Catalogue(rng, { sites: 1, clusters: 200, german: 0.15, anchors: 0 });
  const vectors = clusteredVectors(new Rng(7), randomCentroids(new Rng(7), 200, DIM), DIM, (i) => i % 200, PRODUCTS, 1);
  const dir = mkdtempSync(join(tmpdir(), 'kcs-bench-search-writes-'));
  undo(() => rmSync(dir, { recursive: true, force: true }));
  const plain = await startEmbeddedRedis(dir, { persist: false });
  undo(() => plain.stop());
  const plainStore = connectRedis(plain.url);
  await plainStore.connect();
  undo(() => void plainStore.disconnect());

  console.log(`bench:search-writes  ${availableParallelism()} cores, Node ${process.version}; ${PRODUCTS.toLocaleString('en')} products, batches of ${BATCH}`);
  console.log(`   builtin: ${await serverVersion(plainStore)}, private`);
  const results: [string, Step[]][] = [['builtin', await runTarget({ name: 'builtin', store: plainStore, engine: 'builtin' }, catalogue, vectors)]];

  if (!URL_WITH_MODULE) {
    console.log('   redis-query-engine: skipped (set BENCH_REDIS_URL to a Redis Stack / Redis 8 server to measure it beside the built-in engine)');
  } else {
    const store = connectRedis(URL_WITH_MODULE);
    await store.connect();
    undo(() => void store.disconnect());
    if (!(await hasQueryEngine(store))) throw new Error(`BENCH_REDIS_URL (${URL_WITH_MODULE}) has no search module`);
    console.log(`   redis-query-engine: ${await serverVersion(store)} at ${URL_WITH_MODULE} (shared: its other load counts in its CPU figures)`);
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
