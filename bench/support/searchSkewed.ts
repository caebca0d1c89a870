// The skewed storefront workload: what the cache of recent results (src/search/resultCache.ts)
// buys on traffic as a shop sees it. Searches are drawn by popularity (Zipf, s = 1) from a pool of
// 3,000 distinct storefront searches, a fifth of them never seen before, while products are written
// to the tenant (BENCH_SKEWED_WRITES_PER_S, default 2: every write makes every held result of the
// tenant unusable). The same draw (same seed) against a serve with the cache and one without
// (KCS_SEARCH_CACHE_MB=0), at SKEWED_CONNECTIONS after 5 s of the same draw (the cache as a
// serving process has it); then searches that are all never seen, on each:
// what the cache costs a search it cannot answer. The hit rate is read from /metrics.
import { fmt } from './harness.js';
import { request } from './http.js';
import type { LoadResult } from './load.js';
import { Rng } from './rng.js';
import type { Column } from './searchColumn.js';
import { siteSlug } from './searchConfig.js';
import type { HttpBody } from './searchQueries.js';
import { checkRun, cpuPerSearch, figures, loadRun, PATH, type Serve } from './searchServe.js';
import type { Summary } from './searchSummary.js';
import { zipf } from './searchText.js';

export const SKEWED_CONNECTIONS = 32;
/** Connections of the never-seen runs. */
const FRESH_CONNECTIONS = 8;
const NEVER_SEEN_SHARE = 0.2;
/** Products written a second during the runs (fractions allowed: 0.2 is one every 5 s; 0: none). */
const WRITES_PER_S = Number(process.env.BENCH_SKEWED_WRITES_PER_S ?? 2);
if (!(WRITES_PER_S >= 0 && WRITES_PER_S <= 1000)) throw new Error('BENCH_SKEWED_WRITES_PER_S: a number of writes a second, 0 to 1000');
/** The same draw before measuring, writes included: a cache measured as a serving process has it, not empty. */
const WARMUP_SECONDS = 5;

/** The workload's bodies, bound to the column's sites. */
export interface SkewedBodies {
  pool: HttpBody[];
  fresh: HttpBody[];
}

/** One serve's runs: the skewed draw, then never-seen searches only. */
export interface SkewedRuns {
  skewed: LoadResult;
  neverSeen: LoadResult;
  /** Share of the skewed run's searches answered from the cache (null: no cache). */
  hitRate: number | null;
  writes: number;
}

/**
 * The skewed runs on `serve`. `fresh` hands out never-seen bodies (each once across both serves'
 * runs: a process never sees one twice).
 */
export async function skewedRuns(column: Column, serve: Serve, name: string, bodies: SkewedBodies, fresh: () => HttpBody, summary: Summary): Promise<SkewedRuns> {
  const rng = new Rng(31337);
  const popular = zipf(bodies.pool, 1);
  const next = () => ({ body: JSON.stringify(rng.next() < NEVER_SEEN_SHARE ? fresh() : popular(rng)) });
  const before = await cacheCounts(serve);
  const writer = startWriter(serve);
  const skewed = await loadRun(`   ${column.engine}: skewed storefront searches, ${name}, ${SKEWED_CONNECTIONS} conn:`, serve, next, SKEWED_CONNECTIONS, PATH, WARMUP_SECONDS);
  const writes = await writer.stop();
  const afterwards = await cacheCounts(serve);
  checkRun(column, `skewed, ${name}`, skewed, summary);
  const answered = before && afterwards ? afterwards.hits - before.hits + afterwards.misses - before.misses : 0;
  const hitRate = before && afterwards && answered > 0 ? (afterwards.hits - before.hits) / answered : null;
  const neverSeen = await loadRun(`   ${column.engine}: never-seen storefront searches, ${name}, ${FRESH_CONNECTIONS} conn:`, serve, () => ({ body: JSON.stringify(fresh()) }), FRESH_CONNECTIONS);
  checkRun(column, `never-seen, ${name}`, neverSeen, summary);
  return { skewed, neverSeen, hitRate, writes };
}

/** The figures of both serves' runs, and the targets: ≥ 2× with the cache, never-seen searches no slower. */
export function noteSkewed(column: Column, cached: SkewedRuns, uncached: SkewedRuns, summary: Summary): void {
  const e = column.engine;
  summary.note(e, `skewed storefront, with the cache, ${SKEWED_CONNECTIONS} conn`, `${figures(cached.skewed)}; ${fmt((cached.hitRate ?? 0) * 100, 0)}% from the cache; ` +
    `${cached.writes} products written meanwhile; CPU a search ${cpuPerSearch(cached.skewed)}`);
  summary.note(e, `skewed storefront, without it, ${SKEWED_CONNECTIONS} conn`, `${figures(uncached.skewed)}; ${uncached.writes} products written meanwhile; CPU a search ${cpuPerSearch(uncached.skewed)}`);
  const gain = cached.skewed.rps / uncached.skewed.rps;
  summary.note(e, `skewed storefront, with ÷ without the cache, ${SKEWED_CONNECTIONS} conn`, `${fmt(gain, 2)}× req/s`, { target: '≥ 2×', met: gain >= 2 });
  const fresh = cached.neverSeen.rps / uncached.neverSeen.rps;
  summary.note(e, `never-seen searches, with ÷ without the cache, ${FRESH_CONNECTIONS} conn`,
    `${fmt(fresh, 2)}× req/s (${fmt(cached.neverSeen.rps, 0)} / ${fmt(uncached.neverSeen.rps, 0)}); p50 ${fmt(cached.neverSeen.p50, 2)} / ${fmt(uncached.neverSeen.p50, 2)} ms`,
    { target: '≥ 0.95× (no slower)', met: fresh >= 0.95 });
}

/** A product created every 1/WRITES_PER_S s on the serve, until stopped; stop() answers how many were written (200/201). */
function startWriter(serve: Serve): { stop(): Promise<number> } {
  let written = 0;
  let n = 0;
  const inFlight = new Set<Promise<unknown>>();
  if (WRITES_PER_S === 0) return { stop: async () => 0 };
  const timer = setInterval(() => {
    const i = n++;
    const body = JSON.stringify({ external_id: `skewed-write-${process.pid}-${Date.now()}-${i}`, title: `Written meanwhile ${i}`, language: 'en', price_current: 10 + (i % 90) });
    const sent = request(serve.port, { method: 'POST', path: `/api/knowledge/products?site_id=${siteSlug(i % 100)}`, headers: serve.headers, body })
      .then((res) => void ((res.status === 200 || res.status === 201) && written++), () => undefined)
      .finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  }, 1000 / WRITES_PER_S);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
      return written;
    },
  };
}

/** The serve's cache counters from /metrics; null without a cache. */
async function cacheCounts(serve: Serve): Promise<{ hits: number; misses: number } | null> {
  const text = (await request(serve.port, { method: 'GET', path: '/metrics', headers: { host: serve.headers.host } })).body;
  const read = (name: string) => Number(new RegExp(`^kcs_search_cache_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const hits = read('hits');
  return Number.isNaN(hits) ? null : { hits, misses: read('misses') };
}
