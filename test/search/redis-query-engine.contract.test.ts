// The SearchEngine contract against the Redis Query Engine adapter. It needs a server with the search
// module (Redis Stack, Redis 8) at REDIS_URL, or the cluster of `npm run test:rqe-cluster`; without
// one the suite is reported as skipped. The documents go there under fresh tenants (nothing else
// there is touched or flushed).
//
// The adapter must not depend on the protocol its connection speaks: the suite runs over RESP3 as
// ioredis delivers it by default (maps flattened to arrays), over RESP2, and over RESP3 with maps as
// objects (ioredis's `replyMapping: 'resp3'`); and once with every vector search through the HNSW
// graph (HYBRID_POLICY BATCHES), which only catalogues above EXACT_LIMIT would take otherwise.
import { test } from 'node:test';
import type { RedisOptions } from 'ioredis';
import { connectRedis } from '../../src/store/redis.js';
import { queryEngineRedis, SKIP_WITHOUT_QUERY_ENGINE } from '../helpers/queryEngine.js';
import { searchEngineContract } from './contract/index.js';
import { ServingModels } from '../../src/search/servingModels.js';

const url = await queryEngineRedis();

const RUNS: { name: string; options: RedisOptions; exactLimit?: number }[] = [
  { name: 'RESP3 (ioredis default)', options: {} },
  { name: 'RESP2', options: { protocol: 2 } },
  { name: 'RESP3, maps as objects', options: { protocol: 3, replyMapping: 'resp3' } },
  // The suite's sets are small enough to be scanned exactly: once more through the graph only.
  { name: 'RESP3, vectors through the graph only', options: {}, exactLimit: 0 },
];

if (url) {
  // Imported only here: the adapter is optional for the rest of the suite.
  const { RedisQueryEngine } = await import('../../src/search/redisQuery/engine.js');
  const { queryEngineProjection } = await import('../../src/search/redisQuery/projection.js');
  const { ProjectionBackfill } = await import('../../src/store/projectionBackfill.js');
  for (const run of RUNS) {
    searchEngineContract({
      name: `redis-query-engine over ${run.name}`,
      redis: async () => ({ url, stop: async () => undefined }),
      create: async (redis, log, options) => {
        const own = connectRedis(url, run.options);
        await own.connect();
        // Tenants written before the engine starts are projected again here (the maintenance job's work).
        const project = async (tenantId: string) => void (await new ProjectionBackfill(redis, queryEngineProjection).run(tenantId));
        const engine = new RedisQueryEngine(own, log, { models: new ServingModels(own, { configured: options }), project, exactLimit: run.exactLimit });
        const close = engine.close.bind(engine);
        engine.close = async () => {
          await close();
          own.disconnect();
        };
        return engine;
      },
      kind: 'redis-query-engine',
    });
  }
} else {
  test('SearchEngine contract: redis-query-engine', { skip: SKIP_WITHOUT_QUERY_ENGINE }, () => undefined);
}
