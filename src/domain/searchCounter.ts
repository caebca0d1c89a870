// Counting product searches without a Redis call per search: each process adds them up in memory
// per tenant, bucket (the search's site, and the tenant's `*`) and UTC day, with the distinct
// searchers of each query that count toward suggestions, and writes each tally with one script
// call a second (store/searchAnalytics.ts) and when it closes; the searchers' tags are made then.
import { ALL_SITES, NO_SITE, type SearchAnalyticsRepository, type SearchTally } from '../store/searchAnalytics.js';
import { SearcherTags, type RecordMaker, type Searcher } from './searcherTags.js';

/** The longest query kept, in characters (code points). */
export const MAX_QUERY_CHARS = 100;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * The form a query is counted and suggested in: NFKC, lower case, trimmed, inner whitespace one
 * space, at most MAX_QUERY_CHARS characters.
 */
export function normaliseQuery(query: string): string {
  const text = query.normalize('NFKC').toLowerCase().trim().replace(/\s+/g, ' ');
  if (text.length <= MAX_QUERY_CHARS) return text;
  const chars = Array.from(text);
  return chars.length <= MAX_QUERY_CHARS ? text : chars.slice(0, MAX_QUERY_CHARS).join('').trimEnd();
}

/** A UTC day as YYYY-MM-DD. */
export const dayOf = (ms: number): string => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

/** When a day's counts expire (unix seconds): at the end of the day plus the retention. */
export const expiryOf = (day: string, retentionDays: number): number => Date.parse(`${day}T00:00:00Z`) / 1000 + (1 + retentionDays) * 86_400;
/** When a day's searcher tags expire: two days after the day (a process's late write still finds them). */
const tagsExpiryOf = (day: string): number => expiryOf(day, 2);

/** A search as it is counted. */
export interface CountedSearch {
  tenantId: string;
  siteId: string | null;
  /** Normalised (normaliseQuery). */
  query: string;
  total: number;
  atMs: number;
  retentionDays: number;
  /** Who searched, where the search counts toward suggestions (null: it does not). */
  searcher: Searcher | null;
  /** The tenant's suggestion_min_searches: a day counts at most this many distinct searchers of a query. */
  maxSearchers: number;
}

/** The searchers of a query held in a tally: each with a caller and a user_token none before had. */
interface Held {
  callers: Map<string, Searcher>;
  userTokens: Set<string>;
  list: Searcher[];
}

interface Pending {
  tenantId: string;
  bucket: string;
  day: string;
  retentionDays: number;
  maxSearchers: number;
  tally: Omit<SearchTally, 'searchers'>;
  held: Map<string, Held>;
}

export interface SearchCounterOptions {
  flushMs?: number;
  /**
   * Distinct queries held between flushes, all tallies together: beyond it (Redis unreachable for
   * a while) searches are still counted, their queries no longer.
   */
  maxQueries?: number;
  /** Searchers held between flushes, all tallies together: beyond it searches count toward no suggestion. */
  maxSearchers?: number;
  /** Makes the searchers' tags (default: from the repository's secret). */
  tags?: SearcherTags;
}

export class SearchCounter {
  private pending = new Map<string, Pending>();
  private queriesHeld = 0;
  private searchersHeld = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private readonly flushMs: number;
  private readonly maxQueries: number;
  private readonly maxSearchersHeld: number;
  private readonly tags: SearcherTags;
  private onError: (error: unknown) => void = () => undefined;
  /** The last day computed, for the day of the next search (the same, nearly always). */
  private lastDay = { number: -1, text: '' };

  constructor(private readonly repo: SearchAnalyticsRepository, options: SearchCounterOptions = {}) {
    this.flushMs = options.flushMs ?? 1000;
    this.maxQueries = options.maxQueries ?? 200_000;
    this.maxSearchersHeld = options.maxSearchers ?? 200_000;
    this.tags = options.tags ?? new SearcherTags(() => repo.secret());
  }

  record(search: CountedSearch): void {
    const dayNumber = Math.floor(search.atMs / DAY_MS);
    if (dayNumber !== this.lastDay.number) this.lastDay = { number: dayNumber, text: dayOf(search.atMs) };
    const day = this.lastDay.text;
    const hour = Math.floor(search.atMs / HOUR_MS) % 24;
    this.add(search, search.siteId ?? NO_SITE, day, hour);
    this.add(search, ALL_SITES, day, hour);
  }

  /** Writes the tallies every `flushMs` until close; `onError` hears a failed write (its tallies are kept for the next). */
  start(onError: (error: unknown) => void = () => undefined): void {
    this.onError = onError;
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** Writes what is pending now (after a write under way). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.queriesHeld = 0;
    this.searchersHeld = 0;
    this.flushing = this.write(batch).finally(() => (this.flushing = null));
    await this.flushing;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async write(batch: Map<string, Pending>): Promise<void> {
    const entries = [...batch.values()];
    // A searcher's record is the same in its site's tally and the tenant's: made once.
    const made = new Map<string, Buffer>();
    const count = async (p: Pending) => {
      const searchers = new Map<string, Buffer>();
      const record = p.held.size > 0 ? await this.tags.records() : null;
      for (const [query, held] of p.held) searchers.set(query, Buffer.concat(held.list.map((s) => recordOf(made, record!, p, query, s))));
      const limits = { expireAt: expiryOf(p.day, p.retentionDays), searcherTagsExpireAt: tagsExpiryOf(p.day), maxSearchers: p.maxSearchers };
      return this.repo.count(p.tenantId, p.bucket, p.day, { ...p.tally, searchers }, limits);
    };
    const results = await Promise.allSettled(entries.map(count));
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') return;
      this.onError(result.reason);
      this.restore(entries[i]);
    });
  }

  private entryOf(tenantId: string, bucket: string, day: string, retentionDays: number, maxSearchers: number): Pending {
    const key = `${tenantId} ${bucket} ${day}`;
    let entry = this.pending.get(key);
    if (!entry) {
      const tally = { searches: 0, noResults: 0, hours: new Array<number>(24).fill(0), queries: new Map(), noResultQueries: new Map() };
      entry = { tenantId, bucket, day, retentionDays, maxSearchers, tally, held: new Map() };
      this.pending.set(key, entry);
    }
    entry.retentionDays = retentionDays;
    entry.maxSearchers = maxSearchers;
    return entry;
  }

  private add({ tenantId, query, total, retentionDays, searcher, maxSearchers }: CountedSearch, bucket: string, day: string, hour: number): void {
    const entry = this.entryOf(tenantId, bucket, day, retentionDays, maxSearchers);
    const tally = entry.tally;
    tally.searches += 1;
    tally.hours[hour] += 1;
    if (total === 0) tally.noResults += 1;
    // The empty query (browsing) counts as a search, never as a query.
    if (query === '') return;
    const counted = tally.queries.get(query);
    if (counted) {
      counted.count += 1;
      counted.hitSum += total;
    } else if (this.queriesHeld < this.maxQueries) {
      this.queriesHeld += 1;
      tally.queries.set(query, { count: 1, hitSum: total });
    }
    if (searcher && tally.queries.has(query)) this.hold(entry, query, searcher);
    if (total > 0) return;
    const none = tally.noResultQueries.get(query);
    if (none !== undefined) tally.noResultQueries.set(query, none + 1);
    else if (this.queriesHeld < this.maxQueries) {
      this.queriesHeld += 1;
      tally.noResultQueries.set(query, 1);
    }
  }

  /**
   * Holds a searcher of a query unless one held has its caller or user_token (as
   * lua/countSearches-6.lua counts them: one held without a user_token takes its caller's next).
   * A query holds at most twice the distinct searchers a day counts: a searcher counted before may
   * stand for two held here (one by its caller, one by its user_token), and the day's count must
   * still fill.
   */
  private hold(entry: Pending, query: string, { caller, userToken }: Searcher): void {
    let held = entry.held.get(query);
    const mine = held?.callers.get(caller);
    if (mine && mine.userToken === null && userToken !== null && !held!.userTokens.has(userToken)) {
      mine.userToken = userToken;
      held!.userTokens.add(userToken);
    }
    if (mine || (held && userToken !== null && held.userTokens.has(userToken))) return;
    if (this.searchersHeld >= this.maxSearchersHeld || (held && held.list.length >= 2 * entry.maxSearchers)) return;
    if (!held) entry.held.set(query, (held = { callers: new Map(), userTokens: new Set(), list: [] }));
    const searcher = { caller, userToken };
    held.callers.set(caller, searcher);
    if (userToken !== null) held.userTokens.add(userToken);
    held.list.push(searcher);
    this.searchersHeld += 1;
  }

  /** A tally whose write failed, added back to what is pending. */
  private restore(entry: Pending): void {
    const pending = this.entryOf(entry.tenantId, entry.bucket, entry.day, entry.retentionDays, entry.maxSearchers);
    const tally = pending.tally;
    tally.searches += entry.tally.searches;
    tally.noResults += entry.tally.noResults;
    entry.tally.hours.forEach((n, h) => (tally.hours[h] += n));
    for (const [query, { count, hitSum }] of entry.tally.queries) {
      const counted = tally.queries.get(query);
      if (counted) {
        counted.count += count;
        counted.hitSum += hitSum;
      } else if (this.queriesHeld < this.maxQueries) {
        this.queriesHeld += 1;
        tally.queries.set(query, { count, hitSum });
      }
    }
    for (const [query, count] of entry.tally.noResultQueries) {
      const none = tally.noResultQueries.get(query);
      if (none !== undefined) tally.noResultQueries.set(query, none + count);
      else if (this.queriesHeld < this.maxQueries) {
        this.queriesHeld += 1;
        tally.noResultQueries.set(query, count);
      }
    }
    for (const [query, held] of entry.held) {
      if (!tally.queries.has(query)) continue;
      for (const searcher of held.list) this.hold(pending, query, searcher);
    }
  }
}

/** A searcher's record, made once per write for a tenant, day and query. */
function recordOf(made: Map<string, Buffer>, record: RecordMaker, p: Pending, query: string, s: Searcher): Buffer {
  const key = `${p.tenantId}\0${p.day}\0${query}\0${s.caller}\0${s.userToken ?? ''}`;
  let value = made.get(key);
  if (!value) made.set(key, (value = record(p.tenantId, p.day, query, s)));
  return value;
}
