// Engine time, in process, of any SearchEngine: the plan's query sets called directly, one after
// another (p50/p99, queries/s), related products, and recall@10 against the exact answers; then
// raw Redis round trips to the same server (the floor under every end-to-end search), and on the
// Query Engine the keyword set as the direct floor's commands (searchDirect.ts) sent from here. The
// same code measures both engines; only the engine and its column differ.
import type { SearchEngine } from '../../src/search/engine.js';
import { keys } from '../../src/store/keys.js';
import { fmt, timeSequential, type Timing } from './harness.js';
import { formatCpu } from './load.js';
import { cpuMeter } from './proc.js';
import { Rng } from './rng.js';
import type { Catalogued } from './searchCatalogue.js';
import type { Column } from './searchColumn.js';
import { TARGET } from './searchConfig.js';
import { floorAnswer } from './searchDirect.js';
import { httpBody, search, type Plan } from './searchQueries.js';
import { latency, type Summary } from './searchSummary.js';
import { recall } from './vectors.js';

/** The plan's query sets, related products and recall; the timing of the first set (keyword). */
export async function measureEngine(engine: SearchEngine, column: Column, plan: Plan, summary: Summary): Promise<Timing> {
  const tenantId = column.tenant.id;
  const timings: Timing[] = [];
  const meter = cpuMeter({ bench: process.pid, 'redis-server': column.redisPid });
  for (const set of plan.sets) {
    // Bound before the clock runs: binding is the benchmark's work, not the engine's.
    const searches = set.searches.map((s) => column.bind(s));
    for (const s of set.warmup) await engine.searchProducts(tenantId, column.bind(s));
    let zeroHits = 0;
    let next = 0;
    const timing = await timeSequential(async () => {
      if ((await engine.searchProducts(tenantId, searches[next++])).hits.length === 0) zeroHits++;
    }, searches.length);
    timings.push(timing);
    summary.note(column.engine, set.measure, latency(timing), set.check?.(timing));
    const share = zeroHits / searches.length;
    if (set.maxZeroHits !== undefined && share > set.maxZeroHits) summary.problem(`${column.engine}, ${set.measure}: ${fmt(share * 100, 0)}% of queries found nothing`);
  }

  let wrong = 0;
  let next = 0;
  const related = await timeSequential(async () => {
    const id = column.ids[plan.related[next++]];
    const ids = (await engine.relatedProducts(tenantId, id, { limit: 10, offset: 0, variantStrategy: 'all' }))?.hits.map((h) => h.id) ?? [];
    if (ids.includes(id) || new Set(ids).size !== ids.length) wrong++;
  }, plan.related.length);
  summary.note(column.engine, 'related products, engine time', latency(related));
  if (wrong > 0) summary.problem(`${column.engine}, related products: ${wrong} of ${plan.related.length} answers contain the product itself or a product twice`);

  for (const c of plan.recall) {
    let sum = 0;
    let violations = 0;
    for (const q of c.queries) {
      const result = await engine.searchProducts(tenantId, column.bind(search({ mode: 'semantic', vector: q.vector, limit: 10, filters: q.filters })));
      const found = result.hits.map((h) => column.rowOf(h.id));
      // A hit the filter does not allow (another language or site) is a wrong answer, not a recall miss.
      violations += found.filter((row) => row < 0 || !q.allows(row)).length;
      sum += recall(found, q.truth);
    }
    const mean = sum / c.queries.length;
    summary.note(column.engine, `recall@10, ${c.name}`, fmt(mean, 4), { target: `≥ ${TARGET.recall}`, met: mean >= TARGET.recall });
    if (violations > 0) summary.problem(`${column.engine}, semantic, ${c.name}: ${violations} hits not allowed by the filter (e.g. not in a served language)`);
  }
  const cpu = meter();
  console.log(`   CPU over the in-process queries: ${formatCpu(cpu.cores)}${(cpu.cores.other ?? 0) > 0.1 ? ' — other processes were busy: latency tails are not those of an idle machine' : ''}`);
  return timings[0];
}

/**
 * The keyword set (the plan's first) as the direct floor answers it, from this process, one after
 * another: its p99 beside the engine's (`engineTiming`), with the target at 1,000,000 products.
 */
export async function directKeyword(column: Column, plan: Plan, engineTiming: Timing, summary: Summary): Promise<void> {
  const direct = column.direct;
  if (!direct) return;
  const [warmup, bodies] = [plan.sets[0].warmup, plan.sets[0].searches].map((set) => set.map((s) => httpBody(column.bind(s))));
  for (const body of warmup) await floorAnswer(direct.redis, direct.at, body);
  let next = 0;
  let zeroHits = 0;
  const timing = await timeSequential(async () => {
    if ((await floorAnswer(direct.redis, direct.at, bodies[next++])).startsWith('{"hits":[]')) zeroHits++;
  }, bodies.length);
  // Its words are AND-ed, without typo tolerance: a query with a typo finds nothing there.
  summary.note(column.engine, 'keyword, the direct floor (FT.SEARCH + FT.AGGREGATE a facet), from this process', `${latency(timing)}; ${fmt((100 * zeroHits) / bodies.length, 0)}% found nothing`);
  const times = engineTiming.p99 / timing.p99;
  summary.note(column.engine, 'engine keyword p99 ÷ the direct floor\'s', `${fmt(times, 2)}× (${fmt(engineTiming.p99, 2)} / ${fmt(timing.p99, 2)} ms)`,
    column.ids.length >= 1_000_000 ? { target: '≤ 2× (1M)', met: times <= 2 } : undefined);
}

/**
 * Raw round trips to the column's server from this process, sequential. On a cluster PING goes to
 * any node, and the pipeline's product hashes, all in the tenant's hash slot, to its master.
 */
export async function redisFloor(column: Column, data: Catalogued, summary: Summary): Promise<void> {
  const rng = new Rng(5);
  const floor = async (name: string, op: () => Promise<unknown>) => summary.note(column.engine, `baseline: ${name}`, latency(await timeSequential(op, 2000, 100)));
  await floor('raw Redis PING', () => column.store.ping());
  await floor('raw Redis HMGET doc of 20 products (one pipeline)', () => {
    const pipeline = column.store.pipeline();
    for (let i = 0; i < 20; i++) pipeline.hmget(keys.product(column.tenant.id, column.ids[rng.int(data.n)]), 'doc', 'rev', 'parent_external_id', 'embedding_status');
    return pipeline.exec();
  });
}

