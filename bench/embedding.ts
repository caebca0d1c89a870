// Embedding benchmark with the README's defaults: `kcs start` (embedded redis-server, the local
// model, the embed worker's low-priority threads), as `npm start` runs it.
//
//   npm run bench:embedding                      about 2 minutes
//   BENCH_PRODUCTS=50000 npm run bench:embedding a smaller bulk catalogue (default 100,000)
//   BENCH_CPU_PROF=<dir> ...                     CPU profiles of every process of the `kcs start`s
//
// 1. 1,000 new products in one bulk request, until every one is embedded: products/s; the baseline
//    in the same run is the time until the same request's products were stored.
// 2. Bulk create of BENCH_PRODUCTS new products (10,000 per request, 3 in flight) while their
//    embeddings queue up behind, then the same again unchanged; and both before and after, with
//    KCS_EMBEDDER=none on other fresh `kcs start`s: the baseline of what embedding behind costs,
//    bracketing it so that the VM's drift in speed shows instead of being charged to embedding.
import { Api, bulkPath, bulkProblems, bulkRun, embedRun, type BulkResult } from './support/bulkApi.js';
import { bulkBodies } from './support/catalogue.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { startKcs, type Kcs } from './support/kcs.js';
import { formatCpu } from './support/load.js';

const PRODUCTS = positiveInt('BENCH_PRODUCTS', 100_000);
const EMBED_PRODUCTS = 1_000;
const PER_REQUEST = 10_000;
const TARGET = { embedded: 25, create: 15_000, unchanged: 50_000 };

runBench('bench:embedding', (300 + PRODUCTS * 0.002) * 1000, main);

async function main(undo: Undo): Promise<number> {
  // The embedding-off baseline brackets the run, before and after: a virtual machine's speed can
  // drift by a quarter within minutes, and one baseline before would charge embedding with that drift.
  const before = await embeddingOffRun(undo);
  console.log(`   (2.) baseline before, embedding off: ${describePair(before)}`);

  const kcs = await startKcs(undo);
  const api = new Api(kcs.port, kcs.host, kcs.key);
  undo(() => api.close());
  const path = bulkPath(await api.createSite());
  // Loads the model in every thread (not timed): texts of their own, so nothing measured is cached.
  await embedRun(api, path, 'warm', 900_000, 32);
  const embedded = await embedRun(api, path, 'e', 200_000, EMBED_PRODUCTS, kcs.pids());
  const embeddedRate = EMBED_PRODUCTS / embedded.seconds;
  console.log(`1. ${EMBED_PRODUCTS} new products in one bulk call, all embedded: ${fmt(embedded.seconds, 1)} s, ${fmt(embeddedRate, 1)} products/s (stored after ${fmt(embedded.storedSeconds, 2)} s; ${formatCpu(embedded.cpu)})`);

  const behind = await bulkPair(kcs, api, path);
  console.log(`2. embedding behind: ${describePair(behind)}`);
  const backlog = behind.create.views.reduce((sum, v) => sum + v.embedding.pending, 0);
  await kcs.stop();
  const after = await embeddingOffRun(undo);
  console.log(`   (2.) baseline after, embedding off: ${describePair(after)}`);

  const verdict = (value: number, target: number) => (value >= target ? '**PASS**' : '**MISS**');
  console.log(`
| measurement (\`npm start\` defaults) | figure | target |
|---|---:|---|
| 1. ${EMBED_PRODUCTS.toLocaleString('en')} new products in one bulk call, all embedded | ${fmt(embeddedRate, 1)} products/s (${fmt(embedded.seconds, 1)} s) | ≥ ${TARGET.embedded}/s: ${verdict(embeddedRate, TARGET.embedded)} |
| 1. baseline: the same products stored | ${fmt(embedded.storedSeconds, 2)} s |  |
| 2. bulk create, ${PRODUCTS.toLocaleString('en')} products, embedding behind | ${fmt(behind.create.rate, 0)} products/s | ≥ ${TARGET.create.toLocaleString('en')}/s: ${verdict(behind.create.rate, TARGET.create)} |
| 2. bulk unchanged, embedding behind | ${fmt(behind.unchanged.rate, 0)} products/s | ≥ ${TARGET.unchanged.toLocaleString('en')}/s: ${verdict(behind.unchanged.rate, TARGET.unchanged)} |
| 2. baseline, embedding off, before / after: create | ${fmt(before.create.rate, 0)} / ${fmt(after.create.rate, 0)} products/s |  |
| 2. baseline, embedding off, before / after: unchanged | ${fmt(before.unchanged.rate, 0)} / ${fmt(after.unchanged.rate, 0)} products/s |  |
| embeddings still queued after the create run | ${backlog.toLocaleString('en')} |  |
`);
  return embeddedRate >= TARGET.embedded && behind.create.rate >= TARGET.create && behind.unchanged.rate >= TARGET.unchanged ? 0 : 1;
}

/** Step 2 on a fresh `kcs start` with KCS_EMBEDDER=none. */
async function embeddingOffRun(undo: Undo): Promise<BulkPair> {
  const off = await startKcs(undo, 'start', { env: { KCS_EMBEDDER: 'none' } });
  const api = new Api(off.port, off.host, off.key);
  undo(() => api.close());
  const run = await bulkPair(off, api, bulkPath(await api.createSite()));
  await off.stop();
  return run;
}

/** Each process's CPU seconds as µs per product. */
const perProduct = (cpu: Record<string, number>) =>
  Object.entries(cpu).map(([name, s]) => `${name} ${fmt((s / PRODUCTS) * 1e6, 1)} µs`).join(', ');
/** The cores each process used over a run (1 = one core). */
const cores = (run: BulkResult) => formatCpu(Object.fromEntries(Object.entries(run.cpuSeconds).map(([name, s]) => [name, s / run.seconds])));
const describePair = ({ create, unchanged }: BulkPair) =>
  `create ${fmt(create.rate, 0)}/s (${cores(create)}; per product ${perProduct(create.cpuSeconds)}), unchanged ${fmt(unchanged.rate, 0)}/s (${cores(unchanged)})`;

type BulkPair = { create: BulkResult; unchanged: BulkResult };

/** Bulk create of PRODUCTS new products, then the same bodies again (unchanged). */
async function bulkPair(kcs: Kcs, api: Api, path: string): Promise<BulkPair> {
  const bodies = bulkBodies('p', PRODUCTS, PER_REQUEST);
  const create = await bulkRun(api, path, bodies, kcs.pids());
  const unchanged = await bulkRun(api, path, bodies, kcs.pids());
  const problems = [...bulkProblems('bulk create', create.views, { created: PRODUCTS }), ...bulkProblems('bulk unchanged', unchanged.views, { unchanged: PRODUCTS })];
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { create, unchanged };
}
