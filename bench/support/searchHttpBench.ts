// End to end over HTTP for one column: real `kcs serve` child processes (searchServer.ts) on the
// column's Redis with its engine, POST /api/knowledge/search/products with autocannon at 1 and 32
// connections: keyword with KCS_EMBEDDER=none; hybrid and semantic with KCS_EMBEDDER=local over a
// small fixed set of queries whose embeddings are cached (warm LRU) before measuring. The same
// code runs for both engines; the column gives the server, the engine and what to prepare.
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { ProductSearch } from '../../src/search/engine.js';
import { ChildTarget } from './child.js';
import { fmt, type Undo } from './harness.js';
import { formatCpu, load, type LoadResult } from './load.js';
import { peakRssMiB } from './proc.js';
import type { Column } from './searchColumn.js';
import { cpuProfileArgs } from './cpuProfile.js';
import { CPU_PROF, HTTP_CONNECTIONS, HTTP_VECTOR_QUERIES, MODEL, SECONDS, WARMUP_SECONDS } from './searchConfig.js';
import { FACETS, httpBody } from './searchQueries.js';
import type { Summary } from './searchSummary.js';

type Embedder = 'none' | 'local';

const HOST = '127.0.0.1';
export const PATH = '/api/knowledge/search/products';

export interface HttpBenchOptions {
  column: Column;
  /** Keyword searches (with site slugs, bound here) and the hybrid/semantic query texts. */
  queries: { keyword: ProductSearch[]; vector: string[] };
  undo: Undo;
  summary: Summary;
}

interface Serve {
  serve: ChildTarget<{ type: 'ready'; port: number }>;
  port: number;
  /** The processes whose CPU each run shows. */
  pids: Record<string, number | undefined>;
  headers: Record<string, string>;
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
}

function call(port: number, { method, path, headers = {}, body, timeoutMs = 120_000 }: Request): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: HOST, port, method, path, headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) }, timeout: timeoutMs },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A serve child for the column and embedder, and its time from listening to /readyz 200 (noted). */
async function startServe({ column, undo, summary }: HttpBenchOptions, embedder: Embedder): Promise<Serve> {
  const profile = CPU_PROF ? cpuProfileArgs(join(CPU_PROF, `serve-${column.engine}-${embedder}`)) : [];
  const name = `kcs serve (${column.engine}, KCS_EMBEDDER=${embedder})`;
  const serve = new ChildTarget<{ type: 'ready'; port: number }>(name, new URL('./searchServer.ts', import.meta.url), { ...column.serveEnv(), KCS_EMBEDDER: embedder }, undefined, profile);
  undo(() => serve.stop());
  const { port } = await serve.ready;
  // The built-in engine builds its replica in the background; /readyz answers 200 once it is done.
  const started = performance.now();
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    const { status } = await call(port, { method: 'GET', path: '/readyz' });
    if (status === 200) break;
    if (Date.now() > deadline) throw new Error(`${name}: not ready after 30 minutes`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const readyMs = performance.now() - started;
  const what = embedder === 'none' ? 'text only' : 'text + vectors';
  console.log(`   ${name}: /readyz 200 ${fmt(readyMs / 1000, 2)} s after listening`);
  const limit = column.readyTargetMs;
  const check = limit === null ? undefined : { target: `${column.engine} < ${fmt(limit / 1000, 0)} s`, met: readyMs < limit };
  summary.note(column.engine, `serve start → /readyz 200, KCS_EMBEDDER=${embedder} (${what})`, `${fmt(readyMs / 1000, 2)} s`, check);
  return {
    serve, port, pids: { serve: serve.proc.pid, 'redis-server': column.redisPid },
    headers: { host: `${column.tenant.slug}.localhost:${port}`, authorization: `Bearer ${column.tenant.key}`, 'content-type': 'application/json' },
  };
}

async function measure(options: HttpBenchOptions, target: Serve, run: { name: string; bodies: string[] }): Promise<LoadResult[]> {
  const { column, summary } = options;
  const results: LoadResult[] = [];
  for (const connections of HTTP_CONNECTIONS) {
    let next = 0;
    const settings = (seconds: number) => ({
      url: `http://${HOST}:${target.port}`, connections, duration: seconds,
      requests: [{ method: 'POST' as const, path: PATH, headers: target.headers, setupRequest: (req: object) => ({ ...req, body: run.bodies[next++ % run.bodies.length] }) }],
    });
    await load(settings(WARMUP_SECONDS), {});
    const result = await load(settings(SECONDS), { ...target.pids, 'load generator': process.pid });
    results.push(result);
    const cpu = formatCpu(result.cpu);
    console.log(
      `   ${run.name.padEnd(34)} c=${String(connections).padEnd(3)} ${fmt(result.rps, 0).padStart(6)} req/s  p50 ${fmt(result.p50, 2).padStart(7)} ms  ` +
        `p99 ${fmt(result.p99, 2).padStart(7)} ms  non-2xx ${result.non2xx}  errors ${result.errors}${cpu ? `  (CPU ${cpu})` : ''}`,
    );
    if (result.non2xx > 0 || result.errors > 0) summary.problem(`${column.engine}, ${run.name} c=${connections}: ${result.non2xx} non-2xx, ${result.errors} errors (${JSON.stringify(result.statuses)})`);
    summary.note(column.engine, `${run.name}, end to end, ${connections} conn`, `${fmt(result.rps, 0)} req/s, p50 ${fmt(result.p50, 2)} ms, p99 ${fmt(result.p99, 2)} ms`);
  }
  return results;
}

function notePeakRss(options: HttpBenchOptions, target: Serve, label: string): void {
  const rss = peakRssMiB(target.serve.proc.pid);
  if (rss !== null) options.summary.note(options.column.engine, `peak RSS, kcs serve (${label})`, `${fmt(rss, 0)} MiB`);
}

export async function overHttp(options: HttpBenchOptions): Promise<void> {
  const { column, queries, summary } = options;
  const results: LoadResult[] = [];
  console.log(`\n   ${column.heading}`);

  // Keyword, embedding off.
  {
    const target = await startServe(options, 'none');
    const keyword = queries.keyword.map((s) => JSON.stringify(httpBody(column.bind(s))));
    const probe = await call(target.port, { method: 'POST', path: PATH, headers: target.headers, body: keyword[0] });
    if (probe.status !== 200) throw new Error(`${column.engine}: keyword search answered ${probe.status}: ${probe.text.slice(0, 500)}`);
    const answer = JSON.parse(probe.text) as { engine?: string; total: number; hits: unknown[] };
    if (answer.engine !== column.engine) throw new Error(`the serve child for ${column.engine} answered with engine ${answer.engine}`);
    console.log(`   one keyword answer: ${answer.hits.length} hits of ${answer.total}, ${fmt(Buffer.byteLength(probe.text) / 1024, 1)} KiB of JSON`);
    results.push(...(await measure(options, target, { name: `keyword (${keyword.length} distinct queries)`, bodies: keyword })));
    notePeakRss(options, target, 'KCS_EMBEDDER=none');
    await target.serve.stop();
  }

  // Hybrid and semantic with the local model: a fixed set of queries, embedded once while warming.
  {
    const target = await startServe(options, 'local');
    const embedTimes: number[] = [];
    for (const query of queries.vector) {
      const t = performance.now();
      const res = await call(target.port, { method: 'POST', path: PATH, headers: target.headers, body: JSON.stringify({ query, mode: 'hybrid' }) });
      embedTimes.push(performance.now() - t);
      const body = JSON.parse(res.text) as { mode?: string; semantic_fallback?: string | null; hits?: { ranks: { semantic: number | null } }[] };
      if (res.status !== 200 || body.mode !== 'hybrid' || body.semantic_fallback) throw new Error(`${column.engine}: hybrid search did not run semantic: ${res.status} ${res.text.slice(0, 300)}`);
      if (!body.hits?.some((h) => h.ranks.semantic !== null)) summary.problem(`${column.engine}, hybrid '${query}': no semantic rank in the hits (vectors not loaded under ${MODEL}?)`);
    }
    const sorted = [...embedTimes.slice(1)].sort((a, b) => a - b);
    const median = sorted[sorted.length >> 1] ?? NaN;
    console.log(
      `   query cache warmed: ${queries.vector.length} distinct queries embedded by the local model (first, with model load, ${fmt(embedTimes[0], 0)} ms; ` +
        `then median ${fmt(median, 1)} ms per uncached query); the runs below hit the LRU query cache only`,
    );
    summary.note(column.engine, 'uncached query embedding (local model), median, end to end', `${fmt(median, 1)} ms`);
    const hybrid = queries.vector.map((query, i) => JSON.stringify({ query, mode: 'hybrid', ...(i % 3 === 0 ? { facets: FACETS } : {}) }));
    results.push(...(await measure(options, target, { name: `hybrid (${HTTP_VECTOR_QUERIES} cached queries)`, bodies: hybrid })));
    const semantic = queries.vector.map((query) => JSON.stringify({ query, mode: 'semantic' }));
    results.push(...(await measure(options, target, { name: `semantic (${HTTP_VECTOR_QUERIES} cached queries)`, bodies: semantic })));
    notePeakRss(options, target, 'KCS_EMBEDDER=local, model loaded');
    await target.serve.stop();
  }
  const busiest = Math.max(...results.map((r) => r.cpu.other ?? 0));
  if (busiest > 0.1) {
    console.log(`   note: other processes took up to ${fmt(busiest * 100, 0)}% of a core during an HTTP run: these are not the figures of an idle machine`);
  }
}
