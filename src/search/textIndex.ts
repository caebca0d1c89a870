// An in-memory BM25F inverted index on typed arrays. The term dictionary is MiniSearch's radix
// tree (SearchableMap), which gives fuzzy and prefix term lookup; postings and scoring are ours,
// because MiniSearch's per-result objects cost 40–900 ms per query at 50k documents
// (bench/search-candidates.ts) and the target is a 5 ms p99 at 100k.
//
// Documents are numbered by the caller (stable per document) and given as texts, which the index
// analyses itself (analysis.ts words and terms) with one cached lookup a word: every write a
// replica follows comes through here. An update appends new postings under a new generation of
// the document; stale postings are skipped at query time and dropped when a term's list is more
// than half stale.
import SearchableMap from 'minisearch/SearchableMap';
import { termOf, typoBudget, words, type QueryWord } from './analysis.js';
import { PostingsPool } from './postingsPool.js';
import { TermLists } from './termLists.js';

/** A document's texts, analysed in its language; each field has its weight (a title match beats a description match). */
export interface DocText {
  language: string;
  /** By field (null: none). */
  texts: readonly (string | null)[];
  weights: readonly number[];
}

/** Words remembered per language: a catalogue repeats a small vocabulary very often. */
const WORD_CACHE_LIMIT = 200_000;
/** Term ids freed and held back from reuse until the word caches are cleared (each an empty postings list meanwhile). */
const QUARANTINE_LIMIT = 10_000;

const K1 = 1.2;
const B = 0.75;
/** How a term found by a looser rule counts against an exact one. */
const FUZZY_FACTOR = [1, 0.6, 0.4];
const PREFIX_FACTOR = 0.7;
/** A short prefix can stand for thousands of terms: score only the most frequent ones. */
const MAX_PREFIX_TERMS = 8;
const MAX_PREFIX_SCAN = 2000;

function grow<T extends Int32Array | Float32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

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
  words: Uint8Array;
}

export class TextIndex {
  /** Term → id: the radix tree for fuzzy and prefix lookups, a hash map for the exact ones indexing makes. */
  private readonly dict = new SearchableMap<number>();
  private readonly termIds = new Map<string, number>();
  private readonly postings = new PostingsPool();
  /**
   * Each term id's term (null once it left every document), and the ids free for reuse, so
   * churning vocabularies stay bounded.
   */
  private readonly terms: (string | null)[] = [];
  private readonly freeIds: number[] = [];
  /** Per document: its current generation (0 = none), its distinct term ids, for df bookkeeping. */
  private docGen = new Int32Array(1024);
  private readonly docTerms = new TermLists();
  /**
   * By language: word → the id of its term. One lookup a word where analysis then the dictionary
   * took two. A cached id is its word's term's or, once that term left every document, no term's:
   * freed ids wait in `quarantined` and are reused only after the caches are cleared.
   */
  private readonly wordTerms = new Map<string, Map<string, number>>();
  private readonly quarantined: number[] = [];
  /** Per field: the sum of its lengths over every version indexed, and how many versions. */
  private readonly fieldLengths: number[] = [];
  private readonly fieldVersions: number[] = [];
  private liveDocs = 0;
  private genCounter = 0;
  /** Scratch of set(): a document's weight per term id while its fields are summed (0 between calls), and its distinct ids. */
  private termWeights = new Float64Array(1024);
  private readonly distinct: number[] = [];
  // Scratch buffers reused by every query (a serve process answers one query at a time).
  private scores = new Float32Array(1024);
  private wordScores = new Float32Array(1024);
  private wordHits = new Uint8Array(1024);
  private touched = new Int32Array(1024);
  private wordTouched = new Int32Array(1024);
  private lastCount = 0;

  get size(): number {
    return this.liveDocs;
  }

  /** Distinct terms held by live documents. */
  get vocabulary(): number {
    return this.termIds.size;
  }

  /** Indexes (or re-indexes) a document's texts: BM25F, each field weighted, with per-field length norms. */
  set(doc: number, { language, texts, weights }: DocText): void {
    this.ensureDoc(doc);
    const previous = this.unlink(doc);
    const gen = (this.genCounter = (this.genCounter + 1) | 0) || (this.genCounter = 1);
    const cache = this.wordCache(language);
    // Per term: the sum over fields of weight × tf / norm, added one occurrence at a time in the
    // scratch array by term id (every addition is > 0, so 0 marks a term not seen yet).
    const distinct = this.distinct;
    distinct.length = 0;
    for (let field = 0; field < texts.length; field++) {
      const text = texts[field];
      const list = text ? words(text) : [];
      if (list.length === 0) continue;
      const avg = this.fieldAverage(field, list.length);
      const each = weights[field] / (1 - B + (B * list.length) / avg);
      for (const word of list) {
        const id = this.idOfWord(cache, word, language);
        if (id >= this.termWeights.length) this.termWeights = grow(this.termWeights, new Float64Array(Math.max(id + 1, this.termWeights.length * 2)));
        if (this.termWeights[id] === 0) distinct.push(id);
        this.termWeights[id] += each;
      }
    }
    const postings = this.postings;
    for (const id of distinct) {
      postings.push(id, doc, gen, this.termWeights[id]);
      postings.df[id]++;
      this.termWeights[id] = 0;
    }
    this.docGen[doc] = gen;
    this.docTerms.set(doc, distinct);
    this.liveDocs++;
    // Terms the old version held and the new one does not may now be in no document.
    if (previous) this.dropDeadTerms(previous);
  }

  remove(doc: number): void {
    const ids = this.unlink(doc);
    if (ids) this.dropDeadTerms(ids);
  }

  /** Takes a document out of its terms' counts; its postings go stale. Returns the term ids it held. */
  private unlink(doc: number): Int32Array | null {
    if (!this.docTerms.has(doc)) return null;
    const ids = this.docTerms.get(doc);
    const { df, stale, length } = this.postings;
    for (const id of ids) {
      df[id]--;
      stale[id]++;
      if (stale[id] > 32 && stale[id] * 2 > length[id]) this.postings.compact(id, this.docGen);
    }
    this.docTerms.drop(doc);
    this.docGen[doc] = 0;
    this.liveDocs--;
    return ids;
  }

  /** Forgets terms no live document holds: their dictionary entries and postings are freed for reuse. */
  private dropDeadTerms(ids: Int32Array): void {
    for (const id of ids) {
      if (this.postings.df[id] !== 0) continue;
      const term = this.terms[id];
      if (term === null) continue; // already dropped (a term listed twice)
      this.terms[id] = null;
      this.termIds.delete(term);
      this.dict.delete(term);
      this.postings.clear(id);
      this.quarantined.push(id);
    }
    if (this.quarantined.length >= QUARANTINE_LIMIT) {
      for (const cache of this.wordTerms.values()) cache.clear();
      this.freeIds.push(...this.quarantined);
      this.quarantined.length = 0;
    }
  }

  /**
   * Scores every document matching any query word. A word scores a document by the best of its
   * alternatives (stems, typo variants, prefix completions), weighted by how loose the match was.
   */
  match(words: QueryWord[]): TextMatches {
    this.clearLast();
    const n = this.docGen.length;
    if (this.scores.length < n) this.resizeScratch(n);
    const scores = this.scores;
    const hits = this.wordHits;
    let count = 0;
    for (const word of words) {
      let wordCount = 0;
      for (const [id, factor] of this.expand(word)) {
        const df = this.postings.df[id];
        const idf = Math.log(1 + (this.liveDocs - df + 0.5) / (df + 0.5));
        const { docs, gens, weights } = this.postings.listsOf(id);
        const end = this.postings.offset(id) + this.postings.length[id];
        for (let p = this.postings.offset(id); p < end; p++) {
          const doc = docs[p];
          if (gens[p] !== this.docGen[doc]) continue;
          const w = weights[p];
          const s = (idf * factor * w * (K1 + 1)) / (w + K1);
          const prev = this.wordScores[doc];
          if (prev === 0) this.wordTouched[wordCount++] = doc;
          if (s > prev) this.wordScores[doc] = s;
        }
      }
      for (let t = 0; t < wordCount; t++) {
        const doc = this.wordTouched[t];
        if (hits[doc] === 0) this.touched[count++] = doc;
        scores[doc] += this.wordScores[doc];
        hits[doc]++;
        this.wordScores[doc] = 0;
      }
    }
    this.lastCount = count;
    return { docs: this.touched, count, scores, words: hits };
  }

  /** Resets the scratch entries the previous query set. */
  private clearLast(): void {
    for (let t = 0; t < this.lastCount; t++) {
      const doc = this.touched[t];
      this.scores[doc] = 0;
      this.wordHits[doc] = 0;
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
      const id = this.dict.get(term);
      if (id !== undefined && this.postings.df[id] > 0) offer(id, 1);
    }
    // Typo tolerance only for a word the index does not know as typed (as Typesense's
    // typo_tokens_threshold): a known word means what it says, and the edit search is the
    // costliest part of a query. A stem shorter than the typed word gets the budget of its own
    // length ("haus" of "Häuser": none).
    if (out.size === 0) {
      for (const term of word.terms) {
        const edits = Math.min(word.fuzzy, typoBudget(term));
        if (edits === 0) continue;
        for (const [, [id, distance]] of this.dict.fuzzyGet(term, edits)) offer(id, FUZZY_FACTOR[distance] ?? 0.3);
      }
    }
    if (word.prefix) {
      const found: [number, number][] = [];
      let scanned = 0;
      for (const [, id] of this.dict.atPrefix(word.prefix)) {
        if (this.postings.df[id] > 0) found.push([id, this.postings.df[id]]);
        if (++scanned >= MAX_PREFIX_SCAN) break;
      }
      found.sort((a, b) => b[1] - a[1]);
      for (const [id] of found.slice(0, MAX_PREFIX_TERMS)) offer(id, PREFIX_FACTOR);
    }
    return out;
  }

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.freeIds.pop() ?? this.postings.add();
      this.terms[id] = term;
      this.termIds.set(term, id);
      this.dict.set(term, id);
    }
    return id;
  }

  /** Running average length of a field over every version indexed (an estimate is enough for the norm). */
  private fieldAverage(field: number, length: number): number {
    const sum = (this.fieldLengths[field] ?? 0) + length;
    const versions = (this.fieldVersions[field] ?? 0) + 1;
    this.fieldLengths[field] = sum;
    this.fieldVersions[field] = versions;
    return sum / versions;
  }

  private wordCache(language: string): Map<string, number> {
    let cache = this.wordTerms.get(language);
    if (!cache) this.wordTerms.set(language, (cache = new Map()));
    return cache;
  }

  /** The term id of a word in a language, made when the term is new. */
  private idOfWord(cache: Map<string, number>, word: string, language: string): number {
    const known = cache.get(word);
    if (known !== undefined && this.terms[known] !== null) return known;
    const id = this.termId(termOf(word, language));
    // A bounded cache: start over rather than grow without end on an open vocabulary.
    if (cache.size >= WORD_CACHE_LIMIT) cache.clear();
    cache.set(word, id);
    return id;
  }

  private ensureDoc(doc: number): void {
    if (doc >= this.docGen.length) {
      const next = new Int32Array(Math.max(doc + 1, this.docGen.length * 2));
      next.set(this.docGen);
      this.docGen = next;
    }
  }

  private resizeScratch(n: number): void {
    this.clearLast();
    const size = Math.max(n, this.scores.length * 2);
    this.scores = new Float32Array(size);
    this.wordScores = new Float32Array(size);
    this.wordHits = new Uint8Array(size);
    this.touched = new Int32Array(size);
    this.wordTouched = new Int32Array(size);
  }
}
