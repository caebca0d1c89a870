// Picks the search engine for a Redis server: the Redis Query Engine when the server has the
// search module (or when asked for), else the built-in in-memory replica. Every process that writes
// documents asks the same question: with the Redis Query Engine, writes store its projection.
import type { SearchEngineChoice } from '../config.js';
import type { Embedder } from '../embed/embedder.js';
import type { Logger } from '../log.js';
import type { DocumentProjection } from '../store/projection.js';
import type { Store } from '../store/redis.js';
import { BuiltinEngine } from './builtin/engine.js';
import type { SearchEngine } from './engine.js';
import { RedisQueryEngine } from './redisQuery/engine.js';
import { queryEngineProjection } from './redisQuery/projection.js';
import { hasQueryEngine } from './redisQuery/schema.js';

export type EngineKind = SearchEngine['name'];

/** The engine that serves search on this server under the configured choice. */
export async function resolveSearchEngine(redis: Store, choice: SearchEngineChoice): Promise<EngineKind> {
  if (choice !== 'builtin' && (await hasQueryEngine(redis))) return 'redis-query-engine';
  if (choice === 'redis') throw new Error('KCS_SEARCH_ENGINE=redis but the Redis server has no search module (Redis Stack or Redis 8 needed)');
  return 'builtin';
}

/** What document writes store for the engine's index (null: nothing, the built-in engine reads the documents). */
export const projectionFor = (kind: EngineKind): DocumentProjection | null => (kind === 'redis-query-engine' ? queryEngineProjection : null);

export interface SearchEngineOptions {
  embedder: Embedder | null;
  /** Redis Query Engine: sends the projection job of a tenant whose documents lack it. */
  project?: (tenantId: string) => Promise<void>;
}

export function createSearchEngine(kind: EngineKind, redis: Store, log: Logger, options: SearchEngineOptions): SearchEngine {
  const modelId = options.embedder?.modelId ?? null;
  if (kind === 'redis-query-engine') {
    return new RedisQueryEngine(redis, log, { modelId, dimension: options.embedder?.dimension ?? null, project: options.project });
  }
  return new BuiltinEngine(redis, log, { modelId });
}
