// The query side of the text index (textIndex.ts): a query's words expanded to the terms they may
// match (stems, typo variants, prefix completions, compound readings), each matching document
// scored (BM25 over the index's field-weighted postings), and the share of the query's weight
// (idf) each document covers, for coverage.ts.
import type SearchableMap from 'minisearch/SearchableMap';
import { typoBudget, type QueryWord } from '../analysis.js';
import { MINOR_WEIGHT } from '../coverage.js';
import type { PostingsPool } from './postingsPool.js';

const K1 = 1.2;
/** A query word matched by another reading (its compound parts, or two typed words apart), against the word read whole. */
const READING_FACTOR = 0.9;
/** How a term found by a looser rule counts against an exact one. */
const FUZZY_FACTOR = [1, 0.6, 0.4];
const PREFIX_FACTOR = 0.7;
/** A short prefix can stand for thousands of terms: score only the most frequent ones. */
const MAX_PREFIX_TERMS = 8;
const MAX_PREFIX_SCAN = 2000;

/**
 * Scores of one query: the matched documents, and per document number its score and how many
 * query words it matched. The arrays are the index's own scratch space: valid until the next
 * match() (searches run one at a time on the event loop), which clears them.
 */
export interface TextMatches {
  /** Documents touched by any word (unique), the first `count` entries. */
  docs: Int32Array;
  count: number;
  scores: Float32Array;
  /** Per document: how many query words it matched, and their summed weights (idf). */
  words: Uint8Array;
  covered: Float32Array;
  /** The summed weights of every query word. */
  weight: number;
}

/** What the matcher reads of its index. */
export interface MatchedIndex {
  readonly dictionary: SearchableMap<number>;
  /** The terms the last query word completes to: those of name fields (textIndex.ts TextField). */
  readonly completions: SearchableMap<number>;
  /** Folded words as documents spell them → their term (for typo lookups). */
  readonly spellings: SearchableMap<string>;
  readonly postingLists: PostingsPool;
  /** Per document: its live generation (postings of another are stale). */
  readonly generations: Int32Array;
  /** Live documents. */
  readonly documents: number;
}

export class TextMatcher {
  // Scratch buffers reused by every query (a serve process answers one query at a time).
  private scores = new Float32Array(1024);
  private wordScores = new Float32Array(1024);
  private wordHits = new Uint8Array(1024);
  private covered = new Float32Array(1024);
  private touched = new Int32Array(1024);
  private wordTouched = new Int32Array(1024);
  private lastCount = 0;

  constructor(private readonly index: MatchedIndex) {}

  /**
   * Scores every document matching any query word. A word scores a document by the best of its
   * alternatives (stems, typo variants, prefix completions, compound readings), weighted by how
   * loose the match was; `covered` sums the weights (idf) of the words a document matched.
   */
  match(words: QueryWord[]): TextMatches {
    this.clearLast();
    const n = this.index.generations.length;
    if (this.scores.length < n) this.resizeScratch(n);
    const { scores, wordHits: hits, covered } = this;
    let count = 0;
    let total = 0;
    let rarest = 0;
    let unknown = 0;
    for (const word of words) {
      let wordCount = 0;
      const idf = this.scoreWord(word, (doc, s) => {
        const prev = this.wordScores[doc];
        if (prev === 0) this.wordTouched[wordCount++] = doc;
        if (s > prev) this.wordScores[doc] = s;
      });
      const weight = idf * (word.minor ? MINOR_WEIGHT : 1);
      if (idf === 0) unknown += word.minor ? MINOR_WEIGHT : 1;
      rarest = Math.max(rarest, idf);
      total += weight;
      for (let t = 0; t < wordCount; t++) {
        const doc = this.wordTouched[t];
        if (hits[doc] === 0) this.touched[count++] = doc;
        scores[doc] += this.wordScores[doc];
        hits[doc]++;
        covered[doc] += weight;
        this.wordScores[doc] = 0;
      }
    }
    this.lastCount = count;
    // A word no document holds weighs as the rarest word the query has: a distractor among three
    // words leaves the others enough, one of two does not.
    total += unknown * (rarest || this.idf(-1));
    return { docs: this.touched, count, scores, words: hits, covered, weight: total };
  }

  /** Whether the index holds a term the word may match exactly or as a prefix (a reading of two typed words as one is worth trying). */
  knows(word: QueryWord): boolean {
    if (word.terms.some((t) => (this.index.postingLists.df[this.index.dictionary.get(t) ?? -1] ?? 0) > 0)) return true;
    return word.prefixes.some((p) => this.index.completions.atPrefix(p).size > 0);
  }

  /** Offers each document the word matches its score, and returns the word's weight: the idf of its rarest term the index holds, times how loosely it matched (0: none). */
  private scoreWord(word: QueryWord, offer: (doc: number, score: number) => void): number {
    let weight = 0;
    for (const [id, factor] of this.expand(word)) {
      // A word matched only loosely (a typo variant, a completion) weighs as loosely.
      const idf = this.idf(id);
      if (idf * factor > weight) weight = idf * factor;
      this.scoreTerm(id, idf * factor * word.span, offer);
    }
    for (const reading of word.readings) {
      // Word by word, the documents still holding every word of the reading so far, and their summed scores.
      let held = new Map<number, number>();
      let readingWeight = 0;
      reading.forEach((sub, k) => {
        const next = new Map<number, number>();
        readingWeight += this.scoreWord(sub, (doc, s) => {
          if (k === 0) next.set(doc, Math.max(next.get(doc) ?? 0, s));
          else if (held.has(doc)) next.set(doc, Math.max(next.get(doc) ?? 0, held.get(doc)! + s));
        });
        held = next;
      });
      // A reading apart scores as its words did (scaled to the typed words it stands for), a little below the word read whole.
      const scale = (READING_FACTOR * word.span) / reading.length;
      for (const [doc, sum] of held) offer(doc, sum * scale);
      if (held.size > 0) weight = Math.max(weight, readingWeight * (word.span / reading.length));
    }
    return weight;
  }

  /** Inverse document frequency of a term id (-1: a term no document holds). */
  private idf(id: number): number {
    const df = id < 0 ? 0 : this.index.postingLists.df[id];
    return Math.log(1 + (this.index.documents - df + 0.5) / (df + 0.5));
  }

  /** Offers every live document holding a term its BM25 score, times `factor` (the term's idf times how loose the match is). */
  private scoreTerm(id: number, factor: number, offer: (doc: number, score: number) => void): void {
    const gen = this.index.generations;
    const { docs, gens, weights } = this.index.postingLists.listsOf(id);
    const end = this.index.postingLists.offset(id) + this.index.postingLists.length[id];
    for (let p = this.index.postingLists.offset(id); p < end; p++) {
      const doc = docs[p];
      if (gens[p] !== gen[doc]) continue;
      const w = weights[p];
      offer(doc, (factor * w * (K1 + 1)) / (w + K1));
    }
  }

  /** Resets the scratch entries the previous query set. */
  private clearLast(): void {
    for (let t = 0; t < this.lastCount; t++) {
      const doc = this.touched[t];
      this.scores[doc] = 0;
      this.wordHits[doc] = 0;
      this.covered[doc] = 0;
    }
    this.lastCount = 0;
  }

  /** Term ids a query word stands for, with the factor its matches count with. */
  private expand(word: QueryWord): Map<number, number> {
    const out = new Map<number, number>();
    const offer = (id: number, factor: number) => {
      if ((out.get(id) ?? 0) < factor) out.set(id, factor);
    };
    for (const term of word.terms) {
      const id = this.index.dictionary.get(term);
      if (id !== undefined && this.index.postingLists.df[id] > 0) offer(id, 1);
    }
    // Typo tolerance only for a word the index does not know as typed (as Typesense's
    // typo_tokens_threshold): a known word means what it says, and the edit search is the
    // costliest part of a query. A stem shorter than the typed word gets the budget of its own
    // length ("haus" of "Häuser": none).
    if (out.size === 0) {
      for (const term of word.typoTerms) {
        const edits = Math.min(word.fuzzy, typoBudget(term));
        if (edits === 0) continue;
        for (const [, [id, distance]] of this.index.dictionary.fuzzyGet(term, edits)) offer(id, FUZZY_FACTOR[distance] ?? 0.3);
      }
      // And the words as documents spell them: a typo can move a stem further than the word
      // ("heckenschehre" is one edit from "heckenschere", three from its stem "heckensch").
      const typed = word.terms[0];
      if (word.fuzzy > 0) {
        for (const [, [term, distance]] of this.index.spellings.fuzzyGet(typed, word.fuzzy)) {
          const id = this.index.dictionary.get(term);
          if (id !== undefined && this.index.postingLists.df[id] > 0) offer(id, FUZZY_FACTOR[distance] ?? 0.3);
        }
      }
    }
    for (const prefix of word.prefixes) {
      const found: [number, number][] = [];
      let scanned = 0;
      for (const [, id] of this.index.completions.atPrefix(prefix)) {
        if (this.index.postingLists.df[id] > 0) found.push([id, this.index.postingLists.df[id]]);
        if (++scanned >= MAX_PREFIX_SCAN) break;
      }
      found.sort((a, b) => b[1] - a[1]);
      for (const [id] of found.slice(0, MAX_PREFIX_TERMS)) offer(id, PREFIX_FACTOR);
    }
    return out;
  }

  private resizeScratch(n: number): void {
    this.clearLast();
    const size = Math.max(n, this.scores.length * 2);
    this.scores = new Float32Array(size);
    this.wordScores = new Float32Array(size);
    this.wordHits = new Uint8Array(size);
    this.covered = new Float32Array(size);
    this.touched = new Int32Array(size);
    this.wordTouched = new Int32Array(size);
  }}
