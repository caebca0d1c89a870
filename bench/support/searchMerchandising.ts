// The merchandiser's tools on the search path, each against the same searches without it in the
// same run (searchHttpBench.ts runs it on the keyword serve process):
//   - 10,000 synonym entries (2,500 multi-way sets of 4, tenant-wide, so every search applies
//     them): each set holds a word of the benchmark's queries and three made-up words no product
//     holds, so a search pays for the table and the readings it adds, not for more matches.
//     Target: ≤ 1.1× a search's time without them, one connection.
//   - search analytics, against the tenant's search_analytics off: every search counted and given a
//     query_id; then also one request in ten a click event for a query_id of an earlier search.
//     Search throughput with them (the searches' share of the requests) ÷ without; target ≥ 0.95
//     at 32 connections, the server's capacity (at one connection the load generator waits for
//     each event's answer in turn, so an event's round trip reads as a search not sent).
// Each comparison runs off, on (each variant), off and sets "on" against the mean of the two "off" runs.
import type { Column } from './searchColumn.js';
import { HTTP_CONNECTIONS } from './searchConfig.js';
import type { HttpBody } from './searchQueries.js';
import type { Summary } from './searchSummary.js';
import { fmt } from './harness.js';
import type { LoadResult } from './load.js';

const EVENTS_PATH = '/api/knowledge/search/events';
const PATH = '/api/knowledge/search/products';
/** One request in EVENT_SHARE is an event. */
const EVENT_SHARE = 10;
const SETS = 2500;

/** A request of a run: its body, and a path other than the search's. */
export type NextRequest = () => { body: string; path?: string };
export type RunLoad = (label: string, next: NextRequest, connections: number) => Promise<LoadResult>;
export type Post = (path: string, body: string) => Promise<{ status: number; body: string }>;

const figures = (r: LoadResult) => `${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 2)} ms`;
const cycle = (bodies: string[]): NextRequest => {
  let next = 0;
  return () => ({ body: bodies[next++ % bodies.length] });
};

/** A Solr file of SETS sets of 4: a word of the queries (while they last) and three words no product holds. */
export function synonymFile(queries: string[]): string {
  const words = [...new Set(queries.flatMap((q) => q.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []))];
  const lines: string[] = [];
  for (let i = 0; i < SETS; i++) {
    const made = (k: number) => `qz${i.toString(36)}x${k}`;
    lines.push([words[i] ?? made(9), made(1), made(2), made(3)].join(', '));
  }
  return `${lines.join('\n')}\n`;
}

export async function merchandising(column: Column, load: RunLoad, post: Post, plain: HttpBody[], summary: Summary, check: (name: string, r: LoadResult) => void): Promise<LoadResult[]> {
  const { services, tenant } = column;
  const bodies = plain.map((b) => JSON.stringify(b));
  const results: LoadResult[] = [];
  /**
   * off, each "on" variant, off at each connection count; each variant ÷ the mean of the "off" runs,
   * by its `share` (the searches' part of its requests); the target on each variant at `targetAt` connections.
   */
  const compare = async (name: string, set: (on: boolean) => Promise<void>, off: NextRequest, variants: { name: string; next: NextRequest; share: number }[],
    targetAt: number, target: string, met: (ratio: number) => boolean) => {
    for (const connections of HTTP_CONNECTIONS) {
      const runs: { label: string; on: boolean; next: NextRequest }[] = [
        { label: 'off', on: false, next: off }, ...variants.map((v) => ({ label: v.name, on: true, next: v.next })), { label: 'off', on: false, next: off },
      ];
      const at: LoadResult[] = [];
      for (const run of runs) {
        await set(run.on);
        // Every distinct search once first: the caches of the Query Engine's term counts hold them
        // (the same searches warmed them for the "off" runs before), as in a shop whose synonyms are old.
        for (const body of bodies) await post(PATH, body);
        const r = await load(`   ${column.engine}: ${name}, ${run.label}, ${connections} conn:`, run.next, connections);
        check(`${name}, ${run.label}, ${connections} conn`, r);
        at.push(r);
      }
      const offRps = (at[0].rps + at[at.length - 1].rps) / 2;
      summary.note(column.engine, `${name}: off (mean of 2), ${connections} conn`, `${fmt(offRps, 0)} req/s`, undefined, false);
      variants.forEach((v, i) => {
        const ratio = (at[i + 1].rps * v.share) / offRps;
        summary.note(column.engine, `${name}: ${v.name}, ${connections} conn`, figures(at[i + 1]), undefined, false);
        summary.note(column.engine, `${name}: ${v.name}, search req/s ÷ off, ${connections} conn`, `${fmt(ratio, 3)}×`, connections === targetAt ? { target, met: met(ratio) } : undefined);
      });
      results.push(...at);
    }
  };

  // Synonyms: written through the domain path; serve processes apply them within a second (the warm-up).
  const file = synonymFile(plain.map((b) => b.query));
  await compare('10,000 synonym entries', async (on) => {
    const sets = await services.synonyms.list(tenant.id, {}, { offset: 0, limit: -1 });
    for (const set of sets.items) await services.synonyms.delete(tenant.id, set.id);
    if (on) await services.synonyms.importFile(tenant.id, file, {});
  }, cycle(bodies), [{ name: 'on', next: cycle(bodies), share: 1 }], 1, '≥ 0.91× req/s (≤ 1.1× the time)', (ratio) => ratio >= 1 / 1.1);

  // Analytics: query ids of real searches for the click events.
  const settings = async (on: boolean) => {
    const current = await services.tenants.bySlug(tenant.slug);
    await services.tenants.updateSettings(current!, { search_analytics: on });
    // Another process sees a settings change within TenantService.CACHE_MS.
    await new Promise((r) => setTimeout(r, 1200));
  };
  await settings(true);
  const clicks: { query_id: string; product_id: string }[] = [];
  for (const body of bodies.slice(0, 50)) {
    const answer = JSON.parse((await post(PATH, body)).body) as { query_id?: string | null; hits: { id: string }[] };
    if (answer.query_id && answer.hits[0]) clicks.push({ query_id: answer.query_id, product_id: answer.hits[0].id });
  }
  if (clicks.length === 0) {
    summary.problem(`${column.engine}: no search answered a query_id and a hit: analytics not measured`);
    return results;
  }
  let sent = 0;
  const searches = cycle(bodies);
  const withEvents: NextRequest = () => {
    sent++;
    if (sent % EVENT_SHARE !== 0) return searches();
    const click = clicks[sent % clicks.length];
    return { path: EVENTS_PATH, body: JSON.stringify({ events: [{ event_id: `bench-${process.pid}-${sent}`, type: 'click', position: 1, ...click }] }) };
  };
  await compare('search analytics', settings, cycle(bodies), [
    { name: 'counting and query ids', next: cycle(bodies), share: 1 },
    { name: 'and 1 request in 10 a click event', next: withEvents, share: 1 - 1 / EVENT_SHARE },
  ], HTTP_CONNECTIONS[HTTP_CONNECTIONS.length - 1], '≥ 0.95× search req/s', (ratio) => ratio >= 0.95);
  await settings(true);
  return results;
}
