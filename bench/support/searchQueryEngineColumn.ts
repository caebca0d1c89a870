// The Redis Query Engine's column of the search benchmark: a fresh tenant with a unique slug on
// BENCH_REDIS_URL, a server with the search module that may hold other data, so only this tenant's
// keys and indexes are touched, and they are dropped at the end. Documents are written with the
// search projection into indexes that exist before the writes (the write phase includes the
// server's inline indexing); the index build is measured by dropping the products index and
// letting a new engine create it again over the stored documents (and the text-only index of
// KCS_EMBEDDER=none likewise).
import { createServices } from '../../src/app.js';
import { createLogger } from '../../src/log.js';
import { RedisQueryEngine } from '../../src/search/redisQuery/engine.js';
import { searchWrites } from '../../src/search/index.js';
import { parseInfoReply } from '../../src/search/redisQuery/replies.js';
import { IndexRouter } from '../../src/search/redisQuery/router.js';
import { collectionOf, hasQueryEngine, type IndexOptions } from '../../src/search/redisQuery/schema.js';
import { ServingModels } from '../../src/search/servingModels.js';
import { connectRedis } from '../../src/store/redis.js';
import { fmt, type Undo } from './harness.js';
import { describeServer, dropTenant, localPid, usedMemory } from './redisServers.js';
import { column, setUpTenant, type Column } from './searchColumn.js';
import { DIM, MODEL } from './searchConfig.js';
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
  const info = async (index = collectionOf('product', tenant.id, options).index) => parseInfoReply(await store.call('FT.INFO', index));
  /**
   * The products index of these options created again over the stored documents by a new engine:
   * the time to its first answer, and until the index has read them all (the engine answers from
   * what is indexed so far after a bounded wait: schema.ts TenantIndexes).
   */
  const rebuild = async (indexOptions: IndexOptions) => {
    const { index, owed } = collectionOf('product', tenant.id, indexOptions);
    await store.call('FT.DROPINDEX', index).catch((error: Error) => {
      if (!/unknown index/i.test(error.message)) throw error;
    });
    const engine = new RedisQueryEngine(store, createLogger('silent', 'bench'), { models: new ServingModels(store, { configured: indexOptions }) });
    await engine.start();
    const started = performance.now();
    await engine.searchProducts(tenant.id, search({}));
    const firstMs = performance.now() - started;
    while (Number((await info(index)).get('indexing')) !== 0 || (await store.exists(owed)) === 1) await new Promise((r) => setTimeout(r, 50));
    return { engine, firstMs, totalMs: performance.now() - started };
  };
  const engine = 'redis-query-engine' as const;
  const self: Column = column({
    engine, store, services, tenant, redis: url, redisPid: await localPid(store, url), server: await describeServer(store),
    // Its indexes live in Redis: a serve process has nothing to read at start, whatever the catalogue's size.
    readyTargetMs: 2_000,
    async reportMemory(summary) {
      const fields = await info();
      const failures = Number(fields.get('hash_indexing_failures') ?? 0);
      if (failures > 0) summary.problem(`${engine}: ${failures} documents failed to index (FT.INFO hash_indexing_failures)`);
      if (Number(fields.get('num_docs')) !== self.ids.length) summary.problem(`${engine}: the index holds ${fields.get('num_docs')} documents, ${self.ids.length} were written`);
      // Other clients of the server count too.
      summary.note(engine, 'memory: Redis used_memory for the catalogue', `+${mib((await usedMemory(store)) - usedBefore)} (documents + search fields + index)`);
      const mb = (name: string) => fmt(Number(fields.get(name)), 0);
      summary.note(engine, 'index memory', `${mb('total_index_memory_sz_mb')} MB in Redis (inverted ${mb('inverted_sz_mb')}, vectors ${mb('vector_index_sz_mb')}, doc table ${mb('doc_table_size_mb')} MB; FT.INFO)`);
    },
    async buildEngine(summary) {
      const n = self.ids.length;
      const built = await rebuild(options);
      summary.note(engine, 'index build from the stored catalogue', `${fmt(built.totalMs / 1000, 1)} s (${fmt(n / (built.totalMs / 1000), 0)}/s); first search after ${fmt(built.firstMs / 1000, 2)} s`);
      // Without an embedder the engine searches an index of its own (named by model): built here, the
      // serve child with KCS_EMBEDDER=none is not measured while it reads the stored documents.
      const textOnly = await rebuild({ modelId: null, dimension: null });
      await textOnly.engine.close();
      summary.note(engine, 'index build, text only (KCS_EMBEDDER=none)', `${fmt(textOnly.totalMs / 1000, 1)} s (${fmt(n / (textOnly.totalMs / 1000), 0)}/s)`);
      return built.engine;
    },
    searchEngine: 'redis',
  });
  return self;
}
