// The SearchEngine contract against the Redis Query Engine adapter. It needs a server with the search
// module (Redis Stack, Redis 8) at REDIS_URL; without one the suite is reported as skipped. The
// documents go to that server under fresh tenants (nothing else there is touched or flushed).
import { test } from 'node:test';
import type { Logger } from '../../src/log.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { connectRedis, type Store } from '../../src/store/redis.js';
import { searchEngineContract } from './contract.js';

const SKIP = 'Redis Query Engine not available: set REDIS_URL to a Redis Stack / Redis 8 server to run these';
const url = process.env.REDIS_URL;

/** True when the server at `url` lists the search module or answers FT._LIST. */
async function hasSearchModule(url: string): Promise<boolean> {
  const redis = connectRedis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  try {
    await redis.connect();
    const modules = (await redis.call('MODULE', 'LIST').catch(() => [])) as unknown[];
    const names = modules.map((m) => {
      const fields = m as unknown[];
      const at = fields.findIndex((f) => String(f) === 'name');
      return String(at >= 0 ? fields[at + 1] : '').toLowerCase();
    });
    if (names.some((n) => n === 'search' || n === 'ft' || n.includes('search'))) return true;
    return await redis.call('FT._LIST').then(() => true, () => false);
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

if (url && (await hasSearchModule(url))) {
  // Imported only here: the adapter is optional for the rest of the suite.
  const { RedisQueryEngine } = (await import('../../src/search/redisQuery.js')) as {
    RedisQueryEngine: new (redis: Store, log: Logger, options: { modelId: string | null; dimension: number | null }) => SearchEngine;
  };
  searchEngineContract({
    name: 'redis-query-engine',
    redis: async () => ({ url, stop: async () => undefined }),
    create: (redis, log, options) => new RedisQueryEngine(redis, log, options),
  });
} else {
  test('SearchEngine contract: redis-query-engine', { skip: SKIP }, () => undefined);
}
