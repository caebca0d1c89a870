// The synonym sets that apply to one search (a tenant's, its site's, its language's), analysed once
// and asked by query analysis (analysis.ts QuerySynonyms) for the alternatives of each word. An
// entry matches a query word when they share a term (a stem, a folded spelling): "Handys" matches
// the entry "Handy". An alternative is a reading of the word: a document holding all its words
// matches the query word, both engines matching readings as they match a compound's parts.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { alternativeWords, analyzeQuery, meaningfulWords, readingsOfWord, type AppliedSynonym, type QueryAnalysis, type QuerySynonyms, type QueryWord } from './analysis.js';

/** A set as the table takes it: multi-way (root null) or one-way. */
export interface SynonymSetSpec {
  id: string;
  root: string | null;
  synonyms: readonly string[];
}

/** An entry a query may match: its set, its text, and per word the terms it may be read as. */
interface Entry {
  set: number;
  text: string;
  keys: ReadonlySet<string>[];
}

/** Alternatives analysed per analysis (stemming and language) and entry; past this many it starts over. */
const ALTERNATIVE_CACHE_LIMIT = 50_000;

/** Sets indexed between two turns of the event loop when a table is built (`SynonymTable.build`): a few milliseconds' work. */
const SETS_PER_TURN = 100;

export class SynonymTable implements QuerySynonyms {
  private longest = 1;
  /** Entries by the terms of their first word. */
  private readonly byFirstWord = new Map<string, Entry[]>();
  private readonly alternativeCache = new Map<string, QueryWord[]>();

  /** The table of `sets`, built at once (a few sets; `build` for any number). */
  constructor(private readonly sets: readonly SynonymSetSpec[], indexed = true) {
    if (indexed) this.index(0, sets.length);
  }

  /**
   * The table of `sets`, built in slices between turns of the event loop: analysing a hundred
   * thousand sets' entries takes more than a second, which no other request should wait for.
   */
  static async build(sets: readonly SynonymSetSpec[]): Promise<SynonymTable> {
    const table = new SynonymTable(sets, false);
    for (let from = 0; from < sets.length; from += SETS_PER_TURN) {
      if (from > 0) await nextTurn();
      table.index(from, Math.min(sets.length, from + SETS_PER_TURN));
    }
    return table;
  }

  /** The most words an entry has. */
  get maxWords(): number {
    return this.longest;
  }

  private index(from: number, to: number): void {
    for (let index = from; index < to; index++) {
      const set = this.sets[index];
      // A one-way set is matched by its root only; a multi-way set by any entry.
      for (const text of set.root !== null ? [set.root] : set.synonyms) {
        const keys = meaningfulWords(text).map((w) => new Set(readingsOfWord(w)));
        if (keys.length === 0) continue;
        this.longest = Math.max(this.longest, keys.length);
        const entry = { set: index, text, keys };
        for (const key of keys[0]) {
          const list = this.byFirstWord.get(key);
          if (list) list.push(entry);
          else this.byFirstWord.set(key, [entry]);
        }
      }
    }
  }

  /** How many sets the table holds. */
  get size(): number {
    return this.sets.length;
  }

  match(words: readonly QueryWord[], analysis: QueryAnalysis): { applied: AppliedSynonym[]; readings: QueryWord[][] } | null {
    const matched = new Map<number, Entry>();
    for (const term of words[0].terms) {
      for (const entry of this.byFirstWord.get(term) ?? []) {
        if (matched.has(entry.set) || entry.keys.length !== words.length) continue;
        if (words.every((w, k) => w.terms.some((t) => entry.keys[k].has(t)))) matched.set(entry.set, entry);
      }
    }
    if (matched.size === 0) return null;
    const said = words.map((w) => w.word).join(' ');
    const applied: AppliedSynonym[] = [];
    const readings: QueryWord[][] = [];
    const seen = new Set([...matched.values()].map((e) => e.text.toLowerCase()));
    for (const [index, entry] of matched) {
      const set = this.sets[index];
      // One-way: the root's synonyms; multi-way: every other entry.
      const alternatives = set.synonyms.filter((s) => s !== entry.text);
      applied.push({ id: set.id, matched: said, alternatives });
      for (const text of alternatives) {
        const key = text.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        const reading = this.alternative(text, analysis);
        if (reading.length > 0) readings.push(reading);
      }
    }
    return { applied, readings };
  }

  private alternative(text: string, analysis: QueryAnalysis): QueryWord[] {
    const key = `${analysis.stemming ?? ''}\u0000${analysis.language ?? ''}\u0000${text}`;
    let words = this.alternativeCache.get(key);
    if (!words) {
      words = alternativeWords(text, analysis);
      if (this.alternativeCache.size >= ALTERNATIVE_CACHE_LIMIT) this.alternativeCache.clear();
      this.alternativeCache.set(key, words);
    }
    return words;
  }
}

/**
 * The sets a query uses under an analysis (its synonyms among it): each once per matched text, in
 * the order of the query's words, a compound's parts included ("handyhülle": handy).
 */
export function appliedSynonyms(query: string, analysis: QueryAnalysis): AppliedSynonym[] {
  if (!analysis.synonyms) return [];
  const out = new Map<string, AppliedSynonym>();
  const visit = (word: QueryWord) => {
    for (const applied of word.synonyms ?? []) out.set(`${applied.id}\u0000${applied.matched}`, applied);
    for (const reading of word.readings) reading.forEach(visit);
  };
  analyzeQuery(query, analysis).forEach(visit);
  return [...out.values()];
}
