// The Redis Query Engine's column of the search benchmark: a fresh tenant with a unique slug on a
// server with the search module that may hold other data (redisServers.ts queryEngineServer), so
// only this tenant's keys and indexes are touched, and they are dropped at the end. Documents are
// written with the search projection into indexes that exist before the writes (the write phase
// includes the server's inline indexing); the index build is measured by dropping the products
// index and letting a new engine create it again over the stored documents. The same products are
// also written as plain hashes with an index of their own: the direct floor (searchDirect.ts).
import { createServices } from '../../src/app.js';
import { createLogger } from '../../src/log.js';
import { RedisQueryEngine } from '../../src/search/redisQuery/engine.js';
import { searchWrites } from '../../src/search/index.js';
import { parseInfoReply } from '../../src/search/redisQuery/replies.js';
import { IndexRouter } from '../../src/search/redisQuery/router.js';
import { collectionOf, hasQueryEngine } from '../../src/search/redisQuery/schema.js';
import { ServingModels } from '../../src/search/servingModels.js';
import { connectRedis } from '../../src/store/redis.js';
import { fmt, type Undo } from './harness.js';
import { describeServer, dropTenant, localPid, usedMemory } from './redisServers.js';
import { column, setUpTenant, type Column } from './searchColumn.js';
import { DIM, MODEL } from './searchConfig.js';
import { openDirect } from './searchDirect.js';
import { search } from './searchQueries.js';
import { mib } from './searchSummary.js';

export async function openQueryEngineColumn(undo: Undo, url: string): Promise<Column> {
  const store = connectRedis(url);
  await store.connect();
  undo(() => void store.disconnect());
  if (!(await hasQueryEngine(new IndexRouter(store)))) {
    throw new Error(`BENCH_REDIS_URL=${url} has no search module (FT.CREATE with a TEXT field failed): point it at Redis Stack, Redis 8, or a redis-server started with --loadmodule redisearch.so`);
  }
  const usedBefore = await usedMemory(store);
  const slug = `bench-${Date.now().toString(36)}`;
  // Registered before the tenant exists, so that a run failing halfway through the set-up leaves nothing either.
  undo(async () => console.log(`dropped the benchmark tenant ${slug} from ${url}: its indexes with their documents, and ${await dropTenant(store, slug)} other keys`));
  // As a serve process on the Query Engine creates a tenant: its indexes made before any document,
  // so the writes are indexed inline.
  const options = { modelId: MODEL, dimension: DIM };
  const services = createServices(store, { search: searchWrites('redis-query-engine', store, options) });
  const tenant = await setUpTenant(services, slug);
  const direct = await openDirect(undo, url, slug);
  const newEngine = () => new RedisQueryEngine(store, createLogger('silent', 'bench'), { models: new ServingModels(store, { configured: options }) });
  const info = async (index = collectionOf('product', tenant.id, options).index) => parseInfoReply(await store.call('FT.INFO', index));
  /**
   * The products index created again over the stored documents by a new engine: the time to its
   * first answer, and until the index has read them all (the engine answers from what is indexed
   * so far after a bounded wait: tenantIndexes.ts).
   */
  const buildAgain = async () => {
    const { index, owed } = collectionOf('product', tenant.id, options);
    await store.call('FT.DROPINDEX', index).catch((error: Error) => {
      if (!/unknown index/i.test(error.message)) throw error;
    });
    const engine = newEngine();
    await engine.start();
    const started = performance.now();
    await engine.searchProducts(tenant.id, search({}));
    const firstMs = performance.now() - started;
    while (Number((await info(index)).get('indexing')) !== 0 || (await store.exists(owed)) === 1) await new Promise((r) => setTimeout(r, 50));
    return { engine, firstMs, totalMs: performance.now() - started };
  };
  const engine = 'redis-query-engine' as const;
  const self: Column = column({
    engine, store, services, tenant, direct, redis: url, redisPid: await localPid(store, url), server: await describeServer(store),
    // Its indexes live in Redis: a serve process has nothing to read at start, whatever the catalogue's size.
    readyTargetMs: 2_000,
    async reportMemory(summary) {
      const [fields, vectors] = await Promise.all([info(), info(collectionOf('productVectors', tenant.id, options).index)]);
      for (const f of [fields, vectors]) {
        if (Number(f.get('hash_indexing_failures') ?? 0) > 0) summary.problem(`${engine}: ${f.get('hash_indexing_failures')} documents failed to index (FT.INFO)`);
        if (Number(f.get('num_docs')) !== self.ids.length) summary.problem(`${engine}: an index holds ${f.get('num_docs')} documents, ${self.ids.length} were written`);
      }
      // Other clients of the server count too; the direct floor's copy does not.
      const n = self.ids.length;
      const used = (await usedMemory(store)) - usedBefore - direct.memory.direct;
      summary.note(engine, 'memory: Redis used_memory for the catalogue', `+${mib(used)}, ${fmt(used / n / 1024, 1)} KiB a product (documents + search fields + indexes)`);
      const mb = (name: string, f = fields) => fmt(Number(f.get(name)), 0);
      summary.note(engine, 'index memory', `${mb('total_index_memory_sz_mb')} + ${mb('total_index_memory_sz_mb', vectors)} MB in Redis (products: inverted ${mb('inverted_sz_mb')}, doc table ${mb('doc_table_size_mb')}; vectors ${mb('vector_index_sz_mb', vectors)} MB; FT.INFO)`);
      const plain = await direct.info(n);
      if (Number(plain.get('hash_indexing_failures') ?? 0) > 0) summary.problem(`${engine}: ${plain.get('hash_indexing_failures')} of the direct floor's hashes failed to index (FT.INFO)`);
      const [kcsBytes, directBytes] = [direct.memory.kcs / n, direct.memory.direct / n];
      summary.note(engine, 'Redis memory a product, no vectors (used_memory growth while writing)',
        `kcs ${fmt(kcsBytes, 0)} bytes, direct ${fmt(directBytes, 0)} bytes (index ${mb('total_index_memory_sz_mb', plain)} MB), ${fmt(kcsBytes / directBytes, 2)}×`);
    },
    async buildEngine(summary, { rebuild } = { rebuild: true }) {
      if (!rebuild) return newEngine();
      const built = await buildAgain();
      summary.note(engine, 'index build from the stored catalogue (products index)', `${fmt(built.totalMs / 1000, 1)} s (${fmt(self.ids.length / (built.totalMs / 1000), 0)}/s); first search after ${fmt(built.firstMs / 1000, 2)} s`);
      return built.engine;
    },
    // Each index's garbage collection now (FT.DEBUG GC_FORCEINVOKE), counted with the writes that made the garbage.
    settle: async () => void (await Promise.all((['product', 'productVectors', 'entry'] as const).map((kind) => store.call('FT.DEBUG', 'GC_FORCEINVOKE', collectionOf(kind, tenant.id, options).index).catch(() => undefined)))),
    searchEngine: 'redis',
  });
  return self;
}
