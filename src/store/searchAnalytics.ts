// A tenant's search analytics (DESIGN §6 merchandising): per UTC day and bucket a hash of counts,
// three zsets kept to the most searched queries and the distinct searchers of each with their
// keyed tags (lua/countSearches-6.lua), the keys that make a retried event count once and a search
// count a product once (lua/searchEvents.lua), the unions a report and the suggestions read
// (lua/topQueries.lua, lua/suggestionCandidates.lua), and the queries the tenant blocked from
// suggestions. Every key but the signing secret is in the tenant's slot.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { auditArgs, auditKeys, type AuditActor } from './audit.js';
import { keys } from './keys.js';
import { readHashes, type Store } from './redis.js';
import { searchEventsCall, suggestionCandidatesCall, topQueriesCall, type SearchEventRow } from './scriptCalls.js';

/** A day's query list keeps its `trimTo` most searched whenever it passes `trimAt`: the bound on its memory. */
export const QUERY_LIST = { trimTo: 1000, trimAt: 1500 } as const;
/** The bucket of every search of the tenant, and that of the searches naming no site. */
export const ALL_SITES = '*';
export const NO_SITE = '_';
/** How long an event id counts as seen, and what a search's events counted (its query_id is taken for 24 h). */
export const EVENT_ID_TTL_S = 24 * 3600;
export const SEARCH_EVENTS_TTL_S = 2 * 24 * 3600;
/** The queries a tenant may block from its suggestions. */
export const MAX_BLOCKED_SUGGESTIONS = 10_000;

/** One process's searches of a tenant, bucket and day since its last flush. */
export interface SearchTally {
  searches: number;
  noResults: number;
  /** Searches per UTC hour, 0–23. */
  hours: number[];
  /** Per normalised query (the empty one never): its searches and the sum of their hit counts. */
  queries: Map<string, { count: number; hitSum: number }>;
  noResultQueries: Map<string, number>;
  /**
   * Per normalised query, the searchers of this tally that count toward suggestions: 8 bytes each,
   * the keyed tag of the key and address, then that of the user_token (zeros: none).
   */
  searchers: Map<string, Buffer>;
}

/** How a tally's counts expire, and how many distinct searchers of a query a day counts at most. */
export interface TallyLimits {
  /** Unix seconds. */
  expireAt: number;
  searcherTagsExpireAt: number;
  maxSearchers: number;
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
  /** The search's site (its products are the site's), null: the tenant's. */
  siteId: string | null;
  productId: string;
  position: number | null;
}

/** The events counted, or (nothing counted) the indexes of those whose product is unknown. */
export type EventsOutcome = { accepted: number; duplicates: number } | { unknownProducts: number[] };

export interface BlockedSuggestion {
  query: string;
  blockedAtMs: number;
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
  count(tenantId: string, bucket: string, day: string, tally: SearchTally, limits: TallyLimits): Promise<number> {
    const args: (string | number | Buffer)[] = [];
    const hours = tally.hours.flatMap((count, h) => (count > 0 ? [hourField(h), count] : []));
    args.push(hours.length / 2, ...hours, tally.queries.size);
    for (const [query, { count, hitSum }] of tally.queries) args.push(query, count, hitSum);
    args.push(tally.noResultQueries.size);
    for (const [query, count] of tally.noResultQueries) args.push(query, count);
    args.push(tally.searchers.size);
    for (const [query, records] of tally.searchers) args.push(query, records);
    return this.redis.countSearches(
      keys.searchStats(tenantId, bucket, day), keys.searchQueries(tenantId, bucket, day), keys.searchNoResults(tenantId, bucket, day),
      keys.searchHitSums(tenantId, bucket, day), keys.searchSearchers(tenantId, bucket, day), keys.searchSearcherTags(tenantId, bucket, day),
      limits.expireAt, tally.searches, tally.noResults, QUERY_LIST.trimTo, QUERY_LIST.trimAt, limits.searcherTagsExpireAt, limits.maxSearchers, ...args,
    );
  }

  /**
   * Counts the events in one step, each in its search's site bucket and the tenant's; an event id
   * seen in the last day, and a search's second click (conversion) of a product, are duplicates.
   * A product that is not the tenant's (the search's site's) counts nothing of the request.
   * `expireAt`: when a day's counts expire (unix seconds).
   */
  async events(tenantId: string, events: PlacedEvent[], expireAt: (day: string) => number): Promise<EventsOutcome> {
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
      searchRef: ref(keys.searchQueryEvents(tenantId, e.queryId)),
      productsRef: ref(e.siteId === null ? keys.products(tenantId) : keys.siteProducts(tenantId, e.siteId)),
      type: e.type,
      productId: e.productId,
      position: e.position ?? '',
    }));
    const [first, ...rest] = await this.redis.searchEvents(...searchEventsCall({
      keyTable: table, eventTtlS: EVENT_ID_TTL_S, searchTtlS: SEARCH_EVENTS_TTL_S, stats, rows,
    }));
    return first === -1 ? { unknownProducts: rest.map(Number) } : { accepted: Number(first), duplicates: Number(rest[0]) };
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

  /**
   * The most searched queries over the days of a bucket whose distinct searchers over those days
   * reach `minSearchers`, less the blocked ones, at most `limit`, with their hit sums.
   */
  async suggestionCandidates(tenantId: string, bucket: string, days: string[], { limit, minSearchers }: { limit: number; minSearchers: number }): Promise<TopQuery[]> {
    const id = randomUUID();
    const flat = await this.redis.suggestionCandidates(...suggestionCandidatesCall({
      scratch: [keys.searchAnalyticsTmp(tenantId, `${id}:a`), keys.searchAnalyticsTmp(tenantId, `${id}:b`)],
      blocked: keys.suggestionsBlocked(tenantId),
      searchers: days.map((d) => keys.searchSearchers(tenantId, bucket, d)),
      counts: days.map((d) => keys.searchQueries(tenantId, bucket, d)),
      hitSums: days.map((d) => keys.searchHitSums(tenantId, bucket, d)),
      limit,
      minSearchers,
    }));
    const top: TopQuery[] = [];
    for (let i = 0; i < flat.length; i += 3) top.push({ query: flat[i], count: Number(flat[i + 1]), hitSum: Number(flat[i + 2]) });
    return top;
  }

  /** The queries blocked from the tenant's suggestions, alphabetical. */
  async blocked(tenantId: string): Promise<BlockedSuggestion[]> {
    const flat = await this.redis.zrange(keys.suggestionsBlocked(tenantId), '0', '-1', 'WITHSCORES');
    const list: BlockedSuggestion[] = [];
    for (let i = 0; i < flat.length; i += 2) list.push({ query: flat[i], blockedAtMs: Number(flat[i + 1]) });
    return list.sort((a, b) => (a.query < b.query ? -1 : a.query > b.query ? 1 : 0));
  }

  /**
   * Blocks a (normalised) query, audited: 'blocked', 'already' (nothing written) or 'full'
   * (MAX_BLOCKED_SUGGESTIONS), with when it was blocked (null: full).
   */
  async block(tenantId: string, query: string, actor: AuditActor): Promise<{ outcome: 'blocked' | 'already' | 'full'; blockedAtMs: number | null }> {
    const entityId = blockedSuggestionId(query);
    const now = Date.now();
    const result = await this.redis.blockSuggestion(
      keys.suggestionsBlocked(tenantId), ...auditKeys(tenantId, 'blocked_suggestion', entityId), query, now, MAX_BLOCKED_SUGGESTIONS,
      ...auditArgs(actor, { action: 'create', entityType: 'blocked_suggestion', entityId, details: { query } }),
    );
    if (result === -1) return { outcome: 'full', blockedAtMs: null };
    if (result === 1) return { outcome: 'blocked', blockedAtMs: now };
    // Unblocked meanwhile: now will do.
    return { outcome: 'already', blockedAtMs: Number((await this.redis.zscore(keys.suggestionsBlocked(tenantId), query)) ?? now) };
  }

  /** Unblocks a (normalised) query, audited; false when it was not blocked. */
  async unblock(tenantId: string, query: string, actor: AuditActor): Promise<boolean> {
    const entityId = blockedSuggestionId(query);
    const result = await this.redis.unblockSuggestion(
      keys.suggestionsBlocked(tenantId), ...auditKeys(tenantId, 'blocked_suggestion', entityId), query,
      ...auditArgs(actor, { action: 'delete', entityType: 'blocked_suggestion', entityId, details: { query } }),
    );
    return result === 1;
  }
}

/**
 * The audit entity id of a blocked query: a UUID made from it (RFC 9562 version 8, from SHA-256),
 * the same for every block and unblock of the query, so the audit can be filtered by it.
 */
export function blockedSuggestionId(query: string): string {
  const bytes = createHash('sha256').update(`kcs blocked suggestion\0${query}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
