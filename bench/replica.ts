// The built-in engine's replica on the write path: what a serve process spends to index each
// product written to a tenant it holds (on shared cores, what slows an import into a searched
// tenant). The products of bench:embedding (bench/support/catalogue.ts) go
// through the domain path into a private redis-server; then a BuiltinEngine, the serve process's,
// reads and applies them as a serve process does:
//   1. create: the tenant read in full (its first search), every product's first apply;
//   2. price change: every product re-applied through refresh() (the read and apply of the change
//      stream's tail), its texts as they were, so not analysed again;
//   3. title change: the same, with every title new, so analysed and indexed again;
// and in the same run the floor under all three: JSON.parse of the same stored documents alone.
// Each step prints this process's CPU per product (its garbage collector's threads included),
// redis-server's CPU per product (the reads), and after step 1 the V8 heap the replica keeps a
// product (typed arrays' buffers apart: bench:search gives the whole replica's RSS).
//
//   npm run bench:replica                         100,000 products
//   BENCH_PRODUCTS=20000 npm run bench:replica    a quick look
import { createServices } from '../src/app.js';
import type { ProductInput } from '../src/domain/products.js';
import { createLogger } from '../src/log.js';
import { BuiltinEngine } from '../src/search/builtin/engine.js';
import type { DocumentRef } from '../src/search/engine.js';
import { searchWrites } from '../src/search/index.js';
import { ServingModels } from '../src/search/servingModels.js';
import { keys } from '../src/store/keys.js';
import type { Store } from '../src/store/redis.js';
import { product } from './support/catalogue.js';
import { gc } from './support/gc.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { openPrivateRedis, serverCpuSeconds } from './support/redisServers.js';

const PRODUCTS = positiveInt('BENCH_PRODUCTS', 100_000);
const WRITE_BATCH = 1_000;
/** Products a refresh reads and applies at once: the follower's batch (search/builtin/follower.ts LOAD_BATCH). */
const APPLY_BATCH = 500;
const NO_MODEL = { modelId: null, dimension: null };

runBench('bench:replica', (120 + PRODUCTS * 0.004) * 1000, main);

interface Step {
  name: string;
  /** µs of this process's CPU a product. */
  cpu: number;
  /** µs of redis-server's CPU a product. */
  redis: number;
}

async function main(undo: Undo): Promise<number> {
  const { store } = await openPrivateRedis(undo, 'replica');
  const services = createServices(store, { search: searchWrites('builtin', store, NO_MODEL) });
  const tenant = await services.tenants.create('bench-replica', 'Replica benchmark');
  const site = await services.sites.create(tenant.id, { slug: 'shop', name: 'Shop', language: 'en' });
  const items = Array.from({ length: PRODUCTS }, (_, i) => product('p', i) as unknown as ProductInput);
  /** Writes every product (changed by `change`) through the domain path: their refs, in catalogue order. */
  const write = async (change: (item: ProductInput, i: number) => ProductInput) => {
    const written: DocumentRef[] = [];
    for (let from = 0; from < PRODUCTS; from += WRITE_BATCH) {
      const batch = items.slice(from, from + WRITE_BATCH).map((item, k) => ({ siteId: site.id, input: change(item, from + k), source: 'bench' }));
      for (const outcome of await services.products.upsertMany(tenant.id, batch)) written.push({ kind: 'product', id: outcome.id });
    }
    return written;
  };
  const refs = await write((item) => item);
  console.log(`bench:replica  ${PRODUCTS.toLocaleString('en')} products written (bench:embedding's catalogue, ~1.3 KB of stored JSON each)`);

  const steps: Step[] = [];
  const measure = async (name: string, work: () => Promise<unknown> | unknown) => {
    gc();
    const redis = await serverCpuSeconds(store);
    const cpu = process.cpuUsage();
    await work();
    const used = process.cpuUsage(cpu);
    const step = { name, cpu: (used.user + used.system) / PRODUCTS, redis: (((await serverCpuSeconds(store)) - redis) * 1e6) / PRODUCTS };
    steps.push(step);
    console.log(`   ${name.padEnd(52)} ${fmt(step.cpu, 1).padStart(6)} µs a product, redis-server ${fmt(step.redis, 1)} µs`);
  };

  const stored = await storedDocuments(store, tenant.id, refs);
  await measure('baseline: JSON.parse of the stored documents alone', () => {
    for (const json of stored) JSON.parse(json);
  });

  const engine = new BuiltinEngine(store, createLogger('silent', 'bench'), { models: new ServingModels(store, { configured: NO_MODEL }) });
  undo(() => engine.close());
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  await measure('1. create: the tenant read in full', () => engine.servingModel(tenant.id));
  gc();
  const heapPerProduct = (process.memoryUsage().heapUsed - heapBefore) / PRODUCTS;

  const refreshAll = async () => {
    for (let from = 0; from < PRODUCTS; from += APPLY_BATCH) await engine.refresh(tenant.id, refs.slice(from, from + APPLY_BATCH));
  };
  await write((item) => ({ ...item, price_current: (Number(item.price_current) + 1).toFixed(2) }));
  await measure('2. price change: re-applied, texts as they were', refreshAll);
  // No sync_hash: under the one it had, a write takes only the volatile fields (price, stock).
  await write((item, i) => ({ ...item, title: `${item.title} Mk${i % 7}`, sync_hash: null }));
  await measure('3. title change: re-applied and indexed again', refreshAll);

  const found = await engine.searchProducts(tenant.id, {
    query: 'mk3', mode: 'keyword', vector: null, model: null, semanticLanguages: [], language: 'en', minSimilarity: 0, limit: 1, offset: 0, filters: { variantStrategy: 'all' }, facets: [],
  });
  if (found.total !== Math.ceil((PRODUCTS - 3) / 7)) throw new Error(`the new titles: ${found.total} found for "mk3"`);

  console.log(`\n| step (${PRODUCTS.toLocaleString('en')} products) | serve CPU a product | redis-server a product |`);
  console.log('|---|---:|---:|');
  for (const s of steps) console.log(`| ${s.name} | ${fmt(s.cpu, 1)} µs | ${fmt(s.redis, 1)} µs |`);
  console.log(`| V8 heap the replica keeps a product (after step 1; typed arrays' buffers apart) | ${fmt(heapPerProduct, 0)} bytes | |`);
  return 0;
}

/** The stored JSON of the products, as the follower reads it (not timed). */
async function storedDocuments(store: Store, tenantId: string, refs: DocumentRef[]): Promise<string[]> {
  const out: string[] = [];
  for (let from = 0; from < refs.length; from += WRITE_BATCH) {
    const pipeline = store.pipeline();
    for (const ref of refs.slice(from, from + WRITE_BATCH)) pipeline.hget(keys.product(tenantId, ref.id), 'doc');
    for (const [error, json] of (await pipeline.exec())!) {
      if (error || typeof json !== 'string') throw new Error(`a stored product could not be read: ${error?.message ?? 'missing'}`);
      out.push(json);
    }
  }
  return out;
}
