// `npm run test:rqe`: the suites that touch search (rqeSuites.mjs), against the Redis Query Engine at
// REDIS_URL (Redis Stack / Redis 8, or a server with the RediSearch module). Each test file works in
// fresh tenants on that server and touches nothing else. Plain `npm test` runs them on private
// redis-servers with the built-in engine and skips the Query Engine contract without such a server.
import { spawnSync } from 'node:child_process';
import { ALONE, SUITES, testFiles } from './rqeSuites.js';

const url = process.env.REDIS_URL;
if (!url) {
  process.stderr.write('test:rqe needs REDIS_URL: a Redis Stack / Redis 8 server with the Query Engine, e.g. REDIS_URL=redis://127.0.0.1:6379 npm run test:rqe\n');
  process.exit(2);
}

const run = (suites: string[], concurrency: number) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...suites.flatMap(testFiles)], {
    stdio: 'inherit',
    env: { ...process.env, KCS_TEST_REDIS_URL: url, KCS_SEARCH_ENGINE: 'redis' },
  }).status;
const status = run(SUITES, 2) || run(ALONE, 1);
process.exit(status ?? 1);
