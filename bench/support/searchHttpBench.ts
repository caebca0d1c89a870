// End to end over HTTP for one column: real `kcs serve` processes (support/kcs.ts) on the
// column's Redis with its engine, POST /api/knowledge/search/products with autocannon at 1 and 32
// connections: keyword with KCS_EMBEDDER=none; hybrid and semantic with KCS_EMBEDDER=local over a
// small fixed set of English queries (`language` en: the local model serves English; `min_similarity`
// 0: the catalogue's vectors are synthetic, so the model's queries are far from every one) whose
// embeddings are cached (warm LRU) before measuring; then hybrid
// with never-seen queries, alone and beside keyword searches. Each keyword run has its baseline's
// run beside it, with the same bodies and connections, and kcs ÷ baseline with each side's CPU a
// search: on the Query Engine the direct floor, a plain node:http server answering them with one
// FT.SEARCH and an FT.AGGREGATE per facet on the same server (searchDirect.ts); on the built-in
// engine a plain node:http server holding MiniSearch over the same products (searchMiniSearch.ts).
// Every run is drained (load.ts) before the next starts.
// The same code runs for both engines; the column gives the server, the engine and what to prepare.
import type { ProductSearch } from '../../src/search/engine.js';
import { fmt, type Undo } from './harness.js';
import { request } from './http.js';
import { startKcs } from './kcs.js';
import { describeLoad, drainer, load, warmThenLoad, type Drain, type LoadResult } from './load.js';
import { peakRssMiB, rssMiB } from './proc.js';
import type { Column } from './searchColumn.js';
import { merchandising, type NextRequest } from './searchMerchandising.js';
import { HTTP_CONNECTIONS, MODEL, SECONDS, WARMUP_SECONDS } from './searchConfig.js';
import { FACETS, httpBody, type HttpBody } from './searchQueries.js';
import type { Check, Summary } from './searchSummary.js';

export const PATH = '/api/knowledge/search/products';
const MULTI_PATH = '/api/knowledge/search/multi';

/** Keyword searches (with site slugs, bound here), the hybrid/semantic query texts, and never-seen ones. */
export type HttpQueries = { keyword: ProductSearch[]; vector: string[]; fresh: string[] };

/** Connections of each side in the never-seen hybrid runs. */
const FRESH_CONNECTIONS = 8;

/** What a run loads: a server's port and request headers, the processes whose CPU is shown, its drain. */
interface Target {
  port: number;
  headers: Record<string, string>;
  pids: Record<string, number | undefined>;
  drain: Drain;
}

/** A server answering the same keyword bodies beside kcs's runs, in a process of its own: the column's baseline. */
interface Baseline extends Target {
  /** Before its printed runs: 'direct floor', 'MiniSearch server'. */
  name: string;
  /** In the summary rows of a measure: `<measure>, <row>, <n> conn` (its figures) and `<measure>, kcs ÷ <ratio>, <n> conn`. */
  row: string;
  ratio: string;
  /** The target of kcs ÷ it (req/s) at a connection count, where there is one. */
  check?(connections: number, share: number): Check | undefined;
  stop(): Promise<void>;
}

/** A serve process of the column with `embedder`, noting its time from listening to /readyz 200; `probe` (a body) drains its runs. */
async function startServe(column: Column, embedder: 'none' | 'local', undo: Undo, summary: Summary, probe: string) {
  const env = { KCS_EMBEDDER: embedder, KCS_SEARCH_ENGINE: column.searchEngine };
  // The built-in engine builds its replica in the background; /readyz answers 200 once it is done.
  const serve = await startKcs(undo, 'serve', { redis: column.redis, env, profile: `serve-${column.engine}-${embedder}` });
  const limit = column.readyTargetMs;
  const check = limit === null ? undefined : { target: `${column.engine} < ${fmt(limit / 1000, 0)} s`, met: serve.readyMs < limit };
  summary.note(column.engine, `serve start → /readyz 200, KCS_EMBEDDER=${embedder}`, `${fmt(serve.readyMs / 1000, 2)} s`, check);
  const headers = { host: `${column.tenant.slug}.localhost:${serve.port}`, authorization: `Bearer ${column.tenant.key}`, 'content-type': 'application/json' };
  const post = (body: string, timeoutMs?: number) => request(serve.port, { method: 'POST', path: PATH, headers, body, timeoutMs });
  const answer = await post(probe);
  const parsed = JSON.parse(answer.body) as { engine?: string };
  if (answer.status !== 200 || parsed.engine !== column.engine) throw new Error(`${column.engine}: keyword search answered ${answer.status}: ${answer.body.slice(0, 500)}`);
  const drain = await drainer((timeoutMs) => post(probe, timeoutMs));
  // serve.pids(): the serve process by name ('kcs serve') and its child processes, if any.
  return { serve, port: serve.port, headers, post, pids: { ...serve.pids(), 'redis-server': column.redisPid }, drain };
}

type Serve = Awaited<ReturnType<typeof startServe>>;

/** A baseline server's port and headers, checked on `probe` (an answer with hits), with its drain. */
async function baselineTarget(name: string, port: number, probe: string): Promise<Omit<Target, 'pids'>> {
  const headers = { 'content-type': 'application/json' };
  const post = (timeoutMs?: number) => request(port, { method: 'POST', path: PATH, headers, body: probe, timeoutMs });
  const answer = await post();
  if (answer.status !== 200 || !Array.isArray((JSON.parse(answer.body) as { hits?: unknown }).hits)) throw new Error(`the ${name} answered ${answer.status}: ${answer.body.slice(0, 500)}`);
  return { port, headers, drain: await drainer(post) };
}

/** The Query Engine column's direct floor server (searchDirect.ts), checked on `probe`. */
async function startFloor(column: Column, undo: Undo, probe: string): Promise<Baseline> {
  const floor = await column.direct!.serve(undo);
  return {
    ...(await baselineTarget('direct floor', floor.port, probe)), pids: { 'direct floor': floor.pid, 'redis-server': column.redisPid }, stop: floor.stop,
    name: 'direct floor', row: 'the direct floor', ratio: 'direct',
    // The targets: at every connection count up to 1,000,000 products, there at the most connections only.
    check: (connections, share) => column.ids.length < 1_000_000 || connections === HTTP_CONNECTIONS[HTTP_CONNECTIONS.length - 1] ? { target: '≥ 0.6×', met: share >= 0.6 } : undefined,
  };
}

/** The built-in column's MiniSearch server (searchMiniSearch.ts) over the products written so far, checked on `probe`; notes its load and memory. */
async function startMiniSearch(column: Column, undo: Undo, summary: Summary, probe: string): Promise<Baseline> {
  const server = await column.miniSearch!.serve(undo);
  if (server.products !== column.ids.length) summary.problem(`the MiniSearch server loaded ${server.products} products, the catalogue has ${column.ids.length}`);
  summary.note(column.engine, 'the MiniSearch server: products loaded (read, parse, index), RSS after loading (peak while loading)',
    `${server.products.toLocaleString('en')} in ${fmt(server.loadMs / 1000, 1)} s (${fmt(server.products / (server.loadMs / 1000), 0)}/s), ` +
      `${fmt(rssMiB(server.pid) ?? NaN, 0)} MiB (${fmt(peakRssMiB(server.pid) ?? NaN, 0)} MiB)`);
  return {
    ...(await baselineTarget('MiniSearch server', server.port, probe)), pids: { 'MiniSearch server': server.pid }, stop: server.stop,
    name: 'MiniSearch server', row: 'the MiniSearch server', ratio: 'MiniSearch server',
  };
}

/** A warmed, drained autocannon run of `bodies` in turn (or of what `bodies` gives) against `target`, printed as `label`. */
function loadRun(label: string, target: Target, bodies: string[] | NextRequest, connections: number, path = PATH): Promise<LoadResult> {
  let i = 0;
  const next: NextRequest = typeof bodies === 'function' ? bodies : () => ({ body: bodies[i++ % bodies.length] });
  const options = {
    url: `http://127.0.0.1:${target.port}`, connections,
    requests: [{ method: 'POST' as const, path, headers: target.headers, setupRequest: (req: object) => ({ ...req, path, ...next() }) }],
  };
  return warmThenLoad(label, options, WARMUP_SECONDS, SECONDS, { ...target.pids, 'load generator': process.pid }, target.drain);
}

/** A run's failures as problems: wrong answers, nothing completed, a queue not drained. */
function checkRun(column: Column, name: string, r: LoadResult, summary: Summary): void {
  if (r.non2xx > 0 || r.errors > 0) summary.problem(`${column.engine}, ${name}: ${r.non2xx} non-2xx, ${r.errors} errors (${JSON.stringify(r.statuses)})`);
  if (r.rps === 0) summary.problem(`${column.engine}, ${name}: no request completed`);
  if (r.undrained) summary.problem(`${column.engine}, ${name}: the server was still answering slowly ${fmt(r.drainS, 0)} s after the run`);
}

const figures = (r: LoadResult) => `${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms`;

/** CPU µs a completed search of each server-side process of a run (the load generator and the rest of the machine left out). */
const cpuPerSearch = (r: LoadResult) => Object.entries(r.cpu).filter(([name]) => name !== 'load generator' && name !== 'other')
  .map(([name, cores]) => `${name} ${fmt((cores / r.rps) * 1e6, 0)} µs`).join(', ');

/** Autocannon runs at each connection count over `bodies`, noted, each with the baseline's beside it when given; kcs's results, and the baseline's. */
async function measure(column: Column, target: Serve, name: string, bodies: string[], summary: Summary, baseline?: Baseline): Promise<{ runs: LoadResult[]; baselineRuns: LoadResult[] }> {
  const runs: LoadResult[] = [];
  const baselineRuns: LoadResult[] = [];
  for (const connections of HTTP_CONNECTIONS) {
    const r = await loadRun(`   ${column.engine}: ${name}, ${connections} conn:`, target, bodies, connections);
    runs.push(r);
    summary.note(column.engine, `${name}, end to end, ${connections} conn`, figures(r), undefined, false);
    checkRun(column, `${name} c=${connections}`, r, summary);
    if (!baseline) continue;
    const b = await loadRun(`   ${baseline.name}: ${name}, ${connections} conn:`, baseline, bodies, connections);
    baselineRuns.push(b);
    summary.note(column.engine, `${name}, ${baseline.row}, ${connections} conn`, figures(b), undefined, false);
    checkRun(column, `${baseline.row}, ${name} c=${connections}`, b, summary);
    const share = r.rps / b.rps;
    summary.note(column.engine, `${name}, kcs ÷ ${baseline.ratio}, ${connections} conn`, `${fmt(share, 2)}× req/s; p50 ${fmt(r.p50, 2)} / ${fmt(b.p50, 2)} ms, p99 ${fmt(r.p99, 2)} / ${fmt(b.p99, 2)} ms`,
      baseline.check?.(connections, share));
    summary.note(column.engine, `${name}, CPU a search (kcs; ${baseline.ratio}), ${connections} conn`, `${cpuPerSearch(r)}; ${cpuPerSearch(b)}`);
  }
  const rss = peakRssMiB(target.serve.pid);
  if (rss !== null) summary.note(column.engine, `peak RSS, kcs serve, after the ${name.split(' ')[0]} runs`, `${fmt(rss, 0)} MiB`);
  return { runs, baselineRuns };
}

export async function overHttp(column: Column, queries: HttpQueries, undo: Undo, summary: Summary): Promise<LoadResult[]> {
  console.log(`\n   ${column.heading}`);
  const results: LoadResult[] = [];

  // Keyword, embedding off; the baseline's runs beside its runs.
  const keyword = queries.keyword.map((s) => JSON.stringify(httpBody(column.bind(s))));
  const keywordServe = await startServe(column, 'none', undo, summary, keyword[0]);
  const baseline = column.direct ? await startFloor(column, undo, keyword[0]) : column.miniSearch ? await startMiniSearch(column, undo, summary, keyword[0]) : undefined;
  const { runs: keywordRuns, baselineRuns } = await measure(column, keywordServe, `keyword (${keyword.length} distinct queries)`, keyword, summary, baseline);
  results.push(...keywordRuns, ...baselineRuns);
  const p99 = keywordRuns[keywordRuns.length - 1].p99;
  if (column.engine === 'builtin') summary.note(column.engine, 'keyword p99, 32 conn', `${fmt(p99, 1)} ms`, { target: '≤ 20 ms', met: p99 <= 20 });
  await baseline?.stop();
  const bodies = queries.keyword.map((s) => httpBody(column.bind(s)));
  results.push(...(await searchPage(column, keywordServe, bodies, summary)));
  const post = (path: string, body: string) => request(keywordServe.port, { method: 'POST', path, headers: keywordServe.headers, body });
  results.push(...(await merchandising(column, (label, next, connections) => loadRun(label, keywordServe, next, connections), post, bodies, summary,
    (name, r) => checkRun(column, name, r, summary))));
  await keywordServe.serve.stop();

  // Hybrid and semantic with the local model: a fixed set of queries, embedded once while warming.
  const vectorServe = await startServe(column, 'local', undo, summary, keyword[0]);
  const embedTimes: number[] = [];
  for (const query of queries.vector) {
    const t = performance.now();
    const res = await vectorServe.post(JSON.stringify({ query, mode: 'semantic', language: 'en', min_similarity: 0 }));
    embedTimes.push(performance.now() - t);
    const body = JSON.parse(res.body) as { mode?: string; semantic_fallback?: string | null; hits?: { ranks: { semantic: number | null } }[] };
    if (res.status !== 200 || body.mode !== 'semantic' || body.semantic_fallback) throw new Error(`${column.engine}: semantic search did not run: ${res.status} ${res.body.slice(0, 300)}`);
    if (!body.hits?.some((h) => h.ranks.semantic !== null)) summary.problem(`${column.engine}, semantic '${query}': no hits (vectors not loaded under ${MODEL}?)`);
  }
  // The first call loads the model; the runs below hit the LRU query cache only.
  const median = embedTimes.slice(1).sort((a, b) => a - b)[(embedTimes.length - 1) >> 1] ?? NaN;
  summary.note(column.engine, 'uncached query embedding (local model), median, end to end', `${fmt(median, 1)} ms`);
  const count = queries.vector.length;
  const hybrid = queries.vector.map((query, i) => JSON.stringify({ query, mode: 'hybrid', language: 'en', min_similarity: 0, ...(i % 3 === 0 ? { facets: FACETS } : {}) }));
  results.push(...(await measure(column, vectorServe, `hybrid (${count} cached queries)`, hybrid, summary)).runs);
  const semantic = queries.vector.map((query) => JSON.stringify({ query, mode: 'semantic', language: 'en', min_similarity: 0 }));
  results.push(...(await measure(column, vectorServe, `semantic (${count} cached queries)`, semantic, summary)).runs);
  results.push(...(await neverSeen(column, vectorServe, keyword, queries.fresh, summary)));
  await vectorServe.serve.stop();
  return results;
}

/**
 * A storefront's search page: the same queries in relevance order with the brand facet, sorted
 * by price with facets on two attributes, and the page's batch in one multi-search (the hits, and
 * three facet-only searches, InstantSearch's disjunctive facets); each against the
 * first at each connection count. The target is a shopper's wait, one connection: a sorted search
 * with two attribute facets, or a multi-search of 4, within 1.5× one plain search's time.
 */
async function searchPage(column: Column, target: Serve, bodies: HttpBody[], summary: Summary): Promise<LoadResult[]> {
  const plain = bodies.map(({ facets: _facets, ...b }) => ({ ...b, facets: ['brand'] }));
  const sorted = plain.map((b) => JSON.stringify({ ...b, sort: [{ price_current: 'asc' }], facets: ['attributes.color', 'attributes.size'] }));
  // As InstantSearch sends a page with three refined facets: the hits with the facets, and for each
  // refined facet its counts without its own refinement (no hits).
  const multi = plain.map((b) => JSON.stringify({ searches: [b, ...['brand', 'attributes.color', 'attributes.size'].map((facet) => ({ ...b, limit: 0, facets: [facet] }))] }));
  const runs: [string, string[], string][] = [
    ['relevance, brand facet', plain.map((b) => JSON.stringify(b)), PATH],
    ['sorted by price, 2 attribute facets', sorted, PATH],
    ['multi-search of 4 (hits + 3 facet-only)', multi, MULTI_PATH],
  ];
  const results: LoadResult[] = [];
  for (const connections of HTTP_CONNECTIONS) {
    const at: LoadResult[] = [];
    for (const [name, list, path] of runs) {
      const r = await loadRun(`   ${column.engine}: search page, ${name}, ${connections} conn:`, target, list, connections, path);
      checkRun(column, `search page, ${name}, ${connections} conn`, r, summary);
      summary.note(column.engine, `search page: ${name}, ${connections} conn`, figures(r), undefined, false);
      at.push(r);
    }
    const [base, ...others] = at;
    others.forEach((r, i) => {
      const cost = base.rps / r.rps;
      summary.note(column.engine, `search page: ${runs[i + 1][0]} ÷ one search, ${connections} conn`, `${fmt(cost, 2)}× the time`,
        connections === 1 ? { target: '≤ 1.5×', met: cost <= 1.5 } : undefined);
    });
    results.push(...at);
  }
  return results;
}

/**
 * Hybrid searches whose queries were never sent (each embedded on the query threads, those
 * arriving together in one model call), alone; then keyword searches alone and beside them: the
 * keyword p99 beside them within 2× of alone means the model never held the thread that serves HTTP.
 */
async function neverSeen(column: Column, target: Serve, keyword: string[], fresh: string[], summary: Summary): Promise<LoadResult[]> {
  let nextFresh = 0;
  let nextKeyword = 0;
  const watched = { ...target.pids, 'load generator': process.pid };
  const run = (bodies: () => string, duration: number) =>
    load({ url: `http://127.0.0.1:${target.port}`, connections: FRESH_CONNECTIONS, duration, requests: [{ method: 'POST', path: PATH, headers: target.headers, setupRequest: (req: object) => ({ ...req, body: bodies() }) }] }, watched, target.drain);
  const freshBody = () => JSON.stringify({ query: fresh[nextFresh++ % fresh.length], mode: 'hybrid', language: 'en', min_similarity: 0 });
  const keywordBody = () => keyword[nextKeyword++ % keyword.length];
  const label = `   ${column.engine}:`;
  const alone = await run(freshBody, SECONDS);
  console.log(`${label} hybrid, never-seen queries, ${FRESH_CONNECTIONS} conn: ${describeLoad(alone)}`);
  summary.note(column.engine, `hybrid, never-seen queries, ${FRESH_CONNECTIONS} conn`, `${fmt(alone.rps, 0)} req/s, p99 ${fmt(alone.p99, 1)} ms`, undefined, false);
  const keywordAlone = await run(keywordBody, SECONDS);
  const [beside, hybridBeside] = await Promise.all([run(keywordBody, SECONDS), run(freshBody, SECONDS)]);
  console.log(`${label} keyword, ${FRESH_CONNECTIONS} conn, alone: ${describeLoad(keywordAlone)}\n${label} keyword beside never-seen hybrid: ${describeLoad(beside)}; hybrid: ${describeLoad(hybridBeside)}`);
  for (const [name, r] of [['hybrid, never-seen', alone], ['keyword alone', keywordAlone], ['keyword beside hybrid', beside], ['hybrid beside keyword', hybridBeside]] as const) {
    checkRun(column, `${name}, ${FRESH_CONNECTIONS} conn`, r, summary);
  }
  const times = beside.p99 / keywordAlone.p99;
  summary.note(column.engine, `keyword p99 beside ${FRESH_CONNECTIONS} conn of never-seen hybrid ÷ alone`, `${fmt(times, 2)}× (${fmt(beside.p99, 1)} / ${fmt(keywordAlone.p99, 1)} ms)`, { target: '≤ 2×', met: times <= 2 });
  if (fresh.length < nextFresh) summary.problem(`${column.engine}: ${nextFresh} never-seen hybrid searches sent, only ${fresh.length} distinct queries: some were repeats`);
  return [alone, keywordAlone, beside, hybridBeside];
}
