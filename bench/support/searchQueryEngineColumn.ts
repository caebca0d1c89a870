// The Redis Query Engine's column: a fresh tenant with a unique slug on BENCH_REDIS_URL, a server
// with the search module that may hold other data, so only this tenant's keys and indexes are
// touched, and they are dropped at the end (else every run would leave its catalogue behind).
// Documents are written with the search projection into indexes that exist before the writes, so
// the write phase includes the server's inline indexing; the index build is measured separately,
// by dropping the products index and letting a new engine re-create it over the stored documents
// (and likewise the text-only index of KCS_EMBEDDER=none).
import { createServices } from '../../src/app.js';
import { createLogger } from '../../src/log.js';
import { RedisQueryEngine } from '../../src/search/redisQuery/engine.js';
import { searchWrites } from '../../src/search/index.js';
import { parseInfoReply } from '../../src/search/redisQuery/replies.js';
import { collectionOf, hasQueryEngine } from '../../src/search/redisQuery/schema.js';
import { connectRedis } from '../../src/store/redis.js';
import { fmt, type Undo } from './harness.js';
import { benchRedisEnv, describeServer, dropTenant, localPid, usedMemory } from './redisServers.js';
import { Column, setUpTenant, type ColumnParts } from './searchColumn.js';
import { DIM, MODEL } from './searchConfig.js';
import { search } from './searchQueries.js';
import { mib, type Summary } from './searchSummary.js';
import { ServingModels } from '../../src/search/servingModels.js';

const log = createLogger('silent', 'bench');
/** FT.INFO sizes shown, in MB as the server reports them. */
const SIZES = ['inverted_sz_mb', 'vector_index_sz_mb', 'doc_table_size_mb', 'offset_vectors_sz_mb', 'sortable_values_size_mb', 'key_table_size_mb', 'tag_overhead_sz_mb', 'text_overhead_sz_mb'];

interface IndexOptions {
  modelId: string | null;
  dimension: number | null;
}

export class QueryEngineColumn extends Column {
  readonly engine = 'redis-query-engine' as const;
  /** Its indexes live in Redis: a serve process has nothing to read at start, whatever the catalogue's size. */
  readonly readyTargetMs: number | null = 2_000;

  private constructor(
    parts: ColumnParts,
    /** used_memory before the tenant was created. */
    private readonly usedBefore: number,
  ) {
    super(parts);
  }

  static async open(undo: Undo, url: string, dataDir: string): Promise<QueryEngineColumn> {
    const store = connectRedis(url);
    await store.connect();
    undo(() => void store.disconnect());
    if (!(await hasQueryEngine(store))) {
      throw new Error(`BENCH_REDIS_URL=${url} has no search module (FT.CREATE with a TEXT field failed): point it at Redis Stack, Redis 8, or a redis-server started with --loadmodule redisearch.so`);
    }
    const usedBefore = await usedMemory(store);
    const slug = `bench-${Date.now().toString(36)}`;
    // Registered before the tenant exists, so that a run failing halfway through the set-up leaves nothing either.
    undo(async () => {
      const removed = await dropTenant(store, slug);
      console.log(`dropped the benchmark tenant ${slug} from ${url}: its indexes with their documents, and ${removed} other keys`);
    });
    // As a serve process on the Query Engine creates a tenant: marked as projected, its indexes made
    // before any document, so the writes below are indexed inline.
    const services = createServices(store, { search: searchWrites('redis-query-engine', store, { modelId: MODEL, dimension: DIM }) });
    const tenant = await setUpTenant(services, slug);
    const column = new QueryEngineColumn(
      { store, services, tenant, redis: url, redisPid: await localPid(store, url), server: await describeServer(store), dataDir },
      usedBefore,
    );
    return column;
  }

  async reportMemory(summary: Summary): Promise<void> {
    const used = (await usedMemory(this.store)) - this.usedBefore;
    const index = collectionOf('product', this.tenant.id, { modelId: MODEL, dimension: DIM }).index;
    const info = await this.info(index);
    const mb = (name: string) => Number(info.get(name) ?? NaN);
    const failures = Number(info.get('hash_indexing_failures') ?? 0);
    console.log(
      `   ${this.engine}: redis used_memory +${mib(used)} for the tenant (before its creation → after the catalogue; other clients of the server count too)\n` +
        `   FT.INFO ${index}: ${info.get('num_docs')} docs, ${info.get('num_terms')} terms, ${info.get('num_records')} records, ` +
        `${failures} indexing failures; total_index_memory ${fmt(mb('total_index_memory_sz_mb'), 1)} MB = ` +
        SIZES.map((name) => `${name.replace(/_(sz_mb|size_mb)$/, '')} ${fmt(mb(name), 1)}`).join(', ') + ' MB',
    );
    if (failures > 0) summary.problem(`${this.engine}: ${failures} documents failed to index (FT.INFO hash_indexing_failures)`);
    if (Number(info.get('num_docs')) !== this.ids.length) summary.problem(`${this.engine}: the index holds ${info.get('num_docs')} documents, ${this.ids.length} were written`);
    summary.note(this.engine, 'memory: Redis used_memory for the catalogue', `+${mib(used)} (documents + search fields + index)`);
    summary.note(
      this.engine, 'index memory',
      `${fmt(mb('total_index_memory_sz_mb'), 0)} MB in Redis (inverted ${fmt(mb('inverted_sz_mb'), 0)}, vectors ${fmt(mb('vector_index_sz_mb'), 0)}, doc table ${fmt(mb('doc_table_size_mb'), 0)} MB; FT.INFO)`,
    );
  }

  async buildEngine(summary: Summary): Promise<RedisQueryEngine> {
    const n = this.ids.length;
    const built = await this.buildFromStored({ modelId: MODEL, dimension: DIM });
    console.log(
      `   dropped the products index (FT.DROPINDEX, documents kept); a new engine re-created it: its first search answered after ` +
        `${fmt(built.firstMs / 1000, 2)} s (${fmt(built.percentAtFirst * 100, 0)}% indexed), the index had read all ${n.toLocaleString('en')} products ` +
        `(text + 2 HNSW FLOAT32 fields) after ${fmt(built.totalMs / 1000, 1)} s (${fmt(n / (built.totalMs / 1000), 0)} products/s; FT.INFO total_indexing_time ${built.indexingTime})`,
    );
    summary.note(
      this.engine, 'index build from the stored catalogue',
      `${fmt(built.totalMs / 1000, 1)} s (${fmt(n / (built.totalMs / 1000), 0)}/s), the stored documents written again after FT.CREATE; first search after ${fmt(built.firstMs / 1000, 2)} s`,
    );
    // Without an embedder the engine searches an index of its own (named by model): the serve child
    // with KCS_EMBEDDER=none would otherwise create it and be measured while it reads the stored documents.
    const textOnly = await this.buildFromStored({ modelId: null, dimension: null });
    await textOnly.engine.close();
    console.log(
      `   the text-only index (KCS_EMBEDDER=none) built from the stored catalogue in ${fmt(textOnly.totalMs / 1000, 1)} s ` +
        `(${fmt(n / (textOnly.totalMs / 1000), 0)} products/s)`,
    );
    summary.note(this.engine, 'index build from the stored catalogue, text only (KCS_EMBEDDER=none)', `${fmt(textOnly.totalMs / 1000, 1)} s (${fmt(n / (textOnly.totalMs / 1000), 0)}/s)`);
    return built.engine;
  }

  serveEnv(): Record<string, string> {
    return { ...benchRedisEnv(this.redis), BENCH_DATA_DIR: this.dataDir, KCS_SEARCH_ENGINE: 'redis' };
  }

  /**
   * The products index of these options re-created over the stored documents by a new engine: the
   * time to its first answer, and until the index has read them (the engine waits for that a
   * bounded time only, then answers from what is indexed so far: schema.ts TenantIndexes).
   */
  private async buildFromStored(options: IndexOptions) {
    const { index, owed } = collectionOf('product', this.tenant.id, options);
    await this.store.call('FT.DROPINDEX', index).catch((error: Error) => {
      if (!/unknown index/i.test(error.message)) throw error;
    });
    const engine = new RedisQueryEngine(this.store, log, { models: new ServingModels(this.store, { configured: options }) });
    await engine.start();
    const started = performance.now();
    await engine.searchProducts(this.tenant.id, search({}));
    const firstMs = performance.now() - started;
    let info = await this.info(index);
    // The share of the catalogue in the index (FT.INFO percent_indexed tells the server's own scan only).
    const percentAtFirst = Number(info.get('num_docs')) / this.ids.length;
    while (Number(info.get('indexing')) !== 0 || (await this.store.exists(owed)) === 1) {
      await new Promise((r) => setTimeout(r, 50));
      info = await this.info(index);
    }
    const totalMs = performance.now() - started;
    const indexingTime = `${fmt(Number(info.get('total_indexing_time')) / 1000, 1)} s`;
    return { engine, firstMs, percentAtFirst, totalMs, indexingTime };
  }

  private async info(index: string): Promise<Map<string, unknown>> {
    return parseInfoReply(await this.store.call('FT.INFO', index));
  }
}

/** Drops the tenant's indexes with their documents, then its other keys (all under its hash tag) and its slug. */
