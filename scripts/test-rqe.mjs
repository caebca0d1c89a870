// `npm run test:rqe`: the suites that touch search, against the Redis Query Engine at REDIS_URL
// (Redis Stack / Redis 8, or a server with the RediSearch module). Each test file works in fresh
// tenants on that server and touches nothing else. Plain `npm test` runs them on private
// redis-servers with the built-in engine and skips the Query Engine contract without such a server.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Suite files, and folders standing for every *.test.ts file in them. */
const SUITES = [
  'test/search/redis-query-engine.contract.test.ts',
  'test/search/redis-query-engine.test.ts',
  'test/search/engine-choice.test.ts',
  'test/search/api-routes.test.ts',
  'test/search/api-writes.test.ts',
  'test/search/semantic.test.ts',
  'test/search/relevance.test.ts',
  'test/mcp/mcp.test.ts',
  'test/api/products',
  'test/api/bulk',
  'test/api/knowledge-entries',
  'test/workers/embedding.test.ts',
];

const url = process.env.REDIS_URL;
if (!url) {
  process.stderr.write('test:rqe needs REDIS_URL: a Redis Stack / Redis 8 server with the Query Engine, e.g. REDIS_URL=redis://127.0.0.1:6379 npm run test:rqe\n');
  process.exit(2);
}
const files = (path) =>
  statSync(path).isDirectory() ? readdirSync(path).sort().flatMap((name) => files(join(path, name))) : path.endsWith('.test.ts') ? [path] : [];
/**
 * Run after the others, alone: its workers change the embedding model, and the workers of a model
 * re-embed every tenant of the server, so no suite of another model may run beside it.
 */
const ALONE = ['test/workers/reembed.test.ts'];

const run = (suites, concurrency) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...suites.flatMap(files)], {
    stdio: 'inherit',
    env: { ...process.env, KCS_TEST_REDIS_URL: url, KCS_SEARCH_ENGINE: 'redis' },
  }).status;
const status = run(SUITES, 2) || run(ALONE, 1);
process.exit(status ?? 1);
