// Ingest benchmark: bulk import through kcs serve (parse, validate, store the job) and kcs workers
// (the ingest worker's pipelined writes), the delta-sync path for an unchanged catalogue, the raw
// Redis ceiling, the single upsert under load, and embedding throughput with the local model.
// Server, workers and redis-server each run in their own process; this process only generates
// load and reports. Everything talks over 127.0.0.1.
//
//   npm run bench:ingest                       5 s per autocannon run after a 1 s warm-up
//   BENCH_SECONDS=10 npm run bench:ingest      longer single-upsert runs
//   BENCH_PRODUCTS=20000 npm run bench:ingest  a smaller bulk catalogue (default 100,000)
//   BENCH_EMBED_PRODUCTS=500 ...               a smaller embedding run (default 2,000)
//   BENCH_CPU_PROF=<dir> ...                   CPU profiles of the server and worker processes
//   BENCH_CLUSTER=1 ...                        on a private 6-node Redis Cluster (3 masters with a
//                                              replica each) instead of one redis-server
//   BENCH_SEARCH_REPLICA=1 ...                 the serve process follows the tenant for search
//                                              (indexes every product written) during the runs
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ProductInput } from '../src/domain/products.js';
import { embeddingTexts } from '../src/domain/productTexts.js';
import { scanKeys } from '../src/store/redis.js';
import { keys } from '../src/store/keys.js';
import { WORKER_NODE_OPTIONS } from '../workers/index.js';
import { Api, bulkRun, embedRun, IN_FLIGHT, type BulkResult, type JobView } from './support/bulkApi.js';
import { bulkBodies, product, titleToken } from './support/catalogue.js';
import { ChildTarget } from './support/child.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { formatCpu, load, type LoadResult } from './support/load.js';
import { cpuMeter, peakRssMiB, redisVersion } from './support/proc.js';
import { benchRedisEnv, CLUSTER, openPrivateRedis } from './support/redisServers.js';
import { cpuProfileArgs } from './support/cpuProfile.js';

const HOST = '127.0.0.1';
const SECONDS = positiveInt('BENCH_SECONDS', 5);
const WARMUP_SECONDS = 1;
const PRODUCTS = positiveInt('BENCH_PRODUCTS', 100_000);
const PER_REQUEST = 10_000; // MAX_BULK_ITEMS
const CEILING_PIPELINE = 1_000;
const CONNECTIONS = 64;
const EMBED_PRODUCTS = positiveInt('BENCH_EMBED_PRODUCTS', 2_000);
const CPU_PROF = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : null;
const SEARCH_REPLICA = process.env.BENCH_SEARCH_REPLICA === '1';
const TARGET = { create: 20_000, unchanged: 50_000 };

// Start-up, generation, bulk runs, 4 autocannon runs, the embedding runs, and a margin.
runBench('bench:ingest', (240 + 4 * (SECONDS + WARMUP_SECONDS + 10) + EMBED_PRODUCTS * 0.15 + PRODUCTS * 0.002) * 1000, main);

async function main(undo: Undo): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'kcs-bench-'));
  undo(() => rmSync(dir, { recursive: true, force: true }));
  // One folder per process role; a profile is written when its process exits.
  const profiled = (name: string): string[] => (CPU_PROF ? cpuProfileArgs(join(CPU_PROF, name)) : []);

  const backend = await openPrivateRedis(undo, 'ingest', { cluster: CLUSTER });
  const { store: direct } = backend;
  const env = { ...benchRedisEnv(backend.at), BENCH_DATA_DIR: dir, KCS_EMBEDDER: 'none' };
  const serve = new ChildTarget<{ type: 'ready'; port: number; key: string; siteId: string; tenant: string; tenantId: string }>(
    'kcs serve', new URL('./support/server.ts', import.meta.url), env, undefined, profiled('serve'),
  );
  undo(() => serve.stop());
  const workersEntry = new URL('./support/workers.ts', import.meta.url);
  // Worker processes run with the node options `kcs start` gives them.
  let worker = new ChildTarget('kcs workers', workersEntry, env, undefined, [...WORKER_NODE_OPTIONS, ...profiled('workers')]);
  undo(() => worker.stop());
  const { port, key, siteId, tenant, tenantId } = await serve.ready;
  await worker.ready;

  const api = new Api(port, `${tenant}.localhost:${port}`, key);
  undo(() => api.close());
  const bulkPath = `/api/knowledge/products/bulk?site_id=${siteId}`;
  if (SEARCH_REPLICA) {
    // A tenant created after the serve process started joins its search replica on its first
    // search; from then on the process reads and indexes every product the workers write.
    const reply = await api.call('POST', '/api/knowledge/search/products', Buffer.from('{"query":"warm"}'), 'application/json');
    if (reply.status !== 200) throw new Error(`search answered ${reply.status}: ${reply.body.slice(0, 300)}`);
  }
  const watched = () => ({ serve: serve.proc.pid, workers: worker.proc.pid, ...backend.pids, bench: process.pid });

  console.log(
    `bench:ingest  ${availableParallelism()} cores, Node ${process.version}, ${redisVersion()}, ${backend.name}\n` +
      `${PRODUCTS.toLocaleString('en')} products in bulk requests of ${PER_REQUEST.toLocaleString('en')} (${IN_FLIGHT} in flight), ` +
      `search replica in serve ${SEARCH_REPLICA ? 'following the tenant' : 'off for the tenant'}, ` +
      `single upsert at ${CONNECTIONS} connections for ${SECONDS} s after ${WARMUP_SECONDS} s warm-up, ` +
      `${EMBED_PRODUCTS.toLocaleString('en')} products embedded\n`,
  );

  // ---- 1. bulk create, embedding off -------------------------------------------------------
  const started = performance.now();
  const bodies = bulkBodies('p', PRODUCTS, PER_REQUEST);
  const megabytes = bodies.reduce((sum, b) => sum + b.length, 0) / 2 ** 20;
  console.log(`generated ${PRODUCTS.toLocaleString('en')} products, ${megabytes.toFixed(1)} MiB of NDJSON (${((megabytes * 2 ** 20) / PRODUCTS).toFixed(0)} bytes each), in ${fmt((performance.now() - started) / 1000, 1)} s`);

  const problems: string[] = [];
  const create = await bulkRun(api, bulkPath, bodies, watched());
  check(problems, 'bulk create', create.views, { created: PRODUCTS });
  report('1. bulk create (embedding off)', create);
  // The serve process's replica catches up after the jobs complete: how long until the last
  // product is found, and the next run starts with nothing left to index.
  const replicaLag = SEARCH_REPLICA ? await searchableAfter(api, PRODUCTS - 1, create) : null;
  if (replicaLag !== null) console.log(`   the last product was found by keyword search ${fmt(replicaLag, 2)} s after the last job completed\n`);

  // ---- 2. the same catalogue again: unchanged sync_hash --------------------------------------
  const unchanged = await bulkRun(api, bulkPath, bodies, watched());
  check(problems, 'bulk unchanged', unchanged.views, { unchanged: PRODUCTS });
  report('2. bulk unchanged (same sync_hash)', unchanged);

  // ---- 3. the ceiling: raw pipelined HSET of the same doc strings ----------------------------
  const ids = await direct.zrange(keys.siteProducts(tenantId, siteId), '0', '-1');
  const docs: string[] = [];
  for (let i = 0; i < ids.length; i += CEILING_PIPELINE) {
    const pipeline = direct.pipeline();
    for (const id of ids.slice(i, i + CEILING_PIPELINE)) pipeline.hget(keys.product(tenantId, id), 'doc');
    for (const [error, doc] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      docs.push(doc as string);
    }
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
  const upsertPath = `/api/knowledge/products?site_id=${siteId}`;
  const headers = { host: api.host, authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const upsert = (body: (n: number) => string) => {
    let n = 0;
    return (seconds: number, pids: Record<string, number | undefined>) =>
      load({
        url: `http://${HOST}:${port}`, connections: CONNECTIONS, duration: seconds,
        requests: [{ method: 'POST', path: upsertPath, headers, setupRequest: (req) => ({ ...req, body: body(n++) }) }],
      }, pids);
  };
  const single = (i: number) => JSON.stringify(product('s', i));
  const creates = upsert(single);
  await creates(WARMUP_SECONDS, {});
  const singleCreate = await creates(SECONDS, watched());
  printLoad('4. single upsert, creates', singleCreate);
  if (!only(singleCreate, 201)) problems.push(`single upsert creates: statuses ${JSON.stringify(singleCreate.statuses)} (all 201 expected)`);
  // Re-posting what was created (identical bodies: 'unchanged'); the ids come from the site's
  // external_id index, as autocannon may have built a last request per connection it never sent.
  const known = (await direct.hkeys(keys.siteExternalIds(tenantId, siteId))).filter((e) => e.startsWith('s-')).map((e) => Number(e.slice(2)));
  const updates = upsert((n) => single(known[n % known.length]));
  await updates(WARMUP_SECONDS, {});
  const singleUpdate = await updates(SECONDS, watched());
  printLoad('4. single upsert, re-posts of known ids', singleUpdate);
  if (!only(singleUpdate, 200)) problems.push(`single upsert re-posts: statuses ${JSON.stringify(singleUpdate.statuses)} (all 200 expected)`);

  const rss: Record<string, number | null> = { 'kcs serve': null, 'kcs workers (embedding off)': peakRssMiB(worker.proc.pid) };

  // ---- 5. embedding with the local model -------------------------------------------------------
  await worker.stop();
  worker = new ChildTarget('kcs workers', workersEntry, { ...env, KCS_EMBEDDER: 'local' }, undefined, [...WORKER_NODE_OPTIONS, ...profiled('workers-local')]);
  await worker.ready;
  // Warm-up: loads the model (not measured); texts of their own, so nothing measured is cached.
  await embedRun(api, bulkPath, 'ew', 900_000, 16);
  const cacheEntries = async () => (await scanKeys(direct, 'kcs:emb:*')).length;
  const texts = new Set<string>();
  for (let i = 0; i < EMBED_PRODUCTS; i++) {
    const t = embeddingTexts(product('e', 200_000 + i) as unknown as ProductInput);
    for (const text of [t.description, t.anchor]) if (text) texts.add(text);
  }
  const cachedBefore = await cacheEntries();
  const distinct = await embedRun(api, bulkPath, 'e', 200_000, EMBED_PRODUCTS, watched());
  const computed = (await cacheEntries()) - cachedBefore;
  check(problems, 'embed distinct', [distinct.view], { created: EMBED_PRODUCTS });
  if (distinct.view.embedding.done !== EMBED_PRODUCTS) problems.push(`embed distinct: ${distinct.view.embedding.done} embedded, not ${EMBED_PRODUCTS}`);
  if (computed !== texts.size) problems.push(`embed distinct: ${computed} texts entered the cache, ${texts.size} expected`);
  const textsRate = texts.size / distinct.seconds;
  console.log(
    `5. embedding, distinct texts: ${EMBED_PRODUCTS} products (${texts.size} texts) in ${fmt(distinct.seconds, 1)} s (stored after ${fmt(distinct.storedSeconds, 2)} s): ` +
      `${fmt(textsRate, 0)} texts/s, ${fmt(EMBED_PRODUCTS / distinct.seconds, 0)} products/s  (CPU ${formatCpu(distinct.cpu)})`,
  );
  // The same texts under other external_ids: every text is a cache hit.
  const cached = await embedRun(api, bulkPath, 'c', 200_000, EMBED_PRODUCTS, watched());
  const computedAgain = (await cacheEntries()) - cachedBefore - computed;
  check(problems, 'embed cached', [cached.view], { created: EMBED_PRODUCTS });
  if (cached.view.embedding.done !== EMBED_PRODUCTS) problems.push(`embed cached: ${cached.view.embedding.done} embedded, not ${EMBED_PRODUCTS}`);
  if (computedAgain !== 0) problems.push(`embed cached: ${computedAgain} texts were computed again`);
  console.log(
    `5. embedding, cached texts:   ${EMBED_PRODUCTS} products in ${fmt(cached.seconds, 2)} s (stored after ${fmt(cached.storedSeconds, 2)} s): ` +
      `${fmt(EMBED_PRODUCTS / cached.seconds, 0)} products/s  (CPU ${formatCpu(cached.cpu)})\n`,
  );
  rss['kcs serve'] = peakRssMiB(serve.proc.pid);
  rss['kcs workers (local embedder)'] = peakRssMiB(worker.proc.pid);

  // ---- the summary -------------------------------------------------------------------------------
  const verdict = (value: number, target: number) => `≥ ${target.toLocaleString('en')}/s: **${value >= target ? 'PASS' : 'MISS'}**`;
  const rows: [string, string, string][] = [
    [`1. bulk create, ${PRODUCTS.toLocaleString('en')} products (embedding off)`, `${fmt(create.rate, 0)} products/s (${fmt(create.seconds, 2)} s)`, verdict(create.rate, TARGET.create)],
    ['   upload + validate (first byte → last 202)', `${fmt(create.uploadSeconds, 2)} s; serve CPU ${fmt(create.cpuSeconds.serve, 1)} s`, ''],
    ['   worker write (first 202 → last job completed)', `${fmt(create.writeSeconds, 2)} s; workers CPU ${fmt(create.cpuSeconds.workers, 1)} s, redis ${fmt(redisCpu(create), 1)} s`, ''],
    ...(replicaLag === null ? [] : [['   search replica: last product found after the last job completed', `${fmt(replicaLag, 2)} s`, ''] as [string, string, string]]),
    [`2. bulk again, unchanged sync_hash`, `${fmt(unchanged.rate, 0)} products/s (${fmt(unchanged.seconds, 2)} s)`, verdict(unchanged.rate, TARGET.unchanged)],
    ['   upload + validate / worker write', `${fmt(unchanged.uploadSeconds, 2)} s / ${fmt(unchanged.writeSeconds, 2)} s; CPU serve ${fmt(unchanged.cpuSeconds.serve, 1)} s, workers ${fmt(unchanged.cpuSeconds.workers, 1)} s, redis ${fmt(redisCpu(unchanged), 1)} s`, ''],
    [`3. ceiling: pipelined HSET of the doc strings`, `${fmt(ceilingRate, 0)} products/s`, 'ceiling'],
    [`4. single upsert, creates (c=${CONNECTIONS})`, `${fmt(singleCreate.rps, 0)} req/s, p50 ${fmt(singleCreate.p50, 2)} ms, p99 ${fmt(singleCreate.p99, 2)} ms`, ''],
    [`4. single upsert, re-posts: unchanged (c=${CONNECTIONS})`, `${fmt(singleUpdate.rps, 0)} req/s, p50 ${fmt(singleUpdate.p50, 2)} ms, p99 ${fmt(singleUpdate.p99, 2)} ms`, ''],
    [`5. embedding, ${EMBED_PRODUCTS.toLocaleString('en')} products, distinct texts`, `${fmt(textsRate, 0)} texts/s, ${fmt(EMBED_PRODUCTS / distinct.seconds, 0)} products/s (${fmt(distinct.seconds, 1)} s; stored after ${fmt(distinct.storedSeconds, 1)} s)`, ''],
    [`5. embedding, ${EMBED_PRODUCTS.toLocaleString('en')} products, cached texts`, `${fmt(EMBED_PRODUCTS / cached.seconds, 0)} products/s (${fmt(cached.seconds, 2)} s; stored after ${fmt(cached.storedSeconds, 2)} s)`, ''],
    ...Object.entries(rss).map(([name, mib]): [string, string, string] => [`peak RSS, ${name}`, mib === null ? 'n/a' : `${fmt(mib, 0)} MiB`, '']),
  ];
  console.log(['| measurement | figure | target |', '|---|---:|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n'));

  const busiest = Math.max(
    ...[create, unchanged].map((r) => (r.cpuSeconds.other ?? 0) / r.seconds),
    ...[ceiling.cores, singleCreate.cpu, singleUpdate.cpu, distinct.cpu, cached.cpu].map((cpu) => cpu.other ?? 0),
  );
  if (busiest > 0.1) {
    console.log(
      `\nnote: other processes took up to ${(busiest * 100).toFixed(0)}% of a core (of ${availableParallelism()}) during a run: ` +
        'these are not the figures of an otherwise idle machine',
    );
  }
  if (CPU_PROF) console.log(`\nCPU profiles (written as the children exit): ${CPU_PROF}`);
  if (problems.length > 0) {
    console.error(`\nthe figures above are not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    return 1;
  }
  return 0;
}

// ---- the runs ------------------------------------------------------------------------------------

/** One bulk request of `count` products, timed until its embeddings are done (embedding.pending 0). */
/** Seconds from the run's last completed job until keyword search finds product `i` (polled every 20 ms). */
async function searchableAfter(api: Api, i: number, run: BulkResult): Promise<number> {
  const lastFinished = Math.max(...run.views.map((v) => Date.parse(v.finished_at ?? '')));
  const query = Buffer.from(JSON.stringify({ query: titleToken(i), mode: 'keyword', limit: 1 }));
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    const reply = await api.call('POST', '/api/knowledge/search/products', query, 'application/json');
    const hits = (JSON.parse(reply.body) as { hits?: { product: { external_id: string } }[] }).hits ?? [];
    if (hits[0]?.product.external_id === `p-${i}`) return (Date.now() - lastFinished) / 1000;
  }
  throw new Error(`product p-${i} was not found by search within 120 s`);
}

function check(problems: string[], name: string, views: JobView[], expected: Partial<JobView['counts']>): void {
  const sum = (field: keyof JobView['counts']) => views.reduce((s, v) => s + v.counts[field], 0);
  for (const view of views) if (view.status !== 'completed') problems.push(`${name}: job ${view.id} is ${view.status}`);
  for (const field of ['created', 'updated', 'unchanged', 'failed', 'rejected'] as const) {
    const want = expected[field] ?? 0;
    if (sum(field) !== want) problems.push(`${name}: counts.${field} is ${sum(field)}, ${want} expected`);
  }
}

/** CPU seconds of every redis-server process of the run (one, or a cluster's six). */
const redisCpu = (r: BulkResult): number =>
  Object.entries(r.cpuSeconds).filter(([name]) => name.startsWith('redis')).reduce((sum, [, seconds]) => sum + seconds, 0);

function report(name: string, r: BulkResult): void {
  const perProduct = (s: number | undefined) => (s === undefined ? 'n/a' : `${fmt((s * 1e6) / PRODUCTS, 0)} µs`);
  console.log(
    `${name}: ${fmt(r.rate, 0)} products/s, ${fmt(r.seconds, 2)} s end to end; upload + validate ${fmt(r.uploadSeconds, 2)} s, ` +
      `worker write ${fmt(r.writeSeconds, 2)} s (after the first 202)\n` +
      `   CPU per product: serve ${perProduct(r.cpuSeconds.serve)}, workers ${perProduct(r.cpuSeconds.workers)}, ` +
      `redis-server ${perProduct(redisCpu(r))}, bench ${perProduct(r.cpuSeconds.bench)}, other ${perProduct(r.cpuSeconds.other)}\n`,
  );
}

function printLoad(name: string, r: LoadResult): void {
  console.log(
    `${name}: ${fmt(r.rps, 0)} req/s  p50 ${fmt(r.p50, 3)} ms  p99 ${fmt(r.p99, 3)} ms  ` +
      `statuses ${JSON.stringify(r.statuses)}  errors ${r.errors}  (CPU ${formatCpu(r.cpu)})`,
  );
}

const only = (r: LoadResult, status: number) => r.errors === 0 && Object.keys(r.statuses).every((s) => Number(s) === status);
