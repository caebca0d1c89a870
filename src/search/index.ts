// Picks the search engine for a Redis server: the Redis Query Engine when the server has the
// search module (or when asked for), else the built-in in-memory replica. Every process that writes
// documents asks the same question: with the Redis Query Engine, writes store its projection.
import type { SearchEngineChoice } from '../config.js';
import type { Embedder } from '../embed/embedder.js';
import type { Logger } from '../log.js';
import type { DocumentProjection } from '../store/projection.js';
import { keys } from '../store/keys.js';
import type { Store } from '../store/redis.js';
import type { ReplicaSet } from '../store/replicaSet.js';
import { BuiltinEngine } from './builtin/engine.js';
import type { SearchEngine } from './engine.js';
import { RedisQueryEngine } from './redisQuery/engine.js';
import { queryEngineProjection } from './redisQuery/projection.js';
import { IndexRouter } from './redisQuery/router.js';
import { dropOtherModelIndexes, hasQueryEngine, type IndexOptions } from './redisQuery/schema.js';
import { TenantIndexes } from './redisQuery/tenantIndexes.js';
import { ServingModels } from './servingModels.js';

export type EngineKind = SearchEngine['name'];

/**
 * The engine that serves search on this server under the configured choice. On a cluster the
 * Query Engine needs the search module on every master: a tenant's indexes live on the master of
 * its slot.
 */
export async function resolveSearchEngine(redis: Store, choice: SearchEngineChoice): Promise<EngineKind> {
  if (choice !== 'builtin' && (await hasQueryEngine(new IndexRouter(redis)))) return 'redis-query-engine';
  if (choice === 'redis') throw new Error(`KCS_SEARCH_ENGINE=redis but the Redis ${redis.isCluster ? 'cluster has a master without' : 'server has no'} search module (Redis Stack or Redis 8 needed)`);
  return 'builtin';
}

/** What a process that writes documents does for the engine serving search (src/app.ts ServiceOptions). */
export interface SearchWrites {
  /** Fields stored with each document for the engine's index (null: none, the built-in engine reads the documents). */
  projection: DocumentProjection | null;
  /** Prepares a new tenant before it has a document (the Query Engine's indexes, and its mark as projected). */
  tenantCreated: (tenantId: string) => Promise<void>;
  /**
   * Before a re-embed with the configured model: the Query Engine's indexes of that model exist
   * and have read the tenant's documents, so they are complete when search switches to them.
   */
  reembedStarts: (tenantId: string) => Promise<void>;
  /** Once the tenant is searched with one model for good: the Query Engine's indexes of models not `kept` go (their names). */
  dropOtherModelIndexes: (tenantId: string, kept: string[]) => Promise<string[]>;
  /** Once the tenant's documents all carry the current projection: the indexes of older layouts go (their names). */
  projected: (tenantId: string) => Promise<string[]>;
}

/** The write side of the engine: `index` names the model and dimension its vectors are searched under. */
export function searchWrites(kind: EngineKind, redis: Store, index: IndexOptions): SearchWrites {
  if (kind === 'builtin') {
    return { projection: null, tenantCreated: async () => undefined, reembedStarts: async () => undefined, dropOtherModelIndexes: async () => [], projected: async () => [] };
  }
  const router = new IndexRouter(redis);
  const indexes = new TenantIndexes(redis, router, index);
  const tenantCreated = async (tenantId: string) => {
    await indexes.createEmpty(tenantId);
    // Every document it will have is written with the projection: no projection job is needed.
    await redis.set(keys.searchProjection(tenantId), queryEngineProjection.version);
  };
  return {
    projection: queryEngineProjection, tenantCreated, reembedStarts: (tenantId) => indexes.ensure(tenantId),
    dropOtherModelIndexes: (tenantId, kept) => dropOtherModelIndexes(router, tenantId, kept),
    projected: (tenantId) => dropOtherModelIndexes(router, tenantId, null),
  };
}

/** Drops the tenant's Query Engine indexes of earlier layouts, where the server has the search module (the names dropped). */
export async function dropOldLayoutIndexes(redis: Store, tenantId: string): Promise<string[]> {
  try {
    return await dropOtherModelIndexes(new IndexRouter(redis), tenantId, null);
  } catch (error) {
    if (/unknown command/i.test((error as Error).message)) return [];
    throw error;
  }
}

/** The index options of an embedder (the model whose vectors are searched). */
export const indexOptionsOf = (embedder: Embedder | null): IndexOptions => ({ modelId: embedder?.modelId ?? null, dimension: embedder?.dimension ?? null });

export interface SearchEngineOptions {
  kind: EngineKind;
  embedder: Embedder | null;
  /** Redis Query Engine: sends the projection job of a tenant whose documents lack it. */
  project?: (tenantId: string) => Promise<void>;
  /** Redis Query Engine: the replicas that may answer searches (KCS_SEARCH_READS=replicas). */
  readers?: ReplicaSet | null;
}

/** How long the Redis Query Engine reuses a tenant's model: a finished re-embed is served within it. */
const SERVING_MODEL_CACHE_MS = 1000;

export function createSearchEngine(redis: Store, log: Logger, options: SearchEngineOptions): SearchEngine {
  const configured = indexOptionsOf(options.embedder);
  if (options.kind === 'redis-query-engine') {
    return new RedisQueryEngine(redis, log, { models: new ServingModels(redis, { configured, cacheMs: SERVING_MODEL_CACHE_MS }), project: options.project, readers: options.readers ?? null });
  }
  // The built-in engine reads a tenant's model when it reads the tenant, and again on a switch.
  return new BuiltinEngine(redis, log, { models: new ServingModels(redis, { configured }) });
}
