// Benchmark child for bench/search.ts: `kcs serve` (startServer, as the CLI runs it) against the
// parent's Redis (its private plain server or cluster, or BENCH_REDIS_URL's with the search
// module), which already holds the tenant, its key and its products; the search indexes build in
// the background as in production (the parent waits for /readyz).
// Env: BENCH_REDIS_URL or BENCH_REDIS_CLUSTER_NODES, BENCH_DATA_DIR, KCS_WAIT_REPLICAS (optional),
// KCS_EMBEDDER (none|local), KCS_SEARCH_ENGINE (builtin|redis).
// Ready message: { port }.
import { startServer } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { runChild } from './child.js';

runChild(async () => {
  const dataDir = process.env.BENCH_DATA_DIR;
  const env = process.env;
  if (!(env.BENCH_REDIS_URL || env.BENCH_REDIS_CLUSTER_NODES) || !dataDir) throw new Error('BENCH_REDIS_URL or BENCH_REDIS_CLUSTER_NODES, and BENCH_DATA_DIR are required');

  const config = loadConfig({
    PORT: '0', LOG_LEVEL: 'silent', KCS_DATA_DIR: dataDir, KCS_EMBEDDER: env.KCS_EMBEDDER, KCS_SEARCH_ENGINE: env.KCS_SEARCH_ENGINE,
    REDIS_URL: env.BENCH_REDIS_URL, REDIS_CLUSTER_NODES: env.BENCH_REDIS_CLUSTER_NODES, KCS_WAIT_REPLICAS: env.KCS_WAIT_REPLICAS,
  });
  const server = await startServer(config, config.redis!, createLogger(config.logLevel, 'kcs-bench-search'));
  return { ready: { port: server.port }, close: () => server.close() };
});
