// The composition root of `kcs serve`: stores, services, routes, and the request pipeline.
import { adminRoutes } from './api/admin.js';
import { bulkRoutes } from './api/bulk.js';
import { categoryRoutes } from './api/categories.js';
import { knowledgeEntryRoutes } from './api/knowledgeEntries.js';
import { searchRoutes } from './api/search.js';
import { multiSearchRoutes } from './api/multiSearch.js';
import { mcpRoutes } from './api/mcp.js';
import { oauthResolver, oauthRoutes } from './api/oauth.js';
import { OAuthRateLimit } from './api/oauthRateLimit.js';
import { Guard } from './api/guard.js';
import { buildOpenApi } from './api/openapi.js';
import { productRoutes } from './api/products.js';
import { siteRoutes } from './api/sites.js';
import { systemRoutes } from './api/system.js';
import { whoamiRoutes } from './api/whoami.js';
import { consoleRoutes } from './api/console.js';
import { synonymRoutes } from './api/synonyms.js';
import { searchRuleRoutes } from './api/searchRules.js';
import { searchAnalyticsRoutes } from './api/searchAnalytics.js';
import type { Config, EmbedderSpec } from './config.js';
import { DEFAULT_OAUTH_LIFETIMES, type OAuthLifetimes } from './config.js';
import { ApiKeyService } from './domain/apiKeys.js';
import { CategoryService } from './domain/categories.js';
import { AuditLog } from './domain/audit.js';
import { CheckedLines } from './domain/checkedLines.js';
import { IngestService } from './domain/ingest.js';
import { KnowledgeEntryService } from './domain/knowledgeEntries.js';
import { OAuthService } from './domain/oauth/service.js';
import { ProductService, type EmbeddingScheduler } from './domain/products.js';
import { SearchService } from './domain/search.js';
import { QueryIds } from './domain/queryIds.js';
import { SearchAnalyticsService } from './domain/searchAnalytics.js';
import { SearchCounter } from './domain/searchCounter.js';
import { noSearchRefresh, type SearchRefresh } from './domain/searchRefresh.js';
import { createEmbedder, createQueryModel } from './embed/index.js';
import { QueryEmbedder } from './embed/queryEmbedder.js';
import { QueryEmbedders } from './embed/queryEmbedders.js';
import { createSearchEngine, dropOldLayoutIndexes, indexOptionsOf, resolveSearchEngine, searchWrites, type SearchWrites } from './search/index.js';
import { ResultCache } from './search/resultCache.js';
import type { EngineProgress } from './search/engine.js';
import { SiteService } from './domain/sites.js';
import { SynonymService } from './domain/synonyms.js';
import { SearchRuleService } from './domain/searchRules.js';
import { TenantService, UserService } from './domain/tenants.js';
import { preflightRoutes } from './http/cors.js';
import { requestPipeline } from './http/pipeline.js';
import type { WriteConfirmation } from './domain/writeConfirmation.js';
import { HttpMetrics } from './http/metrics.js';
import type { Route } from './http/route.js';
import { chooseFront } from './http/front.js';
import { RequestHandler } from './http/handler.js';
import type { Logger } from './log.js';
import { EmbedQueue, noEmbedding, noEntryEmbedding } from './queue/embed.js';
import { IngestQueue } from './queue/ingest.js';
import { producerConnection, QUEUE_PREFIX } from './queue/connection.js';
import { MaintenanceQueue } from './queue/maintenance.js';
import { CategoryRepository } from './store/categories.js';
import { migrateLayout } from './store/layoutMigration.js';
import { ReplicaSet } from './store/replicaSet.js';
import { connectRedis, isUnavailable, type RedisAt, type RedisClient, type Store } from './store/redis.js';
import { keys } from './store/keys.js';
import { ReplicaAck } from './store/replicaAck.js';
import { JobRepository } from './store/jobs.js';
import { EntryRepository } from './store/knowledgeEntries.js';
import { AuditRepository } from './store/auditLog.js';
import { OAuthRepository } from './store/oauth.js';
import { ProductRepository } from './store/productRepository.js';
import { SiteRepository } from './store/sites.js';
import { SynonymRepository } from './store/synonyms.js';
import { SearchRuleRepository } from './store/searchRules.js';
import { SearchAnalyticsRepository } from './store/searchAnalytics.js';
import { ApiKeyRepository, TenantRepository, UserRepository } from './store/tenants.js';
import { embeddingRoutes } from './api/embedding.js';
import { EmbeddingStatusService, type ConfiguredModel } from './domain/embedding.js';
import { EmbeddingProgressRepository } from './store/embeddingProgress.js';
import { ReembedRepository } from './store/reembed.js';
import { EmbeddingModelRegistry } from './store/embeddingModels.js';

export const VERSION = '0.1.0';

export interface ServiceOptions {
  /** Queues of the jobs this process sends (none: it sends none). */
  queues?: Partial<Queues>;
  oauthLifetimes?: OAuthLifetimes;
  /** Read-your-writes hook of this process's search engine. */
  searchRefresh?: SearchRefresh;
  /** What document writes do for the engine serving search (src/search/index.ts searchWrites); none by default. */
  search?: SearchWrites;
  /** The model documents are embedded with (null: embedding is off), for the embedding status and the languages products are embedded in. */
  model?: ConfiguredModel | null;
  /** Replica reads: the replicas that may answer the documents of a page of search hits. */
  readers?: ReplicaSet | null;
}

/** The services of one process, built on one Redis connection. */
export function createServices(redis: Store, options: ServiceOptions = {}) {
  const { queues = {}, oauthLifetimes = DEFAULT_OAUTH_LIFETIMES, searchRefresh = noSearchRefresh } = options;
  const projection = options.search?.projection ?? null;
  // Products in a language the model does not serve are stored skipped, with no job (domain/products.ts).
  const embedQueue = queues.embed;
  const embedding: EmbeddingScheduler = embedQueue
    ? { initialStatus: 'pending', languages: options.model?.languages ?? null, schedule: (tenantId, items) => embedQueue.schedule(tenantId, items) }
    : noEmbedding;
  const tenants = new TenantService(new TenantRepository(redis), options.search?.tenantCreated);
  const users = new UserService(new UserRepository(redis));
  const oauthStore = new OAuthRepository(redis);
  const apiKeys = new ApiKeyService(new ApiKeyRepository(redis), users, (tenantId, keyId) => oauthStore.revokeGrantsApprovedBy(tenantId, keyId));
  const sites = new SiteService(new SiteRepository(redis), async (tenantId, siteId) => {
    if (!queues.maintenance) throw new Error('no maintenance queue in this process');
    await queues.maintenance.schedulePurge(tenantId, siteId);
  });
  const categories = new CategoryService(new CategoryRepository(redis));
  const products = new ProductService(new ProductRepository(redis, projection, options.readers ?? null), embedding, searchRefresh);
  const jobs = new JobRepository(redis);
  const embeddingStatus = new EmbeddingStatusService({ progress: new EmbeddingProgressRepository(redis), reembed: new ReembedRepository(redis), model: options.model ?? null });
  const ingest = new IngestService({
    jobs,
    products,
    schedule: async (tenantId, jobId) => {
      if (!queues.ingest) throw new Error('no ingest queue in this process');
      await queues.ingest.add(tenantId, jobId);
    },
    embed: queues.embed
      ? async (tenantId, jobId, items) => {
          await jobs.count(tenantId, jobId, { field: 'embed_scheduled', by: items.length });
          await queues.embed!.schedule(tenantId, items, jobId);
        }
      : null,
    embeddingStatus,
    checkedLines: new CheckedLines(),
  });
  const entries = new EntryRepository(redis, projection);
  const knowledgeEntries = new KnowledgeEntryService(entries, queues.embed ?? noEntryEmbedding, searchRefresh);
  const audit = new AuditLog(new AuditRepository(redis));
  const oauth = new OAuthService(oauthStore, apiKeys, oauthLifetimes);
  const synonyms = new SynonymService(new SynonymRepository(redis), sites);
  const searchRules = new SearchRuleService(new SearchRuleRepository(redis), sites, products);
  // Counts are written by a timer that only a serving process starts (startServer).
  const analyticsStore = new SearchAnalyticsRepository(redis);
  const searchAnalytics = new SearchAnalyticsService({
    repo: analyticsStore, sites, counter: new SearchCounter(analyticsStore), queryIds: new QueryIds(() => analyticsStore.secret()),
  });
  return { tenants, users, apiKeys, sites, categories, products, ingest, jobs, knowledgeEntries, audit, oauth, embeddingStatus, synonyms, searchRules, searchAnalytics };
}
export type Services = ReturnType<typeof createServices>;

export interface Queues {
  maintenance: MaintenanceQueue;
  embed: EmbedQueue | null;
  ingest: IngestQueue;
}

/** The queues of one process on one connection; `close` closes them and the connection. */
export function openQueues(redis: RedisAt, config: Config): Queues & { connection: RedisClient; close(): Promise<void> } {
  const connection = producerConnection(redis);
  const queues = {
    maintenance: new MaintenanceQueue(connection),
    embed: config.embedding.provider === 'none' ? null : new EmbedQueue(connection),
    ingest: new IngestQueue(connection),
  };
  return {
    ...queues,
    connection,
    async close() {
      await Promise.all([queues.maintenance.close(), queues.embed?.close(), queues.ingest.close()]);
      connection.disconnect();
    },
  };
}

export interface WriteConfirmationOptions {
  config: Config;
  /** The tenants' documents. */
  redis: Store;
  /** The queues' connection. */
  queueConnection: RedisClient;
  log: Logger;
  /** Replica reads: the replicas that serve searches, which every write must reach. */
  readers?: ReplicaSet | null;
}

/**
 * With KCS_WAIT_REPLICAS > 0 (the default on a cluster): a tenant's writes are confirmed by the
 * replicas of its master, and the jobs they sent by those of the queues' master, before they are
 * answered; with replica reads, by every replica of the tenant's master. Null when off; `close`
 * closes its connections.
 */
export async function writeConfirmation(
  { config, redis, queueConnection, log, readers }: WriteConfirmationOptions,
): Promise<(WriteConfirmation & { close(): void }) | null> {
  const options = {
    replicas: config.writeReplicas.count,
    timeoutMs: config.writeReplicas.timeoutMs,
    onShortfall: (event: object) => log.warn(event, 'a write was not confirmed by the replicas in time; answered anyway'),
  };
  if (options.replicas === 0 && !readers) return null;
  const [documents, jobs] = await Promise.all([ReplicaAck.open(redis, { ...options, readers: readers ?? undefined }), ReplicaAck.open(queueConnection, options)]);
  const queueKey = `${QUEUE_PREFIX}:meta`;
  return {
    confirm: async (tenantId) => {
      await Promise.all([documents.confirm(keys.tenant(tenantId)), jobs.confirm(queueKey)]);
    },
    close: () => {
      documents.close();
      jobs.close();
    },
  };
}

/** KCS_SEARCH_READS=replicas: the replicas that serve the Query Engine's searches (null: the masters serve them). */
async function replicaReads(config: Config, engineKind: string, redis: Store, log: Logger): Promise<ReplicaSet | null> {
  if (config.searchReads !== 'replicas') return null;
  if (engineKind !== 'redis-query-engine') {
    log.info('KCS_SEARCH_READS=replicas applies to the Redis Query Engine: the built-in engine searches in process');
    return null;
  }
  return ReplicaSet.open(redis, {
    waitTimeoutMs: config.writeReplicas.timeoutMs,
    onError: (err, master) => log.warn({ master, err: err.message }, 'replicas not read: searches go to the master'),
  });
}

/** Brings stored data to the layout this code reads (store/layoutMigration.ts), before anything reads it. */
export async function migrate(redis: Store, log: Logger): Promise<void> {
  const moved = await migrateLayout(redis, { dropOldIndexes: (tenantId) => dropOldLayoutIndexes(redis, tenantId) });
  if (moved.tenants > 0) log.info(moved, 'stored data migrated to the current layout');
}

export interface RunningServer {
  port: number;
  services: Services;
  close(): Promise<void>;
}

export async function startServer(config: Config, redisAt: RedisAt, log: Logger): Promise<RunningServer> {
  const redis = connectRedis(redisAt, {}, (err) => log.warn({ err: err.message }, 'redis connection error'));
  await redis.connect();
  await migrate(redis, log);
  const queues = openQueues(redisAt, config);
  const embedder = createEmbedder(config.embedding);
  const registry = new EmbeddingModelRegistry(redis);
  if (embedder) await registry.record({ modelId: embedder.modelId, spec: config.embedding, dimension: embedder.dimension, languages: embedder.languages });
  const engineKind = await resolveSearchEngine(redis, config.searchEngine);
  const writes = searchWrites(engineKind, redis, indexOptionsOf(embedder));
  const { projection } = writes;
  const readers = await replicaReads(config, engineKind, redis, log);
  const engine = createSearchEngine(redis, log, {
    kind: engineKind,
    embedder,
    readers,
    project: projection ? (tenantId) => queues.maintenance.scheduleProjection(tenantId, projection.version) : undefined,
  });
  const services = createServices(redis, {
    queues, oauthLifetimes: config.oauth, searchRefresh: (tenantId, changed) => engine.refresh(tenantId, changed), search: writes, model: embedder, readers,
  });
  const queryModel = (spec: EmbedderSpec) => createQueryModel(spec, config.embedding.query);
  const embedders = embedder ? new QueryEmbedders({ configured: new QueryEmbedder(queryModel(config.embedding)!), registry, spec: config.embedding, build: queryModel }) : null;
  // The query model loads now, in the background (a hosted one has nothing to load), not on the
  // first semantic search: /readyz answers 503 until it is loaded.
  if (embedders && config.embedding.provider !== 'hf') {
    const loading = performance.now();
    embedders.configured.load().then(
      () => log.info({ model: embedder!.modelId, ms: Math.round(performance.now() - loading) }, 'query embedding model loaded'),
      (err: Error) => log.error({ model: embedder!.modelId, err: err.message }, 'the query embedding model failed to load; semantic searches fall back to keyword'),
    );
  }
  const resultCache = config.searchCacheBytes > 0 ? new ResultCache(config.searchCacheBytes) : null;
  const search = new SearchService({
    engine,
    embedders,
    products: services.products, knowledgeEntries: services.knowledgeEntries, sites: services.sites, synonyms: services.synonyms,
    rules: services.searchRules, facetExactLimit: config.facetExactLimit, analytics: services.searchAnalytics,
    resultCache: resultCache ?? undefined,
  });
  services.searchAnalytics.start((err) => log.warn({ err: (err as Error).message }, 'search counts not written; kept for the next try'));
  // The indexes build in the background: /readyz answers 503 with the progress until they are done.
  let searchProgress: EngineProgress = { tenants: 0, tenantsLoaded: 0, documents: 0 };
  let progressLogged = performance.now();
  const engineStarted = engine.start((p) => {
    searchProgress = p;
    if (performance.now() - progressLogged < 2000) return;
    progressLogged = performance.now();
    log.info({ engine: engine.name, ...p }, 'building search indexes');
  }).then(
    () => log.info({ engine: engine.name, ...searchProgress }, 'search engine ready'),
    (err: Error) => log.error({ err: err.message }, 'search engine failed to start'),
  );
  const guard = new Guard({
    baseDomain: config.baseDomain, scheme: config.publicScheme, tenants: services.tenants, apiKeys: services.apiKeys,
    resolvers: [oauthResolver(services.oauth)],
  });
  const metrics = new HttpMetrics();
  if (resultCache) {
    const stat = (name: keyof ReturnType<ResultCache['stats']>) => () => resultCache.stats()[name];
    metrics.addGauges({
      kcs_search_cache_entries: { help: 'Product search results held by this process (KCS_SEARCH_CACHE_MB)', value: stat('entries') },
      kcs_search_cache_bytes: { help: 'Estimated bytes of the product search results held', value: stat('bytes') },
      kcs_search_cache_hits: { help: 'Product searches answered from a held result since start', value: stat('hits') },
      kcs_search_cache_misses: { help: 'Product searches run on the engine since start (not held, or the tenant changed)', value: stat('misses') },
    });
  }
  const http = chooseFront(config.httpFront);

  let openApiDoc: unknown;
  const routes: Route[] = [
    ...systemRoutes({
      metrics,
      ready: async () => {
        const semantic = embedders?.configured.state ?? 'off';
        const redisUp = redis.status === 'ready' && (await redis.ping().then(() => true, () => false));
        if (!redisUp) return { ready: false, semantic };
        if (!engine.ready) return { ready: false, progress: { search: { engine: engine.name, ...searchProgress } }, semantic };
        return semantic === 'loading' ? { ready: false, progress: {}, semantic } : { ready: true, semantic };
      },
      openApi: () => (openApiDoc ??= buildOpenApi(routes, { title: 'kcs', version: VERSION })),
      httpFront: http.kind,
    }),
    ...siteRoutes(services.sites),
    ...categoryRoutes(services.categories),
    ...productRoutes(services.products, services.sites),
    ...bulkRoutes(services.ingest, services.sites),
    ...knowledgeEntryRoutes(services.knowledgeEntries),
    ...searchRoutes(search),
    ...multiSearchRoutes(search),
    ...mcpRoutes({ search, products: services.products, knowledgeEntries: services.knowledgeEntries, categories: services.categories, version: VERSION }, config.publicScheme),
    ...embeddingRoutes(services.embeddingStatus),
    ...adminRoutes({ tenants: services.tenants, users: services.users, apiKeys: services.apiKeys, audit: services.audit }),
    ...synonymRoutes(services.synonyms),
    ...searchRuleRoutes(services.searchRules),
    ...searchAnalyticsRoutes({ analytics: services.searchAnalytics, apiKeys: services.apiKeys }),
    ...oauthRoutes(services.oauth, guard, { scheme: config.publicScheme, rateLimit: new OAuthRateLimit(services.apiKeys, config.oauthRateLimits) }),
    ...whoamiRoutes(),
    ...consoleRoutes(services.oauth, guard),
  ];
  routes.push(...preflightRoutes(routes));

  const confirmations = await writeConfirmation({ config, redis, queueConnection: queues.connection, log, readers });
  const dispatch = requestPipeline(guard, confirmations);
  const handler = new RequestHandler({ routes, dispatch, log, metrics, unavailable: isUnavailable });
  const server = http.open(handler);
  if (http.fallback) log.info({ reason: http.fallback }, 'uWebSockets.js does not load here: serving HTTP with node:http');
  const port = await server.listen(config.host, config.port).catch((error: Error) => {
    throw new Error(`cannot listen on ${config.host}:${config.port} (${error.message})`);
  });
  log.info({ host: config.host, port, http: server.kind }, 'listening');

  return {
    port,
    services,
    async close() {
      await server.close(config.shutdownGraceMs);
      // The searches answered last are counted before the connection goes.
      await services.searchAnalytics.close().catch((err: Error) => log.warn({ err: err.message }, 'search counts not written at shutdown'));
      await engineStarted;
      await engine.close();
      await embedders?.close();
      await queues.close();
      confirmations?.close();
      readers?.close();
      redis.disconnect();
    },
  };
}
