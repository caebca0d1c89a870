// Whether a Redis server with the Query Engine (RediSearch) is there to test against: the suites
// that need one run against REDIS_URL (`npm run test:rqe`), or against the run's shared cluster when
// it runs the Query Engine (`npm run test:rqe-cluster`), and are skipped, with this line, without.
import { IndexRouter } from '../../src/search/redisQuery/router.js';
import { hasQueryEngine } from '../../src/search/redisQuery/schema.js';
import { connectRedis, type RedisAt } from '../../src/store/redis.js';
import { sharedRedis } from './stack.js';

export const SKIP_WITHOUT_QUERY_ENGINE = 'Redis Query Engine not available: set REDIS_URL to a Redis Stack / Redis 8 server to run these (npm run test:rqe)';

/** The Redis with the Query Engine the run tests against: the shared cluster of `npm run test:rqe-cluster`, or REDIS_URL; null without one. */
export async function queryEngineRedis(): Promise<RedisAt | null> {
  const shared = process.env.KCS_SEARCH_ENGINE === 'redis' && process.env.KCS_TEST_REDIS_CLUSTER_NODES ? sharedRedis() : null;
  const at = shared ?? process.env.REDIS_URL ?? null;
  return at && (await searchModuleAt(at)) ? at : null;
}

/** True when the server (or every master of the cluster) at `url` answers and has the search module with TEXT fields. */
export async function searchModuleAt(url: RedisAt): Promise<boolean> {
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
