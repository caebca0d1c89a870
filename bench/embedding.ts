// Embedding benchmark with the README's defaults: `kcs start` (embedded redis-server, the local
// model, the embed worker's low-priority threads), as `npm start` runs it.
//
//   npm run bench:embedding                      about 2 minutes
//   BENCH_PRODUCTS=50000 npm run bench:embedding a smaller bulk catalogue (default 100,000)
//   BENCH_CPU_PROF=<dir> ...                     CPU profiles of every process of the three `kcs start`s
//                                                (npm run profile:summary -- <dir>: by function and line)
//   BENCH_REPLICA=1 ...                          step 2 with the tenant's search replica live (one
//                                                search first, as on a restarted server); the
//                                                unchanged run waits until the replica caught up
//   BENCH_STEP=2-off npm run bench:embedding     only step 2's embedding-off pair, with each
//                                                process's CPU per product: to compare two builds
//                                                in alternating runs (the VM's speed drifts)
//   BENCH_INSTRUCTIONS=1 ...                     step 2 also counts each process's instructions per
//                                                product (`perf stat`; they hardly drift with the VM)
//   BENCH_REDIS_COMMANDS=1 ...                   step 2 also prints redis-server's costliest commands,
//                                                µs per product (bench/support/redisCommands.ts)
//   BENCH_STEP=idle npm run bench:embedding      step 2's create (embedding off) on a fresh `kcs start`
//                                                against one idle for 40 s first, in turns
//                                                (bench/support/idleStart.ts)
//   BENCH_STEP=behind npm run bench:embedding    step 2's create in turns: embedding off, on (nothing
//                                                embedded first), on with the embed worker stopped,
//                                                after step 1, and off beside an idle process holding
//                                                ~700 MB (bench/support/behindSplit.ts)
//   BENCH_STEP=call-size npm run bench:embedding only the model's texts/s by size of model call,
//                                                one thread (bench/support/modelCallSizes.ts): the
//                                                local model, KCS_EMBEDDER's, or with
//                                                BENCH_MODEL=transformer one of e5-small's shape
//
// 0. Baseline, in a child process of its own (bench/support/modelBaseline.ts): the model work of
//    the embed worker before this change, for BENCH_BASELINE_PRODUCTS products: three texts each
//    (description, properties, attributes), whole, in batches of 64 on one thread (the library's
//    own embed()).
// 1. 1,000 new products in one bulk request, until every one is embedded: products/s.
// 2. Bulk create of BENCH_PRODUCTS new products (10,000 per request, 3 in flight) while their
//    embeddings queue up behind, then the same again unchanged; and both before and after, with
//    KCS_EMBEDDER=none on other fresh `kcs start`s: the baseline of what embedding behind costs,
//    bracketing it so that the VM's drift in speed shows instead of being charged to embedding.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Api, bulkRun, embedRun, type BulkResult } from './support/bulkApi.js';
import { bulkBodies } from './support/catalogue.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { startKcs, type KcsStart } from './support/kcsStart.js';
import { idleComparison, idleComparisonSeconds } from './support/idleStart.js';
import { behindSplit, behindSplitSeconds } from './support/behindSplit.js';
import { formatCpu, formatCpuPerProduct } from './support/load.js';
import { waitIdle } from './support/proc.js';
import { instructionCounter, instructionsCountable } from './support/instructions.js';
import { commandTimer, formatCommandTimes, type CommandTime } from './support/redisCommands.js';
import { cpuProfileArgs } from './support/cpuProfile.js';

const PRODUCTS = positiveInt('BENCH_PRODUCTS', 100_000);
const BASELINE_PRODUCTS = positiveInt('BENCH_BASELINE_PRODUCTS', 300);
const EMBED_PRODUCTS = 1_000;
const PER_REQUEST = 10_000;
const TARGET = { embedded: 25, create: 15_000, unchanged: 50_000 };
const CPU_PROF = process.env.BENCH_CPU_PROF ? cpuProfileArgs(resolve(process.env.BENCH_CPU_PROF)) : [];
const ONLY_OFF = process.env.BENCH_STEP === '2-off';
/**
 * The built-in engine reads a tenant into the serve process's replica at start or on its first
 * search, then indexes each write of it. A fresh `kcs start` creates the demo tenant after its
 * engine started, so by default step 2 runs without that replica; BENCH_REPLICA=1 searches once
 * first, as any restarted server (or searched tenant) has it.
 */
const LIVE_REPLICA = process.env.BENCH_REPLICA === '1';
const COUNT_INSTRUCTIONS = process.env.BENCH_INSTRUCTIONS === '1';
const TIME_COMMANDS = process.env.BENCH_REDIS_COMMANDS === '1';

runBench('bench:embedding', (300 + BASELINE_PRODUCTS * 0.2 + PRODUCTS * 0.002 + (process.env.BENCH_STEP === 'idle' ? idleComparisonSeconds(PRODUCTS) : 0) + (process.env.BENCH_STEP === 'behind' ? behindSplitSeconds(PRODUCTS) : 0)) * 1000, main);

async function main(undo: Undo): Promise<number> {
  if (COUNT_INSTRUCTIONS && !instructionsCountable()) throw new Error('BENCH_INSTRUCTIONS=1: `perf stat -e instructions` cannot count here');
  if (ONLY_OFF) return embeddingOffPair(undo);
  if (process.env.BENCH_STEP === 'call-size') return callSizes(undo);
  if (process.env.BENCH_STEP === 'idle') return idleComparison(undo, PRODUCTS);
  if (process.env.BENCH_STEP === 'behind') return behindSplit(undo, PRODUCTS);
  const baseline = await modelBaseline(undo);
  console.log(`0. baseline, the model work before (3 whole texts per product, one thread): ${fmt(baseline, 1)} products/s (${BASELINE_PRODUCTS} products)`);

  // The embedding-off baseline brackets the run, before and after: this VM's speed drifts by up to a
  // quarter within minutes, and one baseline before would charge embedding with that drift.
  const before = await embeddingOffRun(undo);
  console.log(`   (2.) baseline before, embedding off: ${describePair(before)}`);

  const kcs = await startKcs(undo, {}, CPU_PROF);
  const api = new Api(kcs.port, kcs.host, kcs.key);
  undo(() => api.close());
  const path = await api.benchSiteBulkPath();
  // Loads the model in every thread (not timed): texts of their own, so nothing measured is cached.
  await embedRun(api, path, 'warm', 900_000, 32);
  const embedded = await embedRun(api, path, 'e', 200_000, EMBED_PRODUCTS, kcs.pids());
  const embeddedRate = EMBED_PRODUCTS / embedded.seconds;
  console.log(`1. ${EMBED_PRODUCTS} new products in one bulk call, all embedded: ${fmt(embedded.seconds, 1)} s, ${fmt(embeddedRate, 1)} products/s (stored after ${fmt(embedded.storedSeconds, 2)} s; ${formatCpu(embedded.cpu)})`);

  const behind = await bulkPair(kcs, api, path);
  console.log(`2. bulk create, embedding behind: ${fmt(behind.create.rate, 0)} products/s (${formatCpu(behind.createCpu)})`);
  console.log(`   bulk unchanged, embedding behind: ${fmt(behind.unchanged.rate, 0)} products/s (${formatCpu(behind.unchangedCpu)})`);
  console.log(`   CPU per product, create: ${perProduct(behind.create.cpuSeconds)}`);
  if (behind.instructions) console.log(`   ${describeInstructions(behind.instructions)}`);
  if (behind.commands) console.log(`   ${describeCommands(behind.commands)}`);
  if (behind.replicaCatchUp !== null) console.log(`   ${describeCatchUp(behind)}`);
  const backlog = behind.create.views.reduce((sum, v) => sum + v.embedding.pending, 0);
  await kcs.stop();
  const after = await embeddingOffRun(undo);
  console.log(`   (2.) baseline after, embedding off: ${describePair(after)}`);

  const verdict = (value: number, target: number) => (value >= target ? '**PASS**' : '**MISS**');
  console.log(`
| measurement (\`npm start\` defaults) | figure | target |
|---|---:|---|
| 0. baseline: the model work before, one thread | ${fmt(baseline, 1)} products/s |  |
| 1. ${EMBED_PRODUCTS.toLocaleString('en')} new products in one bulk call, all embedded | ${fmt(embeddedRate, 1)} products/s (${fmt(embedded.seconds, 1)} s) | ≥ ${TARGET.embedded}/s: ${verdict(embeddedRate, TARGET.embedded)} |
| 2. bulk create, ${PRODUCTS.toLocaleString('en')} products, embedding behind | ${fmt(behind.create.rate, 0)} products/s | ≥ ${TARGET.create.toLocaleString('en')}/s: ${verdict(behind.create.rate, TARGET.create)} |
| 2. bulk unchanged, embedding behind | ${fmt(behind.unchanged.rate, 0)} products/s | ≥ ${TARGET.unchanged.toLocaleString('en')}/s: ${verdict(behind.unchanged.rate, TARGET.unchanged)} |
| 2. baseline, embedding off, before / after: create | ${fmt(before.create.rate, 0)} / ${fmt(after.create.rate, 0)} products/s |  |
| 2. baseline, embedding off, before / after: unchanged | ${fmt(before.unchanged.rate, 0)} / ${fmt(after.unchanged.rate, 0)} products/s |  |
| embeddings still queued after the create run | ${backlog.toLocaleString('en')} |  |${behind.replicaCatchUp === null ? '' : `
| 2. BENCH_REPLICA=1, after the create's last job | ${describeCatchUp(behind)} |  |`}
`);
  return embeddedRate >= TARGET.embedded && behind.create.rate >= TARGET.create && behind.unchanged.rate >= TARGET.unchanged ? 0 : 1;
}

/** BENCH_STEP=2-off: step 2 with embedding off alone, and the CPU each process spent per product. */
async function embeddingOffPair(undo: Undo): Promise<number> {
  const run = await embeddingOffRun(undo);
  console.log(`2. embedding off: create ${fmt(run.create.rate, 0)}/s (CPU per product: ${perProduct(run.create.cpuSeconds)})`);
  // CPU per product counts until the last job: work the replica left for later shows here only.
  if (run.replicaCatchUp) console.log(`   ${describeCatchUp(run)}`);
  console.log(`   unchanged ${fmt(run.unchanged.rate, 0)}/s (CPU per product: ${perProduct(run.unchanged.cpuSeconds)})`);
  if (run.instructions) console.log(`   ${describeInstructions(run.instructions)}`);
  if (run.commands) console.log(`   ${describeCommands(run.commands)}`);
  return 0;
}

/** Step 2 on a fresh `kcs start` with KCS_EMBEDDER=none. */
async function embeddingOffRun(undo: Undo): Promise<BulkPair> {
  const off = await startKcs(undo, { KCS_EMBEDDER: 'none' }, CPU_PROF);
  const api = new Api(off.port, off.host, off.key);
  undo(() => api.close());
  const run = await bulkPair(off, api, await api.benchSiteBulkPath());
  await off.stop();
  return run;
}

const perThousand = (counts: Record<string, number | null>) =>
  Object.entries(counts).map(([name, n]) => `${name} ${n === null ? '–' : `${fmt(n / PRODUCTS / 1000, 1)}k`}`).join(', ');
const describeInstructions = ({ create, unchanged }: NonNullable<BulkPair['instructions']>) =>
  `instructions per product, create: ${perThousand(create)}; unchanged: ${perThousand(unchanged)}`;
const describeCommands = ({ create, unchanged }: NonNullable<BulkPair['commands']>) =>
  `redis-server commands per product (a script's commands counted in its EVALSHA too), create: ${formatCommandTimes(create, PRODUCTS)}; unchanged: ${formatCommandTimes(unchanged, PRODUCTS)}`;
const perProduct = (cpu: Record<string, number>) => formatCpuPerProduct(cpu, PRODUCTS);
/** BENCH_REPLICA=1: the create counted until the replica caught up (the serve process quiet again). */
function describeCatchUp({ create, replicaCatchUp }: BulkPair): string {
  const { seconds, quiet } = replicaCatchUp!;
  if (!quiet) return `the serve process was still busy ${fmt(seconds, 0)} s after the create's last job`;
  return `the replica caught up ${fmt(seconds, 1)} s after the create's last job: ${fmt(PRODUCTS / (create.seconds + seconds), 0)} creates/s until then`;
}
const describePair = (run: BulkPair) =>
  `create ${fmt(run.create.rate, 0)}/s (${formatCpu(run.createCpu)}; per product ${perProduct(run.create.cpuSeconds)}), ` +
  `${run.replicaCatchUp === null ? '' : `${describeCatchUp(run)}, `}unchanged ${fmt(run.unchanged.rate, 0)}/s (${formatCpu(run.unchangedCpu)})`;

/** Step 0 in a child process (bench/support/modelBaseline.ts): products per second of the model work before. */
async function modelBaseline(undo: Undo): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/support/modelBaseline.ts', String(BASELINE_PRODUCTS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  undo(() => void child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`the model baseline exited with ${code}: ${out}`);
  return (JSON.parse(out.trim().split('\n').pop()!) as { productsPerSecond: number }).productsPerSecond;
}

/** BENCH_STEP=call-size: the model's rate by size of call, in a child process (its table goes straight to stdout). */
async function callSizes(undo: Undo): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/support/modelCallSizes.ts'], { stdio: ['ignore', 'inherit', 'inherit'] });
  undo(() => void child.kill('SIGKILL'));
  return (await new Promise<number | null>((resolve) => child.once('close', resolve))) ?? 1;
}

interface BulkPair {
  create: BulkResult;
  /**
   * BENCH_REPLICA=1: how long the serve process stayed busy after the create's last job was done
   * (its replica still indexing the products), waited out before the unchanged run; else null.
   */
  replicaCatchUp: { seconds: number; quiet: boolean } | null;
  unchanged: BulkResult;
  /** Cores each process used (1 = one core). */
  createCpu: Record<string, number>;
  unchangedCpu: Record<string, number>;
  /** BENCH_INSTRUCTIONS=1: each process's instructions over each run (until the replica caught up); else null. */
  instructions: { create: Record<string, number | null>; unchanged: Record<string, number | null> } | null;
  /** BENCH_REDIS_COMMANDS=1: redis-server's time by command over each run; else null. */
  commands: { create: CommandTime[]; unchanged: CommandTime[] } | null;
}

/** Bulk create of PRODUCTS new products, then the same bodies again (unchanged). */
async function bulkPair(kcs: KcsStart, api: Api, path: string): Promise<BulkPair> {
  if (LIVE_REPLICA) {
    const reply = await api.call('POST', '/api/knowledge/search/products', Buffer.from(JSON.stringify({ query: 'jacket' })));
    if (reply.status !== 200) throw new Error(`search: ${reply.status} ${reply.body}`);
  }
  const bodies = bulkBodies('p', PRODUCTS, PER_REQUEST);
  const counting = COUNT_INSTRUCTIONS ? await instructionCounter(kcs.pids()) : null;
  const timing = TIME_COMMANDS ? await commandTimer(await kcs.redisUrl()) : null;
  const create = await bulkRun(api, path, bodies, kcs.pids());
  const replicaCatchUp = LIVE_REPLICA ? await waitIdle({ serve: kcs.pids()['kcs serve'] }, { quietMs: 1000, limitMs: 120_000 }) : null;
  const createInstructions = await counting?.();
  const createCommands = await timing?.();
  const countingUnchanged = COUNT_INSTRUCTIONS ? await instructionCounter(kcs.pids()) : null;
  const timingUnchanged = TIME_COMMANDS ? await commandTimer(await kcs.redisUrl()) : null;
  const unchanged = await bulkRun(api, path, bodies, kcs.pids());
  const unchangedInstructions = await countingUnchanged?.();
  const unchangedCommands = await timingUnchanged?.();
  const counted = (run: BulkResult, field: 'created' | 'unchanged') => run.views.reduce((sum, v) => sum + v.counts[field], 0);
  if (counted(create, 'created') !== PRODUCTS || counted(unchanged, 'unchanged') !== PRODUCTS) {
    throw new Error(`the jobs counted ${counted(create, 'created')} created and ${counted(unchanged, 'unchanged')} unchanged, not ${PRODUCTS} each`);
  }
  const perSecond = (run: BulkResult) => Object.fromEntries(Object.entries(run.cpuSeconds).map(([name, s]) => [name, s / run.seconds]));
  const instructions = createInstructions && unchangedInstructions ? { create: createInstructions, unchanged: unchangedInstructions } : null;
  const commands = createCommands && unchangedCommands ? { create: createCommands, unchanged: unchangedCommands } : null;
  return { create, replicaCatchUp, unchanged, createCpu: perSecond(create), unchangedCpu: perSecond(unchanged), instructions, commands };
}
