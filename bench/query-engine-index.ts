// A new Redis Query Engine index over a tenant's stored products, on a server that holds other keys
// (a model change or a new projection version creates such an index for every tenant):
//   BENCH_REDIS_URL=redis://… npm run bench:query-engine-index
//   BENCH_PRODUCTS (default 20,000): the tenant's products; BENCH_OTHER_KEYS (default 1,000,000):
//   small hashes of no tenant beside them.
// kcs (tenantIndexes.ts TenantIndexes) creates the index (of the products' vectors under a new
// model, over their vector hashes) with SKIPINITIALSCAN and writes the tenant's
// documents again where the server holds more than WRITE_AGAIN_SHARE keys per document, else lets
// the server scan; the baseline, in the same run, is the same index created with the server's
// initial scan (the plain way to create it), which reads the whole keyspace. Each is timed until the
// index holds every product; two rounds, alternating. Everything written is removed at the end.
import { createServices } from '../src/app.js';
import type { ProductInput } from '../src/domain/products.js';
import { searchWrites } from '../src/search/index.js';
import { parseInfoReply } from '../src/search/redisQuery/replies.js';
import { IndexRouter } from '../src/search/redisQuery/router.js';
import { collectionOf, createIndexArgs, hasQueryEngine, type IndexOptions } from '../src/search/redisQuery/schema.js';
import { TenantIndexes, WRITE_AGAIN_SHARE } from '../src/search/redisQuery/tenantIndexes.js';
import { connectRedis, type Store } from '../src/store/redis.js';
import { product } from './support/catalogue.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { describeServer, dropTenant } from './support/redisServers.js';
import { setUpTenant } from './support/searchColumn.js';

const PRODUCTS = positiveInt('BENCH_PRODUCTS', 20_000);
const OTHER_KEYS = positiveInt('BENCH_OTHER_KEYS', 1_000_000);
const OTHER_PER_CALL = 100_000;

runBench('bench:query-engine-index', 20 * 60_000, main);

async function main(undo: Undo): Promise<number> {
  const url = process.env.BENCH_REDIS_URL;
  if (!url) {
    console.log('bench:query-engine-index needs BENCH_REDIS_URL: a server with the search module (Redis Stack, Redis 8, or --loadmodule redisearch.so); skipped');
    return 0;
  }
  const store = connectRedis(url);
  await store.connect();
  undo(() => void store.disconnect());
  if (!(await hasQueryEngine(new IndexRouter(store)))) throw new Error(`BENCH_REDIS_URL=${url} has no search module`);
  const run = Date.now().toString(36);
  const slug = `bench-index-${run}`;
  undo(async () => console.log(`dropped the benchmark tenant ${slug} and ${await dropTenant(store, slug)} of its keys`));
  const services = createServices(store, { search: searchWrites('redis-query-engine', store, { modelId: null, dimension: null }) });
  const tenant = await setUpTenant(services, slug);

  const other = `kcs-bench-other:${run}:`;
  undo(async () => {
    for (let from = 1; from <= OTHER_KEYS; from += OTHER_PER_CALL) {
      await store.eval("for i = tonumber(ARGV[2]), tonumber(ARGV[3]) do redis.call('DEL', ARGV[1] .. i) end", 0, other, from, Math.min(OTHER_KEYS, from + OTHER_PER_CALL - 1));
    }
  });
  for (let from = 1; from <= OTHER_KEYS; from += OTHER_PER_CALL) {
    await store.eval("for i = tonumber(ARGV[2]), tonumber(ARGV[3]) do redis.call('HSET', ARGV[1] .. i, 'f', 'v') end", 0, other, from, Math.min(OTHER_KEYS, from + OTHER_PER_CALL - 1));
  }
  for (let from = 0; from < PRODUCTS; from += 500) {
    const requests = [];
    for (let i = from; i < Math.min(PRODUCTS, from + 500); i++) requests.push({ siteId: tenant.siteIds[i % tenant.siteIds.length], input: product('p', i) as ProductInput, source: 'bench' });
    await services.products.upsertMany(tenant.id, requests);
  }
  const dbsize = await store.dbsize();
  const way = dbsize > WRITE_AGAIN_SHARE * PRODUCTS ? 'writes the documents again' : 'lets the server scan';
  console.log(`${await describeServer(store)}: ${PRODUCTS.toLocaleString('en')} products of one tenant beside ${OTHER_KEYS.toLocaleString('en')} other keys (dbsize ${dbsize.toLocaleString('en')}, ${fmt(dbsize / PRODUCTS, 1)} keys per product: kcs ${way})`);

  const rows: string[] = [];
  for (let round = 1; round <= 2; round++) {
    const read = await timeIndex(store, tenant.id, { modelId: `bench-read-${run}-${round}`, dimension: 8 }, false);
    const scan = await timeIndex(store, tenant.id, { modelId: `bench-scan-${run}-${round}`, dimension: 8 }, true);
    rows.push(`| ${round} | ${fmt(read, 2)} s (${fmt(PRODUCTS / read, 0)}/s) | ${fmt(scan, 2)} s (${fmt(PRODUCTS / scan, 0)}/s) |`);
  }
  console.log(`
| round | kcs (TenantIndexes.ensure) | baseline: the server's initial scan |
|---|---:|---:|
${rows.join('\n')}
`);
  return 0;
}

/** Seconds until a new product vectors index of `options` holds every product: made by kcs, or (`initialScan`) by the server's scan. */
async function timeIndex(store: Store, tenantId: string, options: IndexOptions, initialScan: boolean): Promise<number> {
  const c = collectionOf('productVectors', tenantId, options);
  const started = performance.now();
  if (initialScan) await store.call(...(createIndexArgs(c, options, { scan: true }) as [string, ...string[]]));
  else await new TenantIndexes(store, new IndexRouter(store), options).ensure(tenantId);
  for (;;) {
    const info = parseInfoReply(await store.call('FT.INFO', c.index));
    if (Number(info.get('num_docs')) >= PRODUCTS && Number(info.get('indexing')) === 0 && (await store.exists(c.owed)) === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  await store.call('FT.DROPINDEX', c.index);
  if (!initialScan) await store.call('FT.DROPINDEX', collectionOf('entry', tenantId, options).index);
  return seconds;
}
