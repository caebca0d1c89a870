// Whether a Redis server with the Query Engine (RediSearch) is there to test against: the suites
// that need one run against REDIS_URL (`npm run test:rqe`) and are skipped, with this line, without.
import { IndexRouter } from '../../src/search/redisQuery/router.js';
import { hasQueryEngine } from '../../src/search/redisQuery/schema.js';
import { connectRedis } from '../../src/store/redis.js';

export const SKIP_WITHOUT_QUERY_ENGINE = 'Redis Query Engine not available: set REDIS_URL to a Redis Stack / Redis 8 server to run these (npm run test:rqe)';

/** True when the server at `url` answers and has the search module with TEXT fields. */
export async function searchModuleAt(url: string): Promise<boolean> {
  const redis = connectRedis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  try {
    await redis.connect();
    return await hasQueryEngine(new IndexRouter(redis));
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
