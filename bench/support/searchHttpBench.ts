// End to end over HTTP for one column: real `kcs serve` processes (support/kcs.ts) on the
// column's Redis with its engine, POST /api/knowledge/search/products with autocannon at 1 and 32
// connections: keyword with KCS_EMBEDDER=none; hybrid and semantic with KCS_EMBEDDER=local over a
// small fixed set of English queries (`language` en: the local model serves English; `min_similarity`
// 0: the catalogue's vectors are synthetic, so the model's queries are far from every one) whose
// embeddings are cached (warm LRU) before measuring; then hybrid
// with never-seen queries, alone and beside keyword searches. Each search figure is also given as
// a share of GET /healthz through the same serve process in the same run (the cheapest request).
// The same code runs for both engines; the column gives the server, the engine and what to prepare.
import type { ProductSearch } from '../../src/search/engine.js';
import { fmt, type Undo } from './harness.js';
import { request } from './http.js';
import { startKcs } from './kcs.js';
import { describeLoad, load, warmThenLoad, type LoadResult } from './load.js';
import { peakRssMiB } from './proc.js';
import type { Column } from './searchColumn.js';
import { HTTP_CONNECTIONS, MODEL, SECONDS, WARMUP_SECONDS } from './searchConfig.js';
import { FACETS, httpBody } from './searchQueries.js';
import type { Summary } from './searchSummary.js';

export const PATH = '/api/knowledge/search/products';

/** Keyword searches (with site slugs, bound here), the hybrid/semantic query texts, and never-seen ones. */
export type HttpQueries = { keyword: ProductSearch[]; vector: string[]; fresh: string[] };

/** Connections of each side in the never-seen hybrid runs. */
const FRESH_CONNECTIONS = 8;

/** A serve process of the column with `embedder`, noting its time from listening to /readyz 200. */
async function startServe(column: Column, embedder: 'none' | 'local', undo: Undo, summary: Summary) {
  const env = { KCS_EMBEDDER: embedder, KCS_SEARCH_ENGINE: column.searchEngine };
  // The built-in engine builds its replica in the background; /readyz answers 200 once it is done.
  const serve = await startKcs(undo, 'serve', { redis: column.redis, env, profile: `serve-${column.engine}-${embedder}` });
  const limit = column.readyTargetMs;
  const check = limit === null ? undefined : { target: `${column.engine} < ${fmt(limit / 1000, 0)} s`, met: serve.readyMs < limit };
  summary.note(column.engine, `serve start → /readyz 200, KCS_EMBEDDER=${embedder}`, `${fmt(serve.readyMs / 1000, 2)} s`, check);
  const headers = { host: `${column.tenant.slug}.localhost:${serve.port}`, authorization: `Bearer ${column.tenant.key}`, 'content-type': 'application/json' };
  const post = (body: string) => request(serve.port, { method: 'POST', path: PATH, headers, body });
  return { serve, port: serve.port, headers, post, pids: { serve: serve.pid, 'redis-server': column.redisPid } };
}

type Serve = Awaited<ReturnType<typeof startServe>>;

/** Autocannon runs at each connection count over `bodies`, noted; their results. */
async function measure(column: Column, target: Serve, name: string, bodies: string[], summary: Summary): Promise<LoadResult[]> {
  const results: LoadResult[] = [];
  for (const connections of HTTP_CONNECTIONS) {
    let next = 0;
    const options = {
      url: `http://127.0.0.1:${target.port}`, connections,
      requests: [{ method: 'POST' as const, path: PATH, headers: target.headers, setupRequest: (req: object) => ({ ...req, body: bodies[next++ % bodies.length] }) }],
    };
    const r = await warmThenLoad(`   ${column.engine}: ${name}, ${connections} conn:`, options, WARMUP_SECONDS, SECONDS, { ...target.pids, 'load generator': process.pid });
    results.push(r);
    summary.note(column.engine, `${name}, end to end, ${connections} conn`, `${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms`, undefined, false);
    if (r.non2xx > 0 || r.errors > 0) summary.problem(`${column.engine}, ${name} c=${connections}: ${r.non2xx} non-2xx, ${r.errors} errors (${JSON.stringify(r.statuses)})`);
  }
  const rss = peakRssMiB(target.serve.pid);
  if (rss !== null) summary.note(column.engine, `peak RSS, kcs serve, after the ${name.split(' ')[0]} runs`, `${fmt(rss, 0)} MiB`);
  return results;
}

/** GET /healthz at the last connection count: the baseline of the search figures on this serve. */
async function healthz(column: Column, target: Serve, summary: Summary): Promise<LoadResult> {
  const connections = HTTP_CONNECTIONS[HTTP_CONNECTIONS.length - 1];
  const options = { url: `http://127.0.0.1:${target.port}/healthz`, connections, headers: { host: target.headers.host } };
  const r = await warmThenLoad(`   ${column.engine}: GET /healthz, ${connections} conn:`, options, WARMUP_SECONDS, SECONDS, { ...target.pids, 'load generator': process.pid });
  summary.note(column.engine, `GET /healthz, ${connections} conn (the ratios' baseline)`, `${fmt(r.rps, 0)} req/s`, undefined, false);
  return r;
}

/** A search's rate at the last connection count as a share of /healthz's. */
function ratio(column: Column, summary: Summary, name: string, search: LoadResult[], health: LoadResult, target: number): void {
  const share = search[search.length - 1].rps / health.rps;
  summary.note(column.engine, `${name} ÷ /healthz, ${HTTP_CONNECTIONS[HTTP_CONNECTIONS.length - 1]} conn`, fmt(share, 3), { target: `≥ ${target}`, met: share >= target });
}

export async function overHttp(column: Column, queries: HttpQueries, undo: Undo, summary: Summary): Promise<LoadResult[]> {
  console.log(`\n   ${column.heading}`);
  const results: LoadResult[] = [];

  // Keyword, embedding off.
  const keywordServe = await startServe(column, 'none', undo, summary);
  const keyword = queries.keyword.map((s) => JSON.stringify(httpBody(column.bind(s))));
  const probe = await keywordServe.post(keyword[0]);
  const answer = JSON.parse(probe.body) as { engine?: string; total: number; hits: unknown[] };
  if (probe.status !== 200 || answer.engine !== column.engine) throw new Error(`${column.engine}: keyword search answered ${probe.status}: ${probe.body.slice(0, 500)}`);
  const keywordHealth = await healthz(column, keywordServe, summary);
  const keywordRuns = await measure(column, keywordServe, `keyword (${keyword.length} distinct queries)`, keyword, summary);
  results.push(keywordHealth, ...keywordRuns);
  ratio(column, summary, 'keyword', keywordRuns, keywordHealth, column.engine === 'builtin' ? 0.25 : 0.15);
  const p99 = keywordRuns[keywordRuns.length - 1].p99;
  if (column.engine === 'builtin') summary.note(column.engine, 'keyword p99, 32 conn', `${fmt(p99, 1)} ms`, { target: '≤ 20 ms', met: p99 <= 20 });
  await keywordServe.serve.stop();

  // Hybrid and semantic with the local model: a fixed set of queries, embedded once while warming.
  const vectorServe = await startServe(column, 'local', undo, summary);
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
  const vectorHealth = await healthz(column, vectorServe, summary);
  const hybridRuns = await measure(column, vectorServe, `hybrid (${count} cached queries)`, hybrid, summary);
  results.push(vectorHealth, ...hybridRuns);
  if (column.engine === 'builtin') ratio(column, summary, 'hybrid', hybridRuns, vectorHealth, 0.08);
  const semantic = queries.vector.map((query) => JSON.stringify({ query, mode: 'semantic', language: 'en', min_similarity: 0 }));
  results.push(...(await measure(column, vectorServe, `semantic (${count} cached queries)`, semantic, summary)));
  results.push(...(await neverSeen(column, vectorServe, keyword, queries.fresh, summary)));
  await vectorServe.serve.stop();
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
    load({ url: `http://127.0.0.1:${target.port}`, connections: FRESH_CONNECTIONS, duration, requests: [{ method: 'POST', path: PATH, headers: target.headers, setupRequest: (req: object) => ({ ...req, body: bodies() }) }] }, watched);
  const freshBody = () => JSON.stringify({ query: fresh[nextFresh++ % fresh.length], mode: 'hybrid', language: 'en', min_similarity: 0 });
  const keywordBody = () => keyword[nextKeyword++ % keyword.length];
  const label = `   ${column.engine}:`;
  const alone = await run(freshBody, SECONDS);
  console.log(`${label} hybrid, never-seen queries, ${FRESH_CONNECTIONS} conn: ${describeLoad(alone)}`);
  summary.note(column.engine, `hybrid, never-seen queries, ${FRESH_CONNECTIONS} conn`, `${fmt(alone.rps, 0)} req/s, p99 ${fmt(alone.p99, 1)} ms`, undefined, false);
  const keywordAlone = await run(keywordBody, SECONDS);
  const [beside, hybridBeside] = await Promise.all([run(keywordBody, SECONDS), run(freshBody, SECONDS)]);
  console.log(`${label} keyword, ${FRESH_CONNECTIONS} conn, alone: ${describeLoad(keywordAlone)}\n${label} keyword beside never-seen hybrid: ${describeLoad(beside)}; hybrid: ${describeLoad(hybridBeside)}`);
  const times = beside.p99 / keywordAlone.p99;
  summary.note(column.engine, `keyword p99 beside ${FRESH_CONNECTIONS} conn of never-seen hybrid ÷ alone`, `${fmt(times, 2)}× (${fmt(beside.p99, 1)} / ${fmt(keywordAlone.p99, 1)} ms)`, { target: '≤ 2×', met: times <= 2 });
  if (fresh.length < nextFresh) summary.problem(`${column.engine}: ${nextFresh} never-seen hybrid searches sent, only ${fresh.length} distinct queries: some were repeats`);
  return [alone, keywordAlone, beside, hybridBeside];
}
