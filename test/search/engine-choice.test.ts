// Which engine serves search: KCS_SEARCH_ENGINE=auto takes the Redis Query Engine only where the
// server has the search module, `redis` refuses a server without it (with the reason), `builtin`
// never probes. Writers store the Query Engine's projection only when it serves search.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { resolveSearchEngine, searchWrites } from '../../src/search/index.js';
import { connectRedis, type Store } from '../../src/store/redis.js';
import { queryEngineRedis } from '../helpers/queryEngine.js';
import { privateRedis, type PrivateRedis } from './fixtures.js';

let plain: PrivateRedis;
let redis: Store;

before(async () => {
  plain = await privateRedis();
  redis = connectRedis(plain.url);
  await redis.connect();
});
after(async () => {
  redis?.disconnect();
  await plain?.stop();
});

test('a server without the search module: auto and builtin run the built-in engine, redis is refused', async () => {
  assert.equal(await resolveSearchEngine(redis, 'auto'), 'builtin');
  assert.equal(await resolveSearchEngine(redis, 'builtin'), 'builtin');
  await assert.rejects(resolveSearchEngine(redis, 'redis'), /KCS_SEARCH_ENGINE=redis but the Redis server has no search module/);
  assert.equal(searchWrites('builtin', redis, { modelId: null, dimension: null }).projection, null, 'documents carry no projection for the built-in engine');
  assert.deepEqual(await redis.keys('kcs:probe:*'), [], 'the probe leaves nothing behind');
});

const withModule = await queryEngineRedis();

test('a server or cluster with the search module (REDIS_URL, or the cluster of test:rqe-cluster): auto and redis run the Redis Query Engine', { skip: !withModule && 'no Redis Query Engine at REDIS_URL' }, async () => {
  const stack = connectRedis(withModule!);
  await stack.connect();
  try {
    assert.equal(await resolveSearchEngine(stack, 'auto'), 'redis-query-engine');
    assert.equal(await resolveSearchEngine(stack, 'redis'), 'redis-query-engine');
    assert.equal(await resolveSearchEngine(stack, 'builtin'), 'builtin');
    assert.ok(searchWrites('redis-query-engine', stack, { modelId: null, dimension: null }).projection, 'documents carry the projection');
  } finally {
    stack.disconnect();
  }
});
