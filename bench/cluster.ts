// Cluster benchmark: the same ingest runs on one redis-server (the baseline) and on a private
// 6-node Redis Cluster (3 masters, one replica each), with and without the replica acknowledgement
// of answered writes (WAIT, on by default on a cluster), in one run, on this machine. kcs serve,
// kcs workers and every redis-server run in their own processes.
//
//   npm run bench:cluster                        50,000 products per bulk run, 5 s of single upserts
//   BENCH_PRODUCTS=100000 npm run bench:cluster  a bigger catalogue
//   BENCH_SECONDS=10 npm run bench:cluster       longer single-upsert runs
import { availableParallelism } from 'node:os';
import { bulkPath, bulkProblems, bulkRun, IN_FLIGHT, type BulkResult } from './support/bulkApi.js';
import { bulkBodies, product } from './support/catalogue.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { startKcs } from './support/kcs.js';
import { load, type LoadResult } from './support/load.js';
import { redisVersion } from './support/proc.js';
import { startBenchStack } from './support/stack.js';

const SECONDS = positiveInt('BENCH_SECONDS', 5);
const PRODUCTS = positiveInt('BENCH_PRODUCTS', 50_000);
const PER_REQUEST = 10_000;
const CONNECTIONS = 64;

interface Figures {
  create: BulkResult;
  unchanged: BulkResult;
  upserts: LoadResult;
}

runBench('bench:cluster', (300 + 3 * (PRODUCTS * 0.0015 + 2 * SECONDS + 30)) * 1000, main);

async function main(undo: Undo): Promise<number> {
  console.log(
    `bench:cluster  ${availableParallelism()} cores, Node ${process.version}, ${redisVersion()}\n` +
      `${PRODUCTS.toLocaleString('en')} products in bulk requests of ${PER_REQUEST.toLocaleString('en')} (${IN_FLIGHT} in flight), created then ` +
      `posted again unchanged; single upserts (creates) at ${CONNECTIONS} connections for ${SECONDS} s; embedding off\n`,
  );
  const bodies = bulkBodies('p', PRODUCTS, PER_REQUEST);

  const results: [string, Figures][] = [];
  results.push(['one redis-server (baseline)', await measure(undo, bodies, false, {})]);
  for (const replicas of [1, 0]) {
    const name = replicas ? '3-master cluster, writes confirmed by the replica (default)' : '3-master cluster, KCS_WAIT_REPLICAS=0';
    results.push([name, await measure(undo, bodies, true, { KCS_WAIT_REPLICAS: String(replicas) })]);
  }

  const [, base] = results[0];
  const ratio = (value: number, baseline: number) => `${fmt(value / baseline, 2)}×`;
  const rows = results.map(([name, f]) => [
    name,
    `${fmt(f.create.rate, 0)}/s (${ratio(f.create.rate, base.create.rate)})`,
    `${fmt(f.unchanged.rate, 0)}/s (${ratio(f.unchanged.rate, base.unchanged.rate)})`,
    `${fmt(f.upserts.rps, 0)} req/s, p50 ${fmt(f.upserts.p50, 2)} ms, p99 ${fmt(f.upserts.p99, 2)} ms (${ratio(f.upserts.rps, base.upserts.rps)})`,
  ]);
  console.log(['', '| Redis | bulk create | bulk unchanged | single upsert, creates |', '|---|---:|---:|---:|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n'));
  const failed = results.flatMap(([name, f]) => [
    ...bulkProblems(`${name}, bulk create`, f.create.views, { created: PRODUCTS }),
    ...bulkProblems(`${name}, bulk unchanged`, f.unchanged.views, { unchanged: PRODUCTS }),
    ...(Object.keys(f.upserts.statuses).some((s) => s !== '201') || f.upserts.errors > 0 ? [`${name}: single upserts answered ${JSON.stringify(f.upserts.statuses)}, ${f.upserts.errors} errors`] : []),
  ]);
  if (failed.length > 0) {
    console.error(`\nthe figures above are not valid:\n${failed.map((p) => `  - ${p}`).join('\n')}`);
    return 1;
  }
  return 0;
}

/** kcs serve and workers on a Redis of their own: bulk create, bulk unchanged, then single upserts; all stopped after. */
async function measure(undo: Undo, bodies: Buffer[], cluster: boolean, settings: Record<string, string>): Promise<Figures> {
  const env = { KCS_EMBEDDER: 'none', ...settings };
  const { redis, serve, api, siteId } = await startBenchStack(undo, cluster ? 'cluster' : 'cluster-baseline', { env, cluster });
  const workers = await startKcs(undo, 'worker', { redis: redis.at, env });
  try {
    const watched = { serve: serve.pid, workers: workers.pid, ...redis.pids, bench: process.pid };
    const path = bulkPath(siteId);
    const create = await bulkRun(api, path, bodies, watched);
    const unchanged = await bulkRun(api, path, bodies, watched);
    api.close();
    let n = 0;
    const upserts = await load({
      url: `http://127.0.0.1:${serve.port}`, connections: CONNECTIONS, duration: SECONDS,
      requests: [{
        method: 'POST', path: `/api/knowledge/products?site_id=${siteId}`,
        headers: { host: serve.host, authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify(product('s', n++)) }),
      }],
    }, watched);
    console.log(
      `${redis.name}${settings.KCS_WAIT_REPLICAS === '0' ? ', KCS_WAIT_REPLICAS=0' : ''}: bulk create ${fmt(create.rate, 0)} products/s (${fmt(create.seconds, 2)} s), ` +
        `unchanged ${fmt(unchanged.rate, 0)} products/s, single upserts ${fmt(upserts.rps, 0)} req/s p99 ${fmt(upserts.p99, 2)} ms`,
    );
    return { create, unchanged, upserts };
  } finally {
    // The next Redis runs alone.
    await Promise.all([serve.stop(), workers.stop()]);
    await redis.stop();
  }
}
