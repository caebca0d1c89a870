// Ingest benchmark: bulk import through kcs serve (parse, validate, store the job) and kcs workers
// (the ingest worker's pipelined writes), the delta-sync path for an unchanged catalogue, and the
// single upsert under load. The baseline in the same run is the raw Redis ceiling: the same stored
// documents HSET again, auto-pipelined. Embedding is off (bench:embedding measures it with the
// defaults of `npm start`). Server, workers and redis-server each run in their own process; this
// process only generates load and reports. Everything talks over 127.0.0.1.
//
//   npm run bench:ingest                       100,000 products; single upserts 5 s after a 1 s warm-up
//   BENCH_PRODUCTS=20000 npm run bench:ingest  a smaller catalogue
//   BENCH_SECONDS=10 ...                       longer single-upsert runs
//   BENCH_CPU_PROF=<dir> ...                   CPU profiles of the serve and worker processes
import { availableParallelism } from 'node:os';
import { keys } from '../src/store/keys.js';
import { bulkPath, bulkProblems, bulkRun, IN_FLIGHT, type BulkResult } from './support/bulkApi.js';
import { bulkBodies, product } from './support/catalogue.js';
import { fmt, noteOtherLoad, positiveInt, runBench, type Undo } from './support/harness.js';
import { startKcs } from './support/kcs.js';
import { formatCpu, warmThenLoad, type LoadResult } from './support/load.js';
import { cpuMeter, peakRssMiB, redisVersion } from './support/proc.js';
import { startBenchStack } from './support/stack.js';

const SECONDS = positiveInt('BENCH_SECONDS', 5);
const WARMUP_SECONDS = 1;
const PRODUCTS = positiveInt('BENCH_PRODUCTS', 100_000);
const PER_REQUEST = 10_000; // MAX_BULK_ITEMS
const CEILING_PIPELINE = 1_000;
const CONNECTIONS = 64;
const TARGET = { create: 20_000, unchanged: 50_000 };

// Start-up, generation, the bulk runs, 4 autocannon runs, and a margin.
runBench('bench:ingest', (240 + 4 * (SECONDS + WARMUP_SECONDS + 10) + PRODUCTS * 0.002) * 1000, main);

async function main(undo: Undo): Promise<number> {
  const env = { KCS_EMBEDDER: 'none' };
  const { redis: backend, serve, api, tenantId, siteId } = await startBenchStack(undo, 'ingest', { env });
  const workers = await startKcs(undo, 'worker', { redis: backend.at, env });
  const { port, key } = serve;
  const direct = backend.store;
  const path = bulkPath(siteId);
  const watched = () => ({ serve: serve.pid, workers: workers.pid, ...backend.pids, bench: process.pid });

  console.log(
    `bench:ingest  ${availableParallelism()} cores, Node ${process.version}, ${redisVersion()}, ${backend.name}\n` +
      `${PRODUCTS.toLocaleString('en')} products in bulk requests of ${PER_REQUEST.toLocaleString('en')} (${IN_FLIGHT} in flight), embedding off; ` +
      `single upserts at ${CONNECTIONS} connections for ${SECONDS} s after ${WARMUP_SECONDS} s warm-up\n`,
  );

  // ---- 1. bulk create ------------------------------------------------------------------------
  const started = performance.now();
  const bodies = bulkBodies('p', PRODUCTS, PER_REQUEST);
  const megabytes = bodies.reduce((sum, b) => sum + b.length, 0) / 2 ** 20;
  console.log(`generated ${PRODUCTS.toLocaleString('en')} products, ${megabytes.toFixed(1)} MiB of NDJSON (${((megabytes * 2 ** 20) / PRODUCTS).toFixed(0)} bytes each), in ${fmt((performance.now() - started) / 1000, 1)} s`);
  const problems: string[] = [];
  const create = await bulkRun(api, path, bodies, watched());
  problems.push(...bulkProblems('bulk create', create.views, { created: PRODUCTS }));

  // ---- 2. the same catalogue again: unchanged sync_hash --------------------------------------
  const unchanged = await bulkRun(api, path, bodies, watched());
  problems.push(...bulkProblems('bulk unchanged', unchanged.views, { unchanged: PRODUCTS }));

  // ---- 3. the ceiling: raw pipelined HSET of the same doc strings ----------------------------
  const ids = await direct.zrange(keys.siteProducts(tenantId, siteId), '0', '-1');
  const docs: string[] = [];
  for (let i = 0; i < ids.length; i += CEILING_PIPELINE) {
    docs.push(...((await Promise.all(ids.slice(i, i + CEILING_PIPELINE).map((id) => direct.hget(keys.product(tenantId, id), 'doc')))) as string[]));
  }
  if (docs.length !== PRODUCTS) problems.push(`ceiling: the site holds ${docs.length} products, not ${PRODUCTS}`);
  const ceilingMeter = cpuMeter({ ...backend.pids, bench: process.pid });
  // One command per key, auto-pipelined: on a cluster the keys spread over the masters' slots.
  const ceilingKey = (k: number) => `bench:ceiling:product:${ids[k]}`;
  for (let i = 0; i < docs.length; i += CEILING_PIPELINE) {
    const batch = Array.from({ length: Math.min(docs.length, i + CEILING_PIPELINE) - i }, (_, j) => i + j);
    await Promise.all(batch.map((k) => direct.hset(ceilingKey(k), 'doc', docs[k])));
  }
  const ceiling = ceilingMeter();
  const ceilingRate = docs.length / ceiling.wallSeconds;
  console.log(`3. ceiling (HSET auto-pipelined, ${CEILING_PIPELINE} at once): ${fmt(ceilingRate, 0)} products/s in ${fmt(ceiling.wallSeconds, 2)} s  (CPU ${formatCpu(ceiling.cores)})\n`);
  await Promise.all(ids.map((_, k) => direct.unlink(ceilingKey(k))));

  // ---- 4. single upsert over HTTP --------------------------------------------------------------
  const singles: [string, LoadResult][] = [];
  const headers = { host: api.host, authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const upserts = async (name: string, status: number, body: (n: number) => string) => {
    let n = 0;
    const options = {
      url: `http://127.0.0.1:${port}`, connections: CONNECTIONS,
      requests: [{ method: 'POST' as const, path: `/api/knowledge/products?site_id=${siteId}`, headers, setupRequest: (req: object) => ({ ...req, body: body(n++) }) }],
    };
    const result = await warmThenLoad(`${name}:`, options, WARMUP_SECONDS, SECONDS, watched());
    if (result.errors > 0 || Object.keys(result.statuses).some((s) => Number(s) !== status)) problems.push(`${name}: statuses ${JSON.stringify(result.statuses)} (all ${status} expected)`);
    singles.push([`${name} (c=${CONNECTIONS})`, result]);
  };
  const single = (i: number) => JSON.stringify(product('s', i));
  await upserts('4. single upsert, creates', 201, single);
  // Re-posting what was created (identical bodies: 'unchanged'); the ids come from the site's
  // external_id index, as autocannon may have built a last request per connection it never sent.
  const known = (await direct.hkeys(keys.siteExternalIds(tenantId, siteId))).filter((e) => e.startsWith('s-')).map((e) => Number(e.slice(2)));
  await upserts('4. single upsert, re-posts of known ids (unchanged)', 200, (n) => single(known[n % known.length]));

  // ---- the summary -------------------------------------------------------------------------------
  const verdict = (value: number, target: number) => `≥ ${target.toLocaleString('en')}/s: **${value >= target ? 'PASS' : 'MISS'}**`;
  const perProduct = (r: BulkResult) =>
    `CPU per product: serve ${micros(r.cpuSeconds.serve)}, workers ${micros(r.cpuSeconds.workers)}, redis ${micros(redisCpu(r))}`;
  const rows: [string, string, string][] = [
    [`1. bulk create, ${PRODUCTS.toLocaleString('en')} products`, `${fmt(create.rate, 0)} products/s (${fmt(create.seconds, 2)} s)`, verdict(create.rate, TARGET.create)],
    ['   upload + validate / worker write', `${fmt(create.uploadSeconds, 2)} s / ${fmt(create.writeSeconds, 2)} s; ${perProduct(create)}`, ''],
    ['2. bulk again, unchanged sync_hash', `${fmt(unchanged.rate, 0)} products/s (${fmt(unchanged.seconds, 2)} s)`, verdict(unchanged.rate, TARGET.unchanged)],
    ['   upload + validate / worker write', `${fmt(unchanged.uploadSeconds, 2)} s / ${fmt(unchanged.writeSeconds, 2)} s; ${perProduct(unchanged)}`, ''],
    ['3. baseline: the ceiling, pipelined HSET of the doc strings', `${fmt(ceilingRate, 0)} products/s`, 'ceiling'],
    ...singles.map(([name, r]): [string, string, string] => [name, `${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms`, '']),
    ['peak RSS, kcs serve', rss(serve.pid), ''],
    ['peak RSS, kcs workers', rss(workers.pid), ''],
  ];
  console.log(['', '| measurement | figure | target |', '|---|---:|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n'));
  const bulkCores = [create, unchanged].map((r): Record<string, number> => ({ other: (r.cpuSeconds.other ?? 0) / r.seconds }));
  noteOtherLoad([...bulkCores, ceiling.cores, ...singles.map(([, r]) => r.cpu)]);
  if (process.env.BENCH_CPU_PROF) console.log(`\nCPU profiles (written as the children exit): ${process.env.BENCH_CPU_PROF}`);
  if (problems.length > 0) {
    console.error(`\nthe figures above are not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    return 1;
  }
  return 0;
}

/** CPU seconds of every redis-server process of the run (one, or a cluster's six). */
const redisCpu = (r: BulkResult): number =>
  Object.entries(r.cpuSeconds).filter(([name]) => name.startsWith('redis')).reduce((sum, [, seconds]) => sum + seconds, 0);

const rss = (pid: number | undefined) => {
  const mib = peakRssMiB(pid);
  return mib === null ? 'n/a' : `${fmt(mib, 0)} MiB`;
};

const micros = (seconds: number | undefined) => (seconds === undefined ? 'n/a' : `${fmt((seconds * 1e6) / PRODUCTS, 1)} µs`);
