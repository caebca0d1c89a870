// Benchmark child for bench/search.ts: `kcs serve` (startServer, as the CLI runs it) against the
// parent's Redis (its private plain server, or BENCH_REDIS_URL's with the search module), which
// already holds the tenant, its key and its products; the search indexes build in the background
// as in production (the parent waits for /readyz).
// Env: BENCH_REDIS_URL, BENCH_DATA_DIR, KCS_EMBEDDER (none|local), KCS_SEARCH_ENGINE (builtin|redis).
// Ready message: { port }.
import { startServer } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { runChild } from './child.js';

runChild(async () => {
  const redisUrl = process.env.BENCH_REDIS_URL;
  const dataDir = process.env.BENCH_DATA_DIR;
  if (!redisUrl || !dataDir) throw new Error('BENCH_REDIS_URL and BENCH_DATA_DIR are required');

  const config = loadConfig({
    PORT: '0', LOG_LEVEL: 'silent', KCS_DATA_DIR: dataDir, KCS_EMBEDDER: process.env.KCS_EMBEDDER,
    KCS_SEARCH_ENGINE: process.env.KCS_SEARCH_ENGINE,
  });
  const server = await startServer(config, redisUrl, createLogger(config.logLevel, 'kcs-bench-search'));
  return { ready: { port: server.port }, close: () => server.close() };
});
