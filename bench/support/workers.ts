// Benchmark child: `kcs worker` (every BullMQ worker: ingest, embed, maintenance) against the
// parent's private Redis, as startWorkers runs them in production.
// Env: BENCH_REDIS_URL or BENCH_REDIS_CLUSTER_NODES, BENCH_DATA_DIR, KCS_WAIT_REPLICAS (optional), KCS_EMBEDDER (none|local). Ready message: { embedder }.
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startWorkers } from '../../workers/index.js';
import { runChild } from './child.js';

runChild(async () => {
  const dataDir = process.env.BENCH_DATA_DIR;
  const env = process.env;
  if (!(env.BENCH_REDIS_URL || env.BENCH_REDIS_CLUSTER_NODES) || !dataDir) throw new Error('BENCH_REDIS_URL or BENCH_REDIS_CLUSTER_NODES, and BENCH_DATA_DIR are required');

  const config = loadConfig({ LOG_LEVEL: 'silent', KCS_DATA_DIR: dataDir, KCS_EMBEDDER: env.KCS_EMBEDDER,
    REDIS_URL: env.BENCH_REDIS_URL, REDIS_CLUSTER_NODES: env.BENCH_REDIS_CLUSTER_NODES, KCS_WAIT_REPLICAS: env.KCS_WAIT_REPLICAS,
  });
  const workers = await startWorkers(config, config.redis!, createLogger(config.logLevel, 'kcs-bench-worker'));
  return { ready: { embedder: config.embedding.provider }, close: () => workers.close() };
});
