// Picks the search engine for a Redis server: the Redis Query Engine when the server has the
// search module (or when asked for), else the built-in in-memory replica.
import type { SearchEngineChoice } from '../config.js';
import type { Embedder } from '../embed/embedder.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/redis.js';
import { BuiltinEngine } from './builtin/engine.js';
import type { SearchEngine } from './engine.js';
import { hasQueryEngine, RedisQueryEngine } from './redisQuery.js';

export async function createSearchEngine(redis: Store, log: Logger, choice: SearchEngineChoice, embedder: Embedder | null): Promise<SearchEngine> {
  const modelId = embedder?.modelId ?? null;
  if (choice !== 'builtin' && (await hasQueryEngine(redis))) {
    return new RedisQueryEngine(redis, log, { modelId, dimension: embedder?.dimension ?? null });
  }
  if (choice === 'redis') throw new Error('KCS_SEARCH_ENGINE=redis but the Redis server has no search module (Redis Stack or Redis 8 needed)');
  return new BuiltinEngine(redis, log, { modelId });
}
