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
// On the Query Engine, last, the replica run (searchReplicaReads.ts). Every run is drained
// (load.ts) before the next starts.
// The same code runs for both engines; the column gives the server, the engine and what to prepare.
import type { ProductSearch } from '../../src/search/engine.js';
import { fmt, type Undo } from './harness.js';
import { request } from './http.js';
import { describeLoad, drainer, load, type LoadResult } from './load.js';
import { peakRssMiB, rssMiB } from './proc.js';
import type { Column } from './searchColumn.js';
import { merchandising } from './searchMerchandising.js';
import { HTTP_CONNECTIONS, MODEL, SECONDS } from './searchConfig.js';
import { checkRun, cpuPerSearch, figures, loadRun, PATH, startServe, type Serve, type Target } from './searchServe.js';
import { FACETS, httpBody, type HttpBody, type SkewedQueries } from './searchQueries.js';
import { noteSkewed, skewedRuns } from './searchSkewed.js';
import { replicaReads } from './searchReplicaReads.js';
import type { Check, Summary } from './searchSummary.js';

export { PATH } from './searchServe.js';

const MULTI_PATH = '/api/knowledge/search/multi';
/** A serve whose every search runs on its engine (no cache of recent results). */
const NO_CACHE = { KCS_SEARCH_CACHE_MB: '0' };

/** Keyword searches (with site slugs, bound here), the hybrid/semantic query texts, and never-seen ones. */
export type HttpQueries = { keyword: ProductSearch[]; vector: string[]; fresh: string[]; skewed: SkewedQueries };

/** Connections of each side in the never-seen hybrid runs. */
const FRESH_CONNECTIONS = 8;

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
  // The engine's own cost: every search runs on it (with the cache of recent results a loop over 500
  // bodies would be answered from it after its first pass; the skewed workload below measures it).
  const keywordServe = await startServe(column, 'none', undo, summary, keyword[0], NO_CACHE);
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
  // The skewed storefront workload without the cache (the default), then with it.
  const skewed = { pool: queries.skewed.pool.map((s) => httpBody(column.bind(s))), fresh: queries.skewed.fresh.map((s) => httpBody(column.bind(s))) };
  let nextFresh = 0;
  const fresh = () => skewed.fresh[nextFresh++ % skewed.fresh.length];
  await keywordServe.serve.stop();
  // Each on a serve started for it, the same way (a fresh process's garbage and JIT alike).
  const skewedOn = async (name: string, env: Record<string, string>) => {
    const serve = await startServe(column, 'none', undo, summary, keyword[0], env);
    const runs = await skewedRuns(column, serve, name, skewed, fresh, summary);
    await serve.serve.stop();
    return runs;
  };
  const uncached = await skewedOn('without the cache', NO_CACHE);
  const cached = await skewedOn('with the cache', { KCS_SEARCH_CACHE_MB: '64' });
  noteSkewed(column, cached, uncached, summary);
  if (nextFresh > skewed.fresh.length) summary.problem(`${column.engine}: ${nextFresh} never-seen storefront searches sent, only ${skewed.fresh.length} distinct: some were repeats`);
  results.push(uncached.skewed, uncached.neverSeen, cached.skewed, cached.neverSeen);

  // Hybrid and semantic with the local model: a fixed set of queries, embedded once while warming.
  const vectorServe = await startServe(column, 'local', undo, summary, keyword[0], NO_CACHE);
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
  // Last: its read-your-writes pairs add products to the tenant.
  if (column.engine === 'redis-query-engine' && process.env.BENCH_REPLICA_READS !== '0') results.push(...(await replicaReads(column, keyword, undo, summary)));
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
