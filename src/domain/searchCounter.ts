// Counting product searches without a Redis call per search: each process adds them up in memory
// per tenant, bucket (the search's site, and the tenant's `*`) and UTC day, and writes each
// tally with one script call a second (store/searchAnalytics.ts) and when it closes.
import { ALL_SITES, NO_SITE, type SearchAnalyticsRepository, type SearchTally } from '../store/searchAnalytics.js';

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

/** A search as it is counted. */
export interface CountedSearch {
  tenantId: string;
  siteId: string | null;
  /** Normalised (normaliseQuery). */
  query: string;
  total: number;
  atMs: number;
  retentionDays: number;
}

interface Pending {
  tenantId: string;
  bucket: string;
  day: string;
  retentionDays: number;
  tally: SearchTally;
}

export interface SearchCounterOptions {
  flushMs?: number;
  /**
   * Distinct queries held between flushes, all tallies together: beyond it (Redis unreachable for
   * a while) searches are still counted, their queries no longer.
   */
  maxQueries?: number;
}

export class SearchCounter {
  private pending = new Map<string, Pending>();
  private queriesHeld = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private readonly flushMs: number;
  private readonly maxQueries: number;
  private onError: (error: unknown) => void = () => undefined;
  /** The last day computed, for the day of the next search (the same, nearly always). */
  private lastDay = { number: -1, text: '' };

  constructor(private readonly repo: SearchAnalyticsRepository, options: SearchCounterOptions = {}) {
    this.flushMs = options.flushMs ?? 1000;
    this.maxQueries = options.maxQueries ?? 200_000;
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
    const results = await Promise.allSettled(entries.map((p) => this.repo.count(p.tenantId, p.bucket, p.day, p.tally, expiryOf(p.day, p.retentionDays))));
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') return;
      this.onError(result.reason);
      this.restore(entries[i]);
    });
  }

  private tallyOf(tenantId: string, bucket: string, day: string, retentionDays: number): SearchTally {
    const key = `${tenantId} ${bucket} ${day}`;
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { tenantId, bucket, day, retentionDays, tally: { searches: 0, noResults: 0, hours: new Array<number>(24).fill(0), queries: new Map(), noResultQueries: new Map() } };
      this.pending.set(key, entry);
    }
    entry.retentionDays = retentionDays;
    return entry.tally;
  }

  private add({ tenantId, query, total, retentionDays }: CountedSearch, bucket: string, day: string, hour: number): void {
    const tally = this.tallyOf(tenantId, bucket, day, retentionDays);
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
    if (total > 0) return;
    const none = tally.noResultQueries.get(query);
    if (none !== undefined) tally.noResultQueries.set(query, none + 1);
    else if (this.queriesHeld < this.maxQueries) {
      this.queriesHeld += 1;
      tally.noResultQueries.set(query, 1);
    }
  }

  /** A tally whose write failed, added back to what is pending. */
  private restore(entry: Pending): void {
    const tally = this.tallyOf(entry.tenantId, entry.bucket, entry.day, entry.retentionDays);
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
  }
}
