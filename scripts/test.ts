// `npm test`: every test file on private redis-servers, then the HTTP suites again on the
// node:http front, then the cluster pass: the HTTP suites again, on 6-node Redis Clusters (3
// masters with a replica each, started here from redis-server). `npm test -- <files>` runs just those files (no cluster pass);
// `npm run test:cluster` runs only the cluster pass.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { redisEnv } from '../src/store/redis.js';
import { startRedisCluster } from '../test/helpers/redisCluster.js';

/** The suites of the cluster pass (a folder: each of its test files): every resource over HTTP, search across processes, OAuth, MCP, the CLI. */
const CLUSTER_SUITES = [
  'test/api/sites',
  'test/api/categories',
  'test/api/products',
  'test/api/bulk',
  'test/api/knowledge-entries',
  'test/api/auth.test.ts',
  'test/api/admin.test.ts',
  'test/api/oauth',
  'test/search/api-routes.test.ts',
  'test/search/api-writes.test.ts',
  'test/search/replication.test.ts',
  'test/search/search-analytics.test.ts',
  'test/search/search-analytics-abuse.test.ts',
  'test/mcp/mcp.test.ts',
  'test/cli/admin.test.ts',
  'test/workers/ingest-crash.test.ts',
];

/** The test files at a path: the file itself, or every *.test.ts below a folder. */
const testFiles = (path: string): string[] =>
  statSync(path).isDirectory() ? readdirSync(path).sort().flatMap((name) => testFiles(join(path, name))) : path.endsWith('.test.ts') ? [path] : [];

/**
 * The suites run a second time on the node:http front (KCS_HTTP=node; the first run takes the
 * default, uWebSockets.js on Node 20): the protocol and hostile-input cases, the fuzz of every route
 * family, and the HTTP suites of auth, storefront keys and search.
 */
const NODE_FRONT_SUITES = ['test/http', 'test/fuzz/fuzz.test.ts', 'test/api/auth.test.ts', 'test/api/storefront', 'test/search/api-routes.test.ts'];

function runTests(files: string[], env: Record<string, string> = {}): boolean {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status === 0;
}

function nodeFrontPass(): boolean {
  process.stdout.write('\n# node:http front pass (KCS_HTTP=node): the HTTP suites again\n');
  return runTests(NODE_FRONT_SUITES.flatMap(testFiles), { KCS_HTTP: 'node' });
}

/** One suite file on the cluster; its output is printed whole once it ends (two lanes run at once). */
function runOnCluster(file: string, nodes: string): Promise<boolean> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', file], {
      env: { ...process.env, KCS_TEST_REDIS_CLUSTER_NODES: nodes },
    });
    const output: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => output.push(c));
    child.stderr.on('data', (c: Buffer) => output.push(c));
    child.on('close', (code) => {
      process.stdout.write(`\n# cluster pass: ${file}\n${Buffer.concat(output).toString()}`);
      done(code === 0);
    });
  });
}

/**
 * The cluster suites in two lanes, each on a 6-node cluster of its own, emptied between files: a
 * serve process reads every tenant at start, so files sharing one cluster would each read all the
 * data of the files before them.
 */
async function clusterPass(): Promise<boolean> {
  process.stdout.write('\n# cluster pass: two 6-node Redis Clusters (3 masters with a replica each)\n');
  const queue = CLUSTER_SUITES.flatMap(testFiles);
  const total = queue.length;
  const failed: string[] = [];
  const lane = async () => {
    const cluster = await startRedisCluster();
    try {
      const { REDIS_CLUSTER_NODES } = redisEnv(cluster.target);
      for (let file = queue.shift(); file; file = queue.shift()) {
        if (!(await runOnCluster(file, REDIS_CLUSTER_NODES))) failed.push(file);
        await cluster.flush();
      }
    } finally {
      await cluster.stop();
    }
  };
  await Promise.all([lane(), lane()]);
  process.stdout.write(`\n# cluster pass: ${total - failed.length} of ${total} files passed${failed.length ? `; failed: ${failed.join(', ')}` : ''}\n`);
  return failed.length === 0;
}

const args = process.argv.slice(2);
let ok: boolean;
if (args[0] === '--cluster-only') ok = await clusterPass();
else if (args.length > 0) ok = runTests(args);
else ok = [runTests(testFiles('test')), nodeFrontPass(), await clusterPass()].every(Boolean);
process.exit(ok ? 0 : 1);
