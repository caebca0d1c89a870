// A `kcs serve` of a search benchmark's column and what loads it: autocannon runs (warmed,
// drained), their failures as problems, and their figures (req/s and latency, CPU a search per
// process). Shared by the HTTP runs (searchHttpBench.ts) and the skewed workload (searchSkewed.ts).
import { fmt, type Undo } from './harness.js';
import { request } from './http.js';
import { startKcs } from './kcs.js';
import { drainer, warmThenLoad, type Drain, type LoadResult } from './load.js';
import type { Column } from './searchColumn.js';
import type { NextRequest } from './searchMerchandising.js';
import { SECONDS, WARMUP_SECONDS } from './searchConfig.js';
import type { Summary } from './searchSummary.js';

export const PATH = '/api/knowledge/search/products';

/** What a run loads: a server's port and request headers, the processes whose CPU is shown, its drain. */
export interface Target {
  port: number;
  headers: Record<string, string>;
  pids: Record<string, number | undefined>;
  drain: Drain;
}

/** A serve process of the column with `embedder`, noting its time from listening to /readyz 200; `probe` (a body) drains its runs. */
export async function startServe(column: Column, embedder: 'none' | 'local', undo: Undo, summary: Summary, probe: string, extraEnv: Record<string, string> = {}) {
  const env = { KCS_EMBEDDER: embedder, KCS_SEARCH_ENGINE: column.searchEngine, ...extraEnv };
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

export type Serve = Awaited<ReturnType<typeof startServe>>;

/** A warmed, drained autocannon run of `bodies` in turn (or of what `bodies` gives) against `target`, printed as `label`. */
export function loadRun(label: string, target: Target, bodies: string[] | NextRequest, connections: number, path = PATH, warmupSeconds = WARMUP_SECONDS): Promise<LoadResult> {
  let i = 0;
  const next: NextRequest = typeof bodies === 'function' ? bodies : () => ({ body: bodies[i++ % bodies.length] });
  const options = {
    url: `http://127.0.0.1:${target.port}`, connections,
    requests: [{ method: 'POST' as const, path, headers: target.headers, setupRequest: (req: object) => ({ ...req, path, ...next() }) }],
  };
  return warmThenLoad(label, options, warmupSeconds, SECONDS, { ...target.pids, 'load generator': process.pid }, target.drain);
}

/** A run's failures as problems: wrong answers, nothing completed, a queue not drained. */
export function checkRun(column: Column, name: string, r: LoadResult, summary: Summary): void {
  if (r.non2xx > 0 || r.errors > 0) summary.problem(`${column.engine}, ${name}: ${r.non2xx} non-2xx, ${r.errors} errors (${JSON.stringify(r.statuses)})`);
  if (r.rps === 0) summary.problem(`${column.engine}, ${name}: no request completed`);
  if (r.undrained) summary.problem(`${column.engine}, ${name}: the server was still answering slowly ${fmt(r.drainS, 0)} s after the run`);
}

export const figures = (r: LoadResult) => `${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms`;

/** CPU µs a completed search of each server-side process of a run (the load generator and the rest of the machine left out). */
export const cpuPerSearch = (r: LoadResult) => Object.entries(r.cpu).filter(([name]) => name !== 'load generator' && name !== 'other')
  .map(([name, cores]) => `${name} ${fmt((cores / r.rps) * 1e6, 0)} µs`).join(', ');
