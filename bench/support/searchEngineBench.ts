// Engine time, in process, of any SearchEngine: the plan's query sets called directly, one after
// another (p50/p99, queries/s), related products, and recall@10 against the exact answers; then
// raw Redis round trips to the same server (the floor under every end-to-end search). The same
// code measures both engines; only the engine and its column differ.
import { PerformanceObserver } from 'node:perf_hooks';
import type { SearchEngine } from '../../src/search/engine.js';
import { keys } from '../../src/store/keys.js';
import { fmt } from './harness.js';
import { cpuMeter } from './proc.js';
import { formatCpu } from './load.js';
import type { Catalogued } from './searchCatalogue.js';
import type { Column } from './searchColumn.js';
import { TARGET } from './searchConfig.js';
import { recall, Rng, summarize, type Timing } from './searchData.js';
import { search, type Plan, type QuerySet } from './searchQueries.js';
import { ms, type Summary } from './searchSummary.js';

interface EngineRun extends Timing {
  zeroHits: number;
  meanTotal: number;
  /** Garbage-collection pauses of this process during the run: count, total and longest (ms). */
  gc?: { count: number; total: number; max: number };
}

export interface EngineBenchOptions {
  engine: SearchEngine;
  column: Column;
  plan: Plan;
  summary: Summary;
}

/** Collects this process's GC pauses while `run` runs (they land in the latency tail). */
async function watchGc<T>(run: () => Promise<T>): Promise<[T, NonNullable<EngineRun['gc']>]> {
  const pauses: number[] = [];
  const observer = new PerformanceObserver((list) => list.getEntries().forEach((e) => pauses.push(e.duration)));
  observer.observe({ entryTypes: ['gc'] });
  try {
    const result = await run();
    // Entries are delivered on a later turn of the event loop: let them arrive.
    await new Promise((r) => setTimeout(r, 50));
    return [result, { count: pauses.length, total: pauses.reduce((a, b) => a + b, 0), max: Math.max(0, ...pauses) }];
  } finally {
    observer.disconnect();
  }
}

async function timed(engine: SearchEngine, column: Column, set: QuerySet): Promise<EngineRun> {
  const tenantId = column.tenant.id;
  // Bound before the clock runs: binding is the benchmark's work, not the engine's.
  const searches = set.searches.map((s) => column.bind(s));
  for (const s of set.warmup) await engine.searchProducts(tenantId, column.bind(s));
  const times: number[] = [];
  let zeroHits = 0;
  let totals = 0;
  const started = performance.now();
  const [, gcPauses] = await watchGc(async () => {
    for (const s of searches) {
      const t = performance.now();
      const result = await engine.searchProducts(tenantId, s);
      times.push(performance.now() - t);
      if (result.hits.length === 0) zeroHits++;
      totals += result.total;
    }
  });
  return { ...summarize(times, performance.now() - started), zeroHits: zeroHits / searches.length, meanTotal: totals / searches.length, gc: gcPauses };
}

const line = (name: string, r: EngineRun) =>
  console.log(
    `   ${name.padEnd(50)} p50 ${ms(r.p50).padStart(7)} ms  p99 ${ms(r.p99).padStart(7)} ms  max ${ms(r.max).padStart(7)} ms  ` +
      `${fmt(r.rate, 0).padStart(6)} q/s` + (Number.isFinite(r.meanTotal) ? `  (zero hits ${fmt(r.zeroHits * 100, 0)}%, mean total ${fmt(r.meanTotal, 0)})` : '') +
      (r.gc ? `  GC ${r.gc.count}× ${ms(r.gc.total)} ms, max ${ms(r.gc.max)} ms` : ''),
  );

export async function measureEngine(options: EngineBenchOptions): Promise<void> {
  const { engine, column, plan, summary } = options;
  const meter = cpuMeter({ bench: process.pid, 'redis-server': column.redisPid });
  for (const set of plan.sets) {
    const r = await timed(engine, column, set);
    line(set.name, r);
    summary.note(column.engine, set.measure, `p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms, ${fmt(r.rate, 0)} q/s`, set.check?.(r));
    if (set.maxZeroHits !== undefined && r.zeroHits > set.maxZeroHits) summary.problem(`${column.engine}, ${set.name}: ${fmt(r.zeroHits * 100, 0)}% of queries found nothing`);
  }
  await related(options);
  await recallCases(options);
  const cpu = meter();
  console.log(`   CPU over the in-process queries: ${formatCpu(cpu.cores)}${(cpu.cores.other ?? 0) > 0.1 ? ' — other processes were busy: latency tails are not those of an idle machine' : ''}`);
}

async function related({ engine, column, plan, summary }: EngineBenchOptions): Promise<void> {
  const times: number[] = [];
  let self = 0;
  let duplicates = 0;
  let empty = 0;
  const started = performance.now();
  for (const row of plan.related) {
    const id = column.ids[row];
    const t = performance.now();
    const result = await engine.relatedProducts(column.tenant.id, id, { limit: 10, offset: 0, variantStrategy: 'all' });
    times.push(performance.now() - t);
    const ids = result?.hits.map((h) => h.id) ?? [];
    if (ids.length === 0) empty++;
    if (ids.includes(id)) self++;
    if (new Set(ids).size !== ids.length) duplicates++;
  }
  const r = summarize(times, performance.now() - started);
  line('related products (same site, by anchor)', { ...r, zeroHits: empty / plan.related.length, meanTotal: NaN });
  summary.note(column.engine, 'related products, engine time', `p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms, ${fmt(r.rate, 0)} q/s`);
  if (self > 0 || duplicates > 0) {
    const message = `${column.engine}, related products: ${self} of ${plan.related.length} answers contain the product itself, ${duplicates} contain a product twice`;
    console.log(`   !! ${message}`);
    summary.problem(message);
  }
}

async function recallCases({ engine, column, plan, summary }: EngineBenchOptions): Promise<void> {
  console.log(`   recall@10 against the exact answers (${plan.recall[0]?.queries.length ?? 0} queries per case)`);
  for (const c of plan.recall) {
    let sum = 0;
    let worst = 1;
    let violations = 0;
    let hitsSeen = 0;
    for (const q of c.queries) {
      const result = await engine.searchProducts(column.tenant.id, column.bind(search({ mode: 'semantic', vector: q.vector, limit: 10, filters: q.filters })));
      const found = result.hits.map((h) => column.rowOf(h.id));
      // Hits the filter does not allow (another language, site, brand or price): a wrong answer, not a recall miss.
      hitsSeen += found.length;
      violations += found.filter((row) => row < 0 || !q.allows(row) || (q.rows !== undefined && !q.rows.includes(row))).length;
      const r = recall(found, q.truth);
      sum += r;
      worst = Math.min(worst, r);
    }
    const mean = sum / c.queries.length;
    console.log(`   ${c.name.padEnd(50)} recall@10 ${fmt(mean, 4)} (worst query ${fmt(worst, 1)})`);
    if (violations > 0) {
      const message = `${column.engine}, semantic, ${c.short}: ${violations} of ${hitsSeen} hits (${fmt((100 * violations) / hitsSeen, 1)}%) are not allowed by the filter (e.g. not in a served language)`;
      console.log(`   !! ${message}`);
      summary.problem(message);
    }
    summary.note(column.engine, `recall@10, ${c.short}`, fmt(mean, 4), c.target ? { target: `≥ ${TARGET.recall}`, met: mean >= TARGET.recall } : undefined);
  }
}

/**
 * Raw round trips to the column's server from this process, sequential. On a cluster PING goes to
 * any node, and the pipeline's product hashes, all in the tenant's hash slot, to its master.
 */
export async function redisFloor(column: Column, data: Catalogued, summary: Summary): Promise<void> {
  const rng = new Rng(5);
  const run = async (name: string, op: () => Promise<unknown>, count = 2000) => {
    for (let i = 0; i < 100; i++) await op();
    const times: number[] = [];
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      await op();
      times.push(performance.now() - t);
    }
    const r = summarize(times, performance.now() - started);
    console.log(`   ${`${column.engine}: ${name}`.padEnd(72)} p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms  ${fmt(r.rate, 0)}/s`);
    summary.note(column.engine, `baseline: ${name}`, `p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms`);
  };
  await run('raw Redis PING', () => column.store.ping());
  await run('raw Redis HMGET doc of 20 products (one pipeline)', () => {
    const pipeline = column.store.pipeline();
    for (let i = 0; i < 20; i++) pipeline.hmget(keys.product(column.tenant.id, column.ids[rng.int(data.n)]), 'doc', 'rev', 'parent_external_id', 'embedding_status');
    return pipeline.exec();
  });
}
