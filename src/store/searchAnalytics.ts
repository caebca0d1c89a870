// A tenant's search analytics (DESIGN §6 merchandising): per UTC day and bucket a hash of counts
// and three zsets kept to the most searched queries (lua/countSearches-4.lua), the keys that make a
// retried event count once (lua/searchEvents.lua), and the unions a report reads
// (lua/topQueries.lua). Every key but the signing secret is in the tenant's slot.
import { randomBytes, randomUUID } from 'node:crypto';
import { keys } from './keys.js';
import { readHashes, type Store } from './redis.js';
import { searchEventsCall, topQueriesCall, type SearchEventRow } from './scriptCalls.js';

/** A day's query list keeps its `trimTo` most searched whenever it passes `trimAt`: the bound on its memory. */
export const QUERY_LIST = { trimTo: 1000, trimAt: 1500 } as const;
/** The bucket of every search of the tenant, and that of the searches naming no site. */
export const ALL_SITES = '*';
export const NO_SITE = '_';
/** How long an event id counts as seen, and a search as clicked or converted. */
export const EVENT_ID_TTL_S = 24 * 3600;
export const ENGAGED_TTL_S = 2 * 24 * 3600;

/** One process's searches of a tenant, bucket and day since its last flush. */
export interface SearchTally {
  searches: number;
  noResults: number;
  /** Searches per UTC hour, 0–23. */
  hours: number[];
  /** Per normalised query (the empty one never): its searches and the sum of their hit counts. */
  queries: Map<string, { count: number; hitSum: number }>;
  noResultQueries: Map<string, number>;
}

export const DAY_FIELDS = ['searches', 'no_result', 'clicks', 'click_position_sum', 'clicked_searches', 'conversions', 'converted_searches'] as const;
export type DayField = (typeof DAY_FIELDS)[number];
export type DayStats = Record<DayField, number> & { hours: number[] };

const HOUR_FIELDS = Array.from({ length: 24 }, (_, h) => hourField(h));
export function hourField(hour: number): string {
  return `h${String(hour).padStart(2, '0')}`;
}

/** An event checked and placed: its search's day and site bucket (from its query_id). */
export interface PlacedEvent {
  eventId: string;
  type: 'click' | 'conversion';
  queryId: string;
  day: string;
  bucket: string;
  position: number | null;
}

export interface TopQuery {
  query: string;
  count: number;
  /** Σ hit counts of its searches (0 when not asked). */
  hitSum: number;
}

export class SearchAnalyticsRepository {
  constructor(private readonly redis: Store) {}

  /** The key query_ids are signed with: made by the first process to ask, the same for all. */
  async secret(): Promise<Buffer> {
    await this.redis.set(keys.analyticsSecret, randomBytes(32).toString('base64'), 'NX');
    const stored = await this.redis.get(keys.analyticsSecret);
    if (!stored) throw new Error('the analytics secret vanished');
    return Buffer.from(stored, 'base64');
  }

  /** Adds a tally to its day (one script call); the number of queries trimmed away. */
  count(tenantId: string, bucket: string, day: string, tally: SearchTally, expireAt: number): Promise<number> {
    const args: (string | number)[] = [];
    const hours = tally.hours.flatMap((count, h) => (count > 0 ? [hourField(h), count] : []));
    args.push(hours.length / 2, ...hours, tally.queries.size);
    for (const [query, { count, hitSum }] of tally.queries) args.push(query, count, hitSum);
    args.push(tally.noResultQueries.size);
    for (const [query, count] of tally.noResultQueries) args.push(query, count);
    return this.redis.countSearches(
      keys.searchStats(tenantId, bucket, day), keys.searchQueries(tenantId, bucket, day), keys.searchNoResults(tenantId, bucket, day),
      keys.searchHitSums(tenantId, bucket, day), expireAt, tally.searches, tally.noResults, QUERY_LIST.trimTo, QUERY_LIST.trimAt, ...args,
    );
  }

  /**
   * Counts the events in one step, each in its search's site bucket and the tenant's; an event id
   * seen in the last day is a duplicate. `expireAt`: when a day's counts expire (unix seconds).
   */
  async events(tenantId: string, events: PlacedEvent[], expireAt: (day: string) => number): Promise<{ accepted: number; duplicates: number }> {
    const table: string[] = [];
    const refs = new Map<string, number>();
    const ref = (key: string) => {
      let at = refs.get(key);
      if (at === undefined) {
        table.push(key);
        refs.set(key, (at = table.length));
      }
      return at;
    };
    const stats: { ref: number; expireAt: number }[] = [];
    const statsRef = (bucket: string, day: string) => {
      const key = keys.searchStats(tenantId, bucket, day);
      const known = refs.has(key);
      const at = ref(key);
      if (!known) stats.push({ ref: at, expireAt: expireAt(day) });
      return at;
    };
    const rows: SearchEventRow[] = events.map((e) => ({
      siteStatsRef: statsRef(e.bucket, e.day),
      allStatsRef: statsRef(ALL_SITES, e.day),
      eventRef: ref(keys.searchEvent(tenantId, e.eventId)),
      markRef: ref(keys.searchEngaged(tenantId, e.type, e.queryId)),
      type: e.type,
      position: e.position ?? '',
    }));
    const [accepted, duplicates] = await this.redis.searchEvents(...searchEventsCall({
      keyTable: table, eventTtlS: EVENT_ID_TTL_S, markTtlS: ENGAGED_TTL_S, stats, rows,
    }));
    return { accepted, duplicates };
  }

  /** The counts of each day of a bucket, zeros where none are stored. */
  async days(tenantId: string, bucket: string, days: string[]): Promise<DayStats[]> {
    const fields = [...DAY_FIELDS, ...HOUR_FIELDS];
    const rows = await readHashes(this.redis, days.map((d) => keys.searchStats(tenantId, bucket, d)), fields);
    return rows.map((values) => {
      const number = (i: number) => Number(values[i] ?? 0);
      const day = Object.fromEntries(DAY_FIELDS.map((f, i) => [f, number(i)])) as Record<DayField, number>;
      return { ...day, hours: HOUR_FIELDS.map((_, h) => number(DAY_FIELDS.length + h)) };
    });
  }

  /**
   * The most searched queries over the days of a bucket (`noResults`: those without results), at
   * most `limit`, each searched at least `minCount` times; with their hit sums unless `noResults`.
   */
  async top(tenantId: string, bucket: string, days: string[], { noResults, limit, minCount }: { noResults: boolean; limit: number; minCount: number }): Promise<TopQuery[]> {
    const id = randomUUID();
    const counts = days.map((d) => (noResults ? keys.searchNoResults(tenantId, bucket, d) : keys.searchQueries(tenantId, bucket, d)));
    const flat = await this.redis.topQueries(...topQueriesCall({
      scratch: [keys.searchAnalyticsTmp(tenantId, `${id}:a`), keys.searchAnalyticsTmp(tenantId, `${id}:b`)],
      counts,
      hitSums: noResults ? null : days.map((d) => keys.searchHitSums(tenantId, bucket, d)),
      limit,
      minCount,
    }));
    const step = noResults ? 2 : 3;
    const top: TopQuery[] = [];
    for (let i = 0; i < flat.length; i += step) top.push({ query: flat[i], count: Number(flat[i + 1]), hitSum: noResults ? 0 : Number(flat[i + 2]) });
    return top;
  }
}
