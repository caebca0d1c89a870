// Benchmark child: `kcs worker` (every BullMQ worker: ingest, embed, maintenance) against the
// parent's private Redis, as startWorkers runs them in production.
// Env: BENCH_REDIS_URL, BENCH_DATA_DIR, KCS_EMBEDDER (none|local). Ready message: { embedder }.
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startWorkers } from '../../workers/index.js';
import { runChild } from './child.js';

runChild(async () => {
  const redisUrl = process.env.BENCH_REDIS_URL;
  const dataDir = process.env.BENCH_DATA_DIR;
  if (!redisUrl || !dataDir) throw new Error('BENCH_REDIS_URL and BENCH_DATA_DIR are required');

  const config = loadConfig({ LOG_LEVEL: 'silent', KCS_DATA_DIR: dataDir, KCS_EMBEDDER: process.env.KCS_EMBEDDER });
  const workers = await startWorkers(config, redisUrl, createLogger(config.logLevel, 'kcs-bench-worker'));
  return { ready: { embedder: config.embedding.provider }, close: () => workers.close() };
});
