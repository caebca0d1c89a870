// How many documents of a collection match a term or a word's expression, as the keyword planning
// needs them (keyword.ts): whether the index holds a joined compound or a word at all (typo
// variants), and the document frequencies behind the coverage weights. Kept in this process, so
// that a search sends its engine query alone instead of a count per term before it.
//
// A count is served from memory and read again in the background once it is older than its
// freshness (stale-while-revalidate); only a count never seen waits for the server. A count of
// zero stays fresh for less time, so that a word just written becomes known quickly; this
// process's own writes forget the tenant's counts at once (engine.ts refresh). A count that lags
// never hides a document: the query always holds each word's exact terms, and a count only decides
// what is added to them (a joined reading, typo variants) and which words the partial tier needs.
import type { IndexCommands } from './commands.js';
import type { Collection } from './schema.js';

export interface TermStatisticsOptions {
  /** How long a count of documents is served without reading it again (ms). */
  freshMs?: number;
  /** The same for a count of zero: the word may be written any moment (ms). */
  zeroFreshMs?: number;
  /** Counts kept at most (the least recently used go first). */
  maxEntries?: number;
}

interface Count {
  n: number;
  at: number;
  /** The read in flight (a first one, or a refresh). */
  reading: Promise<number> | null;
}

const DEFAULTS = { freshMs: 60_000, zeroFreshMs: 2_000, maxEntries: 200_000 };

export class TermStatistics {
  private readonly counts = new Map<string, Count>();
  /** Tenant → how many times its counts were forgotten (part of their keys). */
  private readonly generations = new Map<string, number>();
  private readonly freshMs: number;
  private readonly zeroFreshMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly ft: IndexCommands,
    options: TermStatisticsOptions = {},
  ) {
    this.freshMs = options.freshMs ?? DEFAULTS.freshMs;
    this.zeroFreshMs = options.zeroFreshMs ?? DEFAULTS.zeroFreshMs;
    this.maxEntries = options.maxEntries ?? DEFAULTS.maxEntries;
  }

  /** How many documents each query matches ('*': the collection's size). */
  matching(c: Collection, queries: readonly string[]): Promise<number[]> {
    return Promise.all(queries.map((q) => this.matchingOne(c, q)));
  }

  /**
   * The tenant's counts are forgotten: its documents changed in this process. Its keys move to a
   * new generation; the old ones are never asked for again and leave as the least recently used.
   */
  forget(tenantId: string): void {
    this.generations.set(tenantId, (this.generations.get(tenantId) ?? 0) + 1);
  }

  private matchingOne(c: Collection, query: string): Promise<number> | number {
    const key = `${c.index}\u0000${this.generations.get(c.tenantId) ?? 0}\u0000${query}`;
    const now = Date.now();
    const known = this.counts.get(key);
    if (known) {
      // The most recently used last: the first ones in the map are dropped when it is full.
      this.counts.delete(key);
      this.counts.set(key, known);
      if (known.reading && known.at === 0) return known.reading;
      const fresh = now - known.at < (known.n === 0 ? this.zeroFreshMs : this.freshMs);
      if (!fresh && !known.reading) known.reading = this.read(c, query, known).catch(() => ((known.reading = null), known.n));
      return known.n;
    }
    const entry: Count = { n: 0, at: 0, reading: null };
    entry.reading = this.read(c, query, entry).catch((error) => {
      this.counts.delete(key);
      throw error;
    });
    this.counts.set(key, entry);
    if (this.counts.size > this.maxEntries) this.counts.delete(this.counts.keys().next().value!);
    return entry.reading;
  }

  private async read(c: Collection, query: string, entry: Count): Promise<number> {
    const n = await this.ft.count(c, query);
    entry.n = n;
    entry.at = Date.now();
    entry.reading = null;
    return n;
  }
}
