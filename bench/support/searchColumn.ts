// One column of the search benchmark: an engine, the Redis server it runs on, and the benchmark's
// tenant there with its copy of the catalogue. The built-in engine's column is a private plain
// redis-server, or with BENCH_CLUSTER=1 a private 6-node Redis Cluster (below); the Redis Query
// Engine's is a fresh tenant on BENCH_REDIS_URL
// (searchQueryEngineColumn.ts). What differs between the engines lives in these classes; every
// measurement is the same code for both.
import { createServices, type Services } from '../../src/app.js';
import { SCOPES } from '../../src/schemas/scopes.js';
import { createLogger } from '../../src/log.js';
import { BuiltinEngine } from '../../src/search/builtin/engine.js';
import type { ProductSearch, SearchEngine } from '../../src/search/engine.js';
import type { EngineKind } from '../../src/search/index.js';
import { keys } from '../../src/store/keys.js';
import type { RedisAt, Store } from '../../src/store/redis.js';
import { benchRedisEnv, describeServer, openPrivateRedis, usedMemory } from './redisServers.js';
import { gc } from './gc.js';
import { fmt, type Undo } from './harness.js';
import { ServingModels } from '../../src/search/servingModels.js';
import { CLUSTER, DIM, MODEL, SITES, siteSlug } from './searchConfig.js';
import { mib, type Summary } from './searchSummary.js';

export interface BenchTenant {
  id: string;
  slug: string;
  /** An API key with every scope. */
  key: string;
  /** Site id by site number. */
  siteIds: string[];
}

export interface ColumnParts {
  store: Store;
  services: Services;
  tenant: BenchTenant;
  /** Where the Redis is: a server's URL, or a cluster's nodes (the serve children get BENCH_REDIS_URL or BENCH_REDIS_CLUSTER_NODES). */
  redis: RedisAt;
  /**
   * The redis-server process when it runs on this machine (its CPU share is shown). On a cluster,
   * the master of the tenant's slot: it serves all of the tenant's keys, so nearly all of a search's
   * Redis work (the other masters answer only the odd key outside the tenant, e.g. the slug index).
   */
  redisPid: number | undefined;
  /** The server and its version, e.g. "Redis 7.4.1, RediSearch 2.10.32" or "Redis Cluster, 3 masters, redis-server 7.0.15". */
  server: string;
  /** KCS_DATA_DIR of the serve children (nothing is kept there with REDIS_URL given). */
  dataDir: string;
}

export abstract class Column {
  abstract readonly engine: EngineKind;
  readonly store: Store;
  readonly services: Services;
  readonly tenant: BenchTenant;
  readonly redis: RedisAt;
  readonly redisPid: number | undefined;
  readonly server: string;
  readonly dataDir: string;
  /** The most a serve child may take from listening to /readyz 200 (null: no target). */
  readonly readyTargetMs: number | null = null;
  /** Product id and text hash by catalogue row, filled as the catalogue is written. */
  readonly ids: string[] = [];
  readonly textHash: string[] = [];
  private rows: Map<string, number> | null = null;
  private readonly siteIdOf: Map<string, string>;

  protected constructor(parts: ColumnParts) {
    this.store = parts.store;
    this.services = parts.services;
    this.tenant = parts.tenant;
    this.redis = parts.redis;
    this.redisPid = parts.redisPid;
    this.server = parts.server;
    this.dataDir = parts.dataDir;
    this.siteIdOf = new Map(parts.tenant.siteIds.map((id, s) => [siteSlug(s), id]));
  }

  get heading(): string {
    return `${this.engine} (${this.server})`;
  }

  /** The catalogue row of a product id (-1: not one of the catalogue's). */
  rowOf(id: string): number {
    this.rows ??= new Map(this.ids.map((productId, row) => [productId, row]));
    return this.rows.get(id) ?? -1;
  }

  /** The search with its site slug (queries are generated once for both servers) as this server's site id. */
  bind(s: ProductSearch): ProductSearch {
    if (!s.filters.siteId) return s;
    const siteId = this.siteIdOf.get(s.filters.siteId);
    if (!siteId) throw new Error(`no site ${s.filters.siteId}`);
    return { ...s, filters: { ...s.filters, siteId } };
  }

  /** Prints and notes what the written catalogue takes on the Redis server. */
  abstract reportMemory(summary: Summary): Promise<void>;
  /** An engine over the stored catalogue; prints and notes its build. */
  abstract buildEngine(summary: Summary): Promise<SearchEngine>;
  /** Env of this column's `kcs serve` children (bench/support/searchServer.ts). */
  abstract serveEnv(): Record<string, string>;
}

/**
 * The built-in engine: a private plain redis-server, or with BENCH_CLUSTER=1 a private 6-node Redis
 * Cluster; the catalogue written as without a search module.
 */
export class BuiltinColumn extends Column {
  readonly engine = 'builtin' as const;

  static async open(undo: Undo): Promise<BuiltinColumn> {
    const { dir, at, store, pidOf } = await openPrivateRedis(undo, 'search', { cluster: CLUSTER });
    const services = createServices(store);
    const tenant = await setUpTenant(services, 'bench');
    const redisPid = await pidOf(keys.tenant(tenant.id));
    return new BuiltinColumn({ store, services, tenant, redis: at, redisPid, server: await describeServer(store), dataDir: dir });
  }

  async reportMemory(summary: Summary): Promise<void> {
    // The private server holds nothing but the catalogue (and the tenant's few other keys).
    const used = await usedMemory(this.store);
    const where = CLUSTER ? 'summed over the masters; the private cluster holds only this catalogue' : 'the private server holds only this catalogue';
    console.log(`   ${this.engine}: redis used_memory ${mib(used)} (${where})`);
    summary.note(this.engine, 'memory: Redis used_memory for the catalogue', mib(used));
  }

  async buildEngine(summary: Summary): Promise<SearchEngine> {
    const n = this.ids.length;
    gc();
    gc();
    const before = process.memoryUsage();
    const engine = new BuiltinEngine(this.store, createLogger('silent', 'bench'), { models: new ServingModels(this.store, { configured: { modelId: MODEL, dimension: DIM } }) });
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
      `   built the replica of ${n.toLocaleString('en')} products from Redis (text index + HNSW f16 + anchors) in ` +
        `${fmt(buildMs / 1000, 1)} s (${fmt(n / (buildMs / 1000), 0)} products/s)\n` +
        `   memory after − before (after GC): rss +${mib(delta('rss'))}, heapUsed +${mib(delta('heapUsed'))}, ` +
        `external +${mib(delta('external'))} (arrayBuffers +${mib(delta('arrayBuffers'))}); usearch's graph is native memory, counted in rss only`,
    );
    summary.note(this.engine, 'index build from the stored catalogue', `${fmt(buildMs / 1000, 1)} s (${fmt(n / (buildMs / 1000), 0)}/s), replica in process`);
    summary.note(this.engine, 'index memory', `rss +${mib(delta('rss'))} in each serve process (heapUsed +${mib(delta('heapUsed'))}, arrayBuffers +${mib(delta('arrayBuffers'))})`);
    return engine;
  }

  serveEnv(): Record<string, string> {
    return { ...benchRedisEnv(this.redis), BENCH_DATA_DIR: this.dataDir, KCS_SEARCH_ENGINE: 'builtin' };
  }
}

/** The benchmark's tenant: an all-scopes key and SITES sites with the same slugs on every server. */
export async function setUpTenant(services: Services, slug: string): Promise<BenchTenant> {
  const tenant = await services.tenants.create(slug, 'Search benchmark');
  const user = await services.users.create(tenant.id, { email: 'bench@bench.test', name: 'Bench' });
  const { key } = await services.apiKeys.create(tenant.id, { userId: user.id, name: 'bench', scopes: [...SCOPES] });
  const siteIds: string[] = [];
  for (let s = 0; s < SITES; s++) {
    siteIds.push((await services.sites.create(tenant.id, { slug: siteSlug(s), name: `Shop ${s}`, language: s % 7 === 0 ? 'de' : 'en' })).id);
  }
  return { id: tenant.id, slug, key, siteIds };
}
