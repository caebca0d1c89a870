// `npm run test:rqe-cluster`: the Query Engine's suites (rqeSuites.mjs) on a private 6-node Redis
// Cluster (3 masters with a replica each) of a build with the search module, every search answered
// by the Query Engine on the master of its tenant's slot; then what clusters do while searches run
// (test/cluster/query-engine.test.ts: a master killed, a slot migrated), and replica reads on one
// server with replicas and on a cluster of their own (test/cluster/replica-reads.test.ts). The build:
// KCS_TEST_QE_REDIS_SERVER (a redis-server binary) and KCS_TEST_QE_MODULE (RediSearch as a module,
// e.g. redisearch.so); redis-cli from PATH creates the cluster. `npm run test:rqe-cluster -- <files>`
// runs just those files on it.
import { spawnSync } from 'node:child_process';
import { redisEnv } from '../src/store/redis.js';
import { queryEngineBuild, startRedisCluster } from '../test/helpers/redisCluster.js';
import { ALONE, SUITES, testFiles } from './rqeSuites.js';

const build = queryEngineBuild();
if (!build) {
  process.stderr.write('test:rqe-cluster needs KCS_TEST_QE_REDIS_SERVER (a redis-server binary) and KCS_TEST_QE_MODULE (redisearch.so), e.g.\n' +
    '  KCS_TEST_QE_REDIS_SERVER=/opt/redis/bin/redis-server KCS_TEST_QE_MODULE=/opt/redis/redisearch.so npm run test:rqe-cluster\n');
  process.exit(2);
}

const run = (files: string[], concurrency: number, env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], { stdio: 'inherit', env: { ...process.env, ...env } }).status;

process.stdout.write(`# test:rqe-cluster: a 6-node Redis Cluster of ${build.server} with ${build.module}\n`);
const cluster = await startRedisCluster(build);
let status: number | null;
try {
  const env = { KCS_TEST_REDIS_CLUSTER_NODES: redisEnv(cluster.target).REDIS_CLUSTER_NODES, KCS_SEARCH_ENGINE: 'redis' };
  const only = process.argv.slice(2);
  status = only.length > 0 ? run(only, 1, env) : run(SUITES.flatMap(testFiles), 2, env) || run(ALONE.flatMap(testFiles), 1, env);
} finally {
  await cluster.stop();
}
// The cluster's own tests run whatever the suites did: each starts its servers itself.
if (process.argv.length <= 2) status = run(['test/cluster/query-engine.test.ts', 'test/cluster/replica-reads.test.ts'], 1) || status;
process.exit(status ?? 1);
