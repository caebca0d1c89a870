// Keyword search on the Redis Query Engine, ranked by the server's BM25 over kcs's own analysis and
// matched as the built-in engine matches (builtin/docTable.ts keyword): adjacent words read as one
// compound where the index knows it, typo variants for words it does not know, every word first,
// then documents matching words that carry more than COVERAGE of the query's weight.
import { joinedWords, type QueryAnalysis, type QueryWord } from '../analysis.js';
import { COVERAGE, LOOSE_WEIGHT, MINOR_WEIGHT, PARTIAL_TIER_BELOW } from '../coverage.js';
import type { IndexCommands } from './commands.js';
import { all, anyOf, wordExpression } from './query.js';
import { COMPLETING_FIELDS, F, type Collection } from './schema.js';
import type { TermStatistics } from './termStatistics.js';

/** Ranked ids with their scores, best first. */
export interface Ranked {
  ids: string[];
  scores: number[];
}

export interface Keyword extends Ranked {
  /** The first `full` ids match every query word; the rest enough of them. */
  full: number;
  total: number;
  /** The query that matched (null: browsing, or a query with no words). */
  expr: string | null;
  /** The partial tier's query and how many it matched, where it ran (too few matched every word). */
  partial: { expr: string; total: number } | null;
}

/** A query's words as the index reads them, and per word whether it gets typo variants (the index lacks it). */
export interface PlannedWords {
  words: QueryWord[];
  unknown: boolean[];
}

/** The query a keyword search runs: every word, with the words and their expressions the partial tier is made of. */
export interface KeywordQuery {
  /** null: the query has no words (punctuation only) and matches nothing. */
  every: string | null;
  words: QueryWord[];
  expressions: string[];
}

/** The partial tier's query (documents covering enough of the query without every word) and what covers. */
export interface PartialTier {
  covering: string;
  expr: string;
}

/** Queries of more words match all of them only (their subsets would multiply). */
const MAX_PARTIAL_WORDS = 6;

/** A query of 2 to MAX_PARTIAL_WORDS words may have a partial tier: it runs where fewer than PARTIAL_TIER_BELOW documents match every word. */
const mayHaveTier = ({ every, words }: KeywordQuery): boolean => every !== null && words.length >= 2 && words.length <= MAX_PARTIAL_WORDS;
const tierRuns = (q: KeywordQuery, fullTotal: number): boolean => mayHaveTier(q) && fullTotal < PARTIAL_TIER_BELOW;

export class KeywordSearch {
  constructor(
    private readonly ft: IndexCommands,
    private readonly stats: TermStatistics,
  ) {}

  /**
   * Joins adjacent words where the index holds the joined word ("regen jacke" → regenjacke), and
   * marks the words it lacks (typo variants, when `typos`), from the terms known here.
   */
  async plan(c: Collection, typed: QueryWord[], analysis: QueryAnalysis, typos: boolean): Promise<PlannedWords> {
    const joins = typed.slice(0, -1).map((w, i) => joinedWords(w, typed[i + 1], analysis));
    const asked = [...new Set([...(typos ? typed.filter((w) => w.fuzzy > 0).flatMap((w) => w.terms) : []), ...joins.flatMap((j) => j?.terms ?? [])])];
    const missing = await this.stats.missing(c, asked);
    const words: QueryWord[] = [];
    const unknown: boolean[] = [];
    for (let i = 0; i < typed.length; i++) {
      const join = joins[i];
      if (join && join.terms.some((t) => !missing.has(t))) {
        words.push(join);
        unknown.push(false);
        i++;
        continue;
      }
      words.push(typed[i]);
      unknown.push(typos && typed[i].fuzzy > 0 && typed[i].terms.every((t) => missing.has(t)));
    }
    return { words, unknown };
  }

  /** The query of a keyword search (null: browsing; `every` null: a query without words, which matches nothing). */
  query(query: string, { words, unknown }: PlannedWords, kind: Collection['kind']): KeywordQuery | null {
    if (!query.trim()) return null;
    // Punctuation only: no word to match (as the built-in engine).
    if (words.length === 0) return { every: null, words, expressions: [] };
    const expressions = words.map((w, i) => wordExpression(w, unknown[i], COMPLETING_FIELDS[kind]));
    return { every: `(${expressions.join(' ')})`, words, expressions };
  }

  /**
   * Keyword hits of the query: every word, then, where fewer than PARTIAL_TIER_BELOW documents
   * match every word, those covering enough of it (coverage.ts); browsing: the newest.
   */
  async search(c: Collection, q: KeywordQuery | null, { k, filter, expected = null }: { k: number; filter: string; expected?: PartialTier | null }): Promise<Keyword> {
    if (q === null) return this.newest(c, filter, k);
    const { every } = q;
    if (every === null) return { ids: [], scores: [], full: 0, total: 0, expr: null, partial: null };
    const run = async (expr: string): Promise<Keyword> => {
      const found = await this.ft.query(c, all(expr, filter), { args: ['NOCONTENT', 'WITHSCORES', 'SCORER', 'BM25', 'LIMIT', '0', String(k)] });
      const ids = found.rows.map((r) => this.ft.idOf(c, r.key));
      return { ids, scores: found.rows.map((r) => r.score ?? 0), full: ids.length, total: found.total, expr, partial: null };
    };
    // The tier this search is expected to need runs beside every word's query; it is dropped if the
    // total says otherwise, and run after it where it was not expected.
    const [full, early] = await Promise.all([run(every), expected && run(expected.expr)]);
    // Kept only where it decides something: a one-word search (most of them) has no tier.
    if (mayHaveTier(q)) this.stats.remember(c, all(every, filter), full.total);
    const tier = !tierRuns(q, full.total) ? null : early ? expected : await this.partialTier(c, q, full.total);
    if (tier === null) return full;
    const partial = early ?? (await run(tier.expr));
    const room = Math.max(0, k - full.ids.length);
    return {
      ids: [...full.ids, ...partial.ids.slice(0, room)],
      scores: [...full.scores, ...partial.scores.slice(0, room)],
      full: full.ids.length,
      total: full.total + partial.total,
      expr: `(${every} | ${tier.covering})`,
      partial: { expr: tier.expr, total: partial.total },
    };
  }

  /**
   * The partial tier's query (documents covering enough of the query without every word) and what covers, where
   * it runs: a query of 2 to MAX_PARTIAL_WORDS words with fewer than PARTIAL_TIER_BELOW full matches.
   */
  async partialTier(c: Collection, q: KeywordQuery, fullTotal: number): Promise<PartialTier | null> {
    if (!tierRuns(q, fullTotal)) return null;
    const covering = await this.covering(c, q.words, q.expressions);
    return covering === null ? null : { covering, expr: `${covering} -${q.every}` };
  }

  /**
   * The partial tier a search of `q` under `filter` needs, as the total this process last saw for
   * it says (null: none, or the search was not seen): with the term counts kept, decided without a
   * round trip, so that the tier's query and facets go to the server with the first ones.
   */
  expectedTier(c: Collection, q: KeywordQuery | null | undefined, filter: string): Promise<PartialTier | null> | null {
    if (!q || !mayHaveTier(q)) return null;
    const total = this.stats.known(c, all(q.every!, filter));
    return total === undefined ? null : this.partialTier(c, q, total);
  }

  /**
   * The documents covering more than COVERAGE of the query's weight without every word: the
   * smallest sets of words that do, OR-ed (null: none does). A word's weight is the idf of its
   * rarest exact term over the collection (of its whole expression, loosely, when only its typo
   * variants or completions match), less for a refining word; a word no document holds weighs as
   * the rarest word the query has. As the built-in engine weighs them (builtin/textMatch.ts), from
   * the counts kept here (termStatistics.ts).
   */
  private async covering(c: Collection, words: QueryWord[], expressions: string[]): Promise<string | null> {
    const [[documents], exact] = await Promise.all([
      this.stats.matching(c, ['*']),
      Promise.all(words.map((w) => this.stats.holding(c, w.terms))),
    ]);
    // A word's expression is counted only where no document holds its exact terms (its typo
    // variants or completions may match): where one does, the expression matches too.
    const counts = await Promise.all(words.map((_, i) => {
      const held = Math.max(0, ...exact[i]);
      return held > 0 ? held : this.stats.matching(c, [expressions[i]]).then(([n]) => n);
    }));
    const idf = (df: number) => Math.log(1 + (documents - df + 0.5) / (df + 0.5));
    let rarest = 0;
    const weights = words.map((w, i) => {
      const known = exact[i].filter((n) => n > 0);
      const weight = known.length > 0 ? idf(Math.min(...known)) : counts[i] > 0 ? idf(counts[i]) * LOOSE_WEIGHT : 0;
      rarest = Math.max(rarest, weight);
      return weight * (w.minor ? MINOR_WEIGHT : 1);
    });
    words.forEach((w, i) => {
      if (counts[i] === 0) weights[i] = (rarest || idf(0)) * (w.minor ? MINOR_WEIGHT : 1);
    });
    const total = weights.reduce((a, b) => a + b, 0);
    const enough = total * COVERAGE * (1 + 1e-5);
    const sets: number[] = [];
    for (let mask = 1; mask < (1 << words.length) - 1; mask++) {
      let weight = 0;
      for (let i = 0; i < words.length; i++) if (mask & (1 << i) && counts[i] > 0) weight += weights[i];
      // Only the smallest sets: a larger one matches no document a smaller one misses.
      if (weight > enough && !sets.some((s) => (s & mask) === s)) sets.push(mask);
    }
    if (sets.length === 0) return null;
    const clause = (mask: number) => `(${expressions.filter((_, i) => mask & (1 << i)).join(' ')})`;
    return anyOf(sets.map(clause));
  }

  /**
   * Browsing: the newest documents. Without a filter, DIALECT 4 lets the server read only the top
   * of the `created` order (0.5 ms instead of 46 ms at 100,000 products) but counts no further,
   * so the total comes from a count of its own; with a filter the server sorts every match.
   */
  private async newest(c: Collection, filter: string, k: number): Promise<Keyword> {
    const sort = ['NOCONTENT', 'SORTBY', F.created, 'DESC', 'LIMIT', '0', String(k)];
    const [found, total] = filter
      ? [await this.ft.query(c, filter, { args: sort }), null]
      : await Promise.all([this.ft.query(c, '*', { args: sort, dialect: '4' }), this.ft.count(c, '*')]);
    return { ids: found.rows.map((r) => this.ft.idOf(c, r.key)), scores: found.rows.map(() => 0), full: found.rows.length, total: total ?? found.total, expr: null, partial: null };
  }
}
