// An in-memory BM25F inverted index on typed arrays (its query side: textMatch.ts). The term
// dictionary is MiniSearch's radix tree (SearchableMap), which gives fuzzy and prefix term
// lookup; postings and scoring are ours, because MiniSearch's per-result objects cost 40–900 ms
// per query at 50k documents, against a 5 ms p99 target at 100k.
//
// Documents are numbered by the caller (stable per document) and given as texts, which the index
// analyses itself (analysis.ts words, terms and compound tails) with one cached lookup a word:
// every write a replica follows comes through here. An update appends new postings under a new generation of
// the document; stale postings are skipped at query time and dropped when a term's list is more
// than half stale.
import SearchableMap from 'minisearch/SearchableMap';
import { compoundTails, fold, termOf, words, type QueryWord } from '../analysis.js';
import { PostingsPool } from './postingsPool.js';
import { TermLists } from './termLists.js';
import { TextMatcher, type TextMatches } from './textMatch.js';

export type { TextMatches } from './textMatch.js';

/** A text field of the documents: its weight (a title match beats a description match), and whether the word being typed completes to its words. */
export interface TextField {
  weight: number;
  /**
   * Names (title, brand, category, keywords) complete the last word of a query; prose does not, as
   * Typesense's per-field prefix is set up for shops: "waschmaschine" is no start of a doormat
   * whose description calls it "waschmaschinenfest".
   */
  completes: boolean;
}

/** A document's texts, analysed in its language. */
export interface DocText {
  language: string;
  /** By field (null: none). */
  texts: readonly (string | null)[];
  fields: readonly TextField[];
}

/** Spellings remembered for typo lookups (a spelling whose term left every document is skipped). */
const SPELLING_LIMIT = 500_000;
/** Words remembered per language: a catalogue repeats a small vocabulary very often. */
const WORD_CACHE_LIMIT = 200_000;
/** Term ids freed and held back from reuse until the word caches are cleared (each an empty postings list meanwhile). */
const QUARANTINE_LIMIT = 10_000;

const B = 0.75;

function grow<T extends Uint8Array | Int32Array | Float32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** A word's term id, or a compound's: its own and its tails' (compoundTails). */
type WordIds = number | { id: number; tails: number[] };

export class TextIndex {
  /** Term → id: the radix tree for fuzzy and prefix lookups, a hash map for the exact ones indexing makes. */
  private readonly dict = new SearchableMap<number>();
  /** Folded words as written → their term: typo lookups on the words documents hold (textMatch.ts). */
  private readonly spelled = new SearchableMap<string>();
  /**
   * The terms a completing field (TextField.completes) holds: the last query word's prefix
   * lookups. A term stays until it leaves every document, though it may have left the names.
   */
  private readonly completing = new SearchableMap<number>();
  /** Per term id: 1 while the term is in `completing`. */
  private completes = new Uint8Array(1024);
  /** How many spellings `spelled` holds: SearchableMap's own size walks the whole tree after every set. */
  private spellingCount = 0;
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
   * By language: word → the id of its term (and of its compound parts). One lookup a word where
   * analysis then the dictionary took two. A cached id is its word's term's or, once that term
   * left every document, no term's: freed ids wait in `quarantined` and are reused only after the
   * caches are cleared.
   */
  private readonly wordTerms = new Map<string, Map<string, WordIds>>();
  private readonly quarantined: number[] = [];
  /** Per field: the sum of its lengths over every version indexed, and how many versions. */
  private readonly fieldLengths: number[] = [];
  private readonly fieldVersions: number[] = [];
  private liveDocs = 0;
  private genCounter = 0;
  /** Scratch of set(): a document's weight per term id while its fields are summed (0 between calls), and its distinct ids. */
  private termWeights = new Float64Array(1024);
  /** Scratch of set(): the field a term was last counted in (a stamp per field indexed). */
  private fieldStamps = new Int32Array(1024);
  private fieldStamp = 0;
  private readonly distinct: number[] = [];
  /** The query side: matching and scoring over this index's dictionary and postings. */
  private readonly matcher = new TextMatcher(this);

  get size(): number {
    return this.liveDocs;
  }

  /** Distinct terms held by live documents. */
  get vocabulary(): number {
    return this.termIds.size;
  }

  /** Indexes (or re-indexes) a document's texts: each field weighted, with per-field length norms, and saturated as BM25 at query time. */
  set(doc: number, { language, texts, fields }: DocText): void {
    this.ensureDoc(doc);
    const previous = this.unlink(doc);
    const gen = (this.genCounter = (this.genCounter + 1) | 0) || (this.genCounter = 1);
    const cache = this.wordCache(language);
    // Per term: the sum over the fields holding it of weight / norm, in the scratch array by term
    // id (every addition is > 0, so 0 marks a term not seen yet). A field counts a term once, as
    // a shop search should (Algolia ignores term frequency): an accessory's description repeating
    // "Kaffeemaschine" does not outweigh the machine's title.
    const distinct = this.distinct;
    distinct.length = 0;
    for (let field = 0; field < texts.length; field++) {
      const text = texts[field];
      const list = text ? words(text) : [];
      if (list.length === 0) continue;
      const avg = this.fieldAverage(field, list.length);
      const { weight, completes } = fields[field];
      const each = weight / (1 - B + (B * list.length) / avg);
      const stamp = (this.fieldStamp = (this.fieldStamp + 1) | 0);
      for (const word of list) {
        const ids = this.idsOfWord(cache, word, language);
        if (typeof ids === 'number') {
          this.addWeight(ids, each, stamp);
          if (completes) this.complete(ids);
          continue;
        }
        // A compound counts for its tails too, as much as for itself (a Regenjacke is a Jacke).
        this.addWeight(ids.id, each, stamp);
        for (const id of ids.tails) this.addWeight(id, each, stamp);
        if (completes) {
          this.complete(ids.id);
          for (const id of ids.tails) this.complete(id);
        }
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

  /** Adds a field's weight to a term's in the document being set (set()'s scratch), once per field (`stamp`). */
  private addWeight(id: number, weight: number, stamp: number): void {
    if (id >= this.termWeights.length) {
      const size = Math.max(id + 1, this.termWeights.length * 2);
      this.termWeights = grow(this.termWeights, new Float64Array(size));
      this.fieldStamps = grow(this.fieldStamps, new Int32Array(size));
    }
    if (this.fieldStamps[id] === stamp) return;
    this.fieldStamps[id] = stamp;
    if (this.termWeights[id] === 0) this.distinct.push(id);
    this.termWeights[id] += weight;
  }

  /** Lets the word being typed complete to a term. */
  private complete(id: number): void {
    if (id >= this.completes.length) this.completes = grow(this.completes, new Uint8Array(Math.max(id + 1, this.completes.length * 2)));
    if (this.completes[id] === 1) return;
    this.completes[id] = 1;
    this.completing.set(this.terms[id]!, id);
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
      if (this.completes[id] === 1) {
        this.completing.delete(term);
        this.completes[id] = 0;
      }
      this.postings.clear(id);
      this.quarantined.push(id);
    }
    if (this.quarantined.length >= QUARANTINE_LIMIT) {
      for (const cache of this.wordTerms.values()) cache.clear();
      this.freeIds.push(...this.quarantined);
      this.quarantined.length = 0;
    }
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

  private wordCache(language: string): Map<string, WordIds> {
    let cache = this.wordTerms.get(language);
    if (!cache) this.wordTerms.set(language, (cache = new Map()));
    return cache;
  }

  /** The term ids of a word in a language (its own, and its parts' when it is a compound), made when a term is new. */
  private idsOfWord(cache: Map<string, WordIds>, word: string, language: string): WordIds {
    const known = cache.get(word);
    if (known !== undefined && this.live(known)) return known;
    const tails = compoundTails(word, language);
    const term = termOf(word, language);
    const id = this.termId(term);
    // Bounded: past the limit it starts over (a spelling seen again is added again; typo
    // lookups fall back to the terms meanwhile).
    if (this.spellingCount >= SPELLING_LIMIT) {
      this.spelled.clear();
      this.spellingCount = 0;
    }
    const spelling = fold(word);
    if (!this.spelled.has(spelling)) this.spellingCount++;
    this.spelled.set(spelling, term);
    const ids: WordIds = tails.length > 0 ? { id, tails: tails.map((t) => this.termId(t)) } : id;
    // A bounded cache: start over rather than grow without end on an open vocabulary.
    if (cache.size >= WORD_CACHE_LIMIT) cache.clear();
    cache.set(word, ids);
    return ids;
  }

  /** Whether a cached word's term ids are all still their terms' (none was freed). */
  private live(ids: WordIds): boolean {
    if (typeof ids === 'number') return this.terms[ids] !== null;
    return this.terms[ids.id] !== null && ids.tails.every((t) => this.terms[t] !== null);
  }

  /** Scores every document matching any query word (textMatch.ts). */
  match(words: QueryWord[]): TextMatches {
    return this.matcher.match(words);
  }

  /** Whether the index holds a term the word may match exactly or as a prefix. */
  knows(word: QueryWord): boolean {
    return this.matcher.knows(word);
  }

  /** What the matcher reads: the dictionary, the terms of completing fields, the spellings, the postings, each document's live generation, the live count. */
  get spellings(): SearchableMap<string> {
    return this.spelled;
  }

  get completions(): SearchableMap<number> {
    return this.completing;
  }

  get dictionary(): SearchableMap<number> {
    return this.dict;
  }

  get postingLists(): PostingsPool {
    return this.postings;
  }

  get generations(): Int32Array {
    return this.docGen;
  }

  get documents(): number {
    return this.liveDocs;
  }

  private ensureDoc(doc: number): void {
    if (doc >= this.docGen.length) {
      const next = new Int32Array(Math.max(doc + 1, this.docGen.length * 2));
      next.set(this.docGen);
      this.docGen = next;
    }
  }


}
