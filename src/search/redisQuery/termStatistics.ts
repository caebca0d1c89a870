// What the keyword planning (keyword.ts) asks of a collection's index, kept in this process so that
// a search sends its engine query without a look-up before it: which terms the index holds (a
// joined compound is read as one word where it does, a word it lacks gets typo variants), and, for
// the partial tier only, how many documents hold a term or match a word's expression (the coverage
// weights).
//
// An answer is served from memory and read again in the background once it is older than its
// freshness (stale-while-revalidate). Products' terms come from the tenant's term dictionary
// (termDictionary.ts): a term not seen yet is answered by the snapshot held, or read with the
// others in one HMGET. Elsewhere (entries, a tenant still being projected) a term never seen waits
// for the index: the terms in one FT.SPELLCHECK (a dictionary look-up), the counts as searches of
// their own. A term missing or a count of zero stays fresh for less time, so that a word just written
// becomes known quickly; this process's own writes forget the tenant's answers at once (engine.ts
// refresh). An answer that lags never hides a document: the query always holds each word's exact
// terms, and the answers only decide what is added to them (a joined reading, typo variants) and
// how the partial tier weighs the words. A search's own total is kept too (remember), so that a
// repeated search decides its partial tier before it runs (keyword.ts expectedTier).
import type { IndexCommands } from './commands.js';
import { termClause } from './query.js';
import type { Collection } from './schema.js';
import type { TermDictionary, TermSnapshot } from './termDictionary.js';

export interface TermStatisticsOptions {
  /** How long an answer is served without reading it again (ms). */
  freshMs?: number;
  /** The same for a term the index lacks or a count of zero: the word may be written any moment (ms). */
  zeroFreshMs?: number;
  /** Answers kept at most (the least recently used go first). */
  maxEntries?: number;
}

/** A count of documents, or whether a term is held (1) or not (0). */
interface Answer {
  n: number;
  at: number;
  /** The read in flight (a first one, or a refresh). */
  reading: Promise<number> | null;
}

const DEFAULTS = { freshMs: 60_000, zeroFreshMs: 2_000, maxEntries: 200_000 };

export class TermStatistics {
  private readonly answers = new Map<string, Answer>();
  /** Tenant → how many times its answers were forgotten (part of their keys), and when last. */
  private readonly generations = new Map<string, number>();
  private readonly forgotten = new Map<string, number>();
  private readonly freshMs: number;
  private readonly zeroFreshMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly ft: IndexCommands,
    private readonly dictionary: TermDictionary | null,
    options: TermStatisticsOptions = {},
  ) {
    this.freshMs = options.freshMs ?? DEFAULTS.freshMs;
    this.zeroFreshMs = options.zeroFreshMs ?? DEFAULTS.zeroFreshMs;
    this.maxEntries = options.maxEntries ?? DEFAULTS.maxEntries;
  }

  /** The terms the index holds in no document. */
  async missing(c: Collection, terms: readonly string[]): Promise<Set<string>> {
    const dictionary = this.dictionaryOf(c);
    const held = dictionary
      ? await this.fromDictionary(c, dictionary, terms)
      : await this.batched(c, 't', terms, (lookup) => this.ft.missingTerms(c, lookup), (unknown, term) => (unknown.has(term) ? 0 : 1));
    return new Set(terms.filter((_, i) => held[i] === 0));
  }

  /** How many documents hold each term (in any text field). */
  holding(c: Collection, terms: readonly string[]): Promise<number[]> {
    const dictionary = this.dictionaryOf(c);
    return dictionary ? this.fromDictionary(c, dictionary, terms) : this.matching(c, terms.map(termClause));
  }

  /** How many documents each query matches ('*': the collection's size). */
  matching(c: Collection, queries: readonly string[]): Promise<number[]> {
    return Promise.all(queries.map((q) => this.answer(c, `n\u0000${q}`, () => this.ft.count(c, q))));
  }

  /** A count a search learned itself (its total): kept as if read now, so that a later search can plan by it. */
  remember(c: Collection, query: string, n: number): void {
    const key = this.keyOf(c, `n\u0000${query}`);
    const known = this.answers.get(key);
    if (known) this.answers.delete(key);
    this.answers.set(key, { n, at: Date.now(), reading: known?.reading ?? null });
    if (this.answers.size > this.maxEntries) this.answers.delete(this.answers.keys().next().value!);
  }

  /** The count kept for `query`, however old (undefined: none kept); never reads. */
  known(c: Collection, query: string): number | undefined {
    const known = this.answers.get(this.keyOf(c, `n\u0000${query}`));
    return known && known.at > 0 ? known.n : undefined;
  }

  /**
   * The tenant's answers are forgotten: its documents changed in this process. Its keys move to a
   * new generation; the old ones are never asked for again and leave as the least recently used.
   */
  forget(tenantId: string): void {
    this.generations.set(tenantId, (this.generations.get(tenantId) ?? 0) + 1);
    this.forgotten.set(tenantId, Date.now());
    this.dictionary?.changed(tenantId);
  }

  /** The tenant's term dictionary where it serves the collection (its products, every one counted). */
  private dictionaryOf(c: Collection): { snapshot: TermSnapshot | null } | null {
    if (c.kind !== 'product' || !this.dictionary) return null;
    const state = this.dictionary.state(c.tenantId);
    return state?.served ? state : null;
  }

  /**
   * Document frequencies from the dictionary: kept ones, else the snapshot's where it was taken
   * after this process last changed the tenant (served at once, read again in the background when
   * due), else read now, all in one HMGET.
   */
  private fromDictionary(c: Collection, { snapshot }: { snapshot: TermSnapshot | null }, terms: readonly string[]): Promise<number[]> {
    const seed = snapshot && snapshot.at >= (this.forgotten.get(c.tenantId) ?? 0) ? snapshot : null;
    return this.batched(c, 'f', terms, (lookup) => this.dictionary!.frequencies(c.tenantId, lookup), (counts, _, at) => counts[at],
      seed && ((term) => ({ n: seed.terms.get(term) ?? 0, at: seed.at })));
  }

  /**
   * Each term's answer under `kind` (kept, seeded, or read): the terms to read are gathered first,
   * so that one command (`readAll`) reads all of them; `pick` takes a term's answer from its reply.
   */
  private batched<R>(
    c: Collection, kind: string, terms: readonly string[], readAll: (terms: string[]) => Promise<R>,
    pick: (reply: R, term: string, at: number) => number, seedOf?: ((term: string) => { n: number; at: number }) | null,
  ): Promise<number[]> {
    const lookup: string[] = [];
    let done: (reply: R | null, error?: unknown) => void = () => undefined;
    const batch = new Promise<R | null>((resolve, reject) => (done = (reply, error) => (error ? reject(error) : resolve(reply))));
    batch.catch(() => undefined);
    const answers = terms.map((term) => this.answer(c, `${kind}\u0000${term}`, () => {
      const at = lookup.push(term) - 1;
      return batch.then((reply) => pick(reply!, term, at));
    }, seedOf?.(term)));
    if (lookup.length > 0) readAll(lookup).then((reply) => done(reply), (error) => done(null, error));
    return Promise.all(answers);
  }

  /**
   * The answer kept under `what`, else the `seed` given (an answer read at seed.at), else `read`
   * (which must not wait on this call's own result).
   */
  private answer(c: Collection, what: string, read: () => Promise<number>, seed?: { n: number; at: number } | null): Promise<number> | number {
    const key = this.keyOf(c, what);
    let known = this.answers.get(key);
    if (!known && seed) {
      known = { n: seed.n, at: seed.at, reading: null };
      this.answers.set(key, known);
      if (this.answers.size > this.maxEntries) this.answers.delete(this.answers.keys().next().value!);
    }
    if (known) {
      // The most recently used last: the first ones in the map are dropped when it is full.
      this.answers.delete(key);
      this.answers.set(key, known);
      if (known.at === 0) return known.reading!;
      const fresh = Date.now() - known.at < (known.n === 0 ? this.zeroFreshMs : this.freshMs);
      if (!fresh && !known.reading) known.reading = this.settle(known, read()).catch(() => ((known.reading = null), known.n));
      return known.n;
    }
    const entry: Answer = { n: 0, at: 0, reading: null };
    entry.reading = this.settle(entry, read()).catch((error) => {
      this.answers.delete(key);
      throw error;
    });
    this.answers.set(key, entry);
    if (this.answers.size > this.maxEntries) this.answers.delete(this.answers.keys().next().value!);
    return entry.reading;
  }

  private keyOf(c: Collection, what: string): string {
    return `${c.index}\u0000${this.generations.get(c.tenantId) ?? 0}\u0000${what}`;
  }

  private async settle(entry: Answer, reading: Promise<number>): Promise<number> {
    const n = await reading;
    entry.n = n;
    entry.at = Date.now();
    entry.reading = null;
    return n;
  }
}
