// One collection of a tenant's replica (its products, or its entries): document numbers, the
// facts filters need, exact-value sets for cheap candidate lists, the text index and the vectors.
import { analyzeQuery, joinedWords, type QueryAnalysis, type QueryWord } from '../analysis.js';
import { fuseRanks, windowOf, type Hit, type RelatedRequest, type SearchRequest } from '../engine.js';
import { COVERAGE, PARTIAL_TIER_BELOW } from '../coverage.js';
import { TextIndex, type TextField } from './textIndex.js';
import { TopK, type Ranked } from './topK.js';
import { NumberColumn } from './numberColumn.js';
import { VectorIndex, type VectorFilter } from './vectorIndex.js';
import { mergeNearest, newestFirst, page } from './ranking.js';
import { sortedTiers, type DocOrder } from './sortedTiers.js';

export type VectorName = 'content' | 'anchor';


/** What a collection stores of one document. */
export interface DocInput<M, C = undefined> {
  id: string;
  /** What the table keeps of the document for the collection (filters, related search). */
  meta: M;
  /** What the collection keeps in columns of its own (handed to onSet, not kept by the table). */
  columns: C;
  /** The language its texts are analysed in. */
  language: string;
  /** Its indexed texts in the order of the table's field weights (null: none); analysed only when they changed. */
  texts: (string | null)[];
  /** Exact values by field, for candidate sets (site, language, category, ...). */
  values: Record<string, string[]>;
  vectors: Partial<Record<VectorName, Float32Array>>;
}

export interface DocTableOptions<C> {
  /** The text fields, in the order of DocInput.texts: a title match beats a description match. */
  fields: readonly TextField[];
  /** Hears every document stored (its column values) or deleted (undefined): for columns kept beside the table. */
  onSet?: (doc: number, columns: C | undefined) => void;
}

/** Keyword matches among the allowed documents. */
export interface KeywordMatches {
  /** The best k, best first: the first `full` match every query word. */
  ranked: Ranked;
  full: number;
  /** Every matching document (scratch space of the table: valid until its next keyword search). */
  all: Int32Array;
  /** Whether a document matches (valid until the collection's next keyword search). */
  matches(doc: number): boolean;
  /** A match's tier (0: every word or an exact code, 1: enough words) and keyword score (valid as `matches`). */
  tier(doc: number): 0 | 1;
  score(doc: number): number;
}

/** How a collection scopes one search of its table. */
export interface SearchScope {
  /** The filter: which documents may be found. */
  allows(doc: number): boolean;
  /** A list holding every allowed document when one is cheap (exact-value filters), else null. */
  candidates(): number[] | null;
  /** How the query is analysed: its language, and the one language it is stemmed in (null: every one). */
  analysis: QueryAnalysis;
  /** Extra keyword score by document (an exact sku or gtin). */
  boost?: Map<number, number>;
  /** Creation time of a document, for browsing without a query. */
  createdMs(doc: number): number;
  /** A sorted search: the order of the sort fields (0 on ties, which go to relevance); none: by relevance. */
  order?: DocOrder;
}

/** One nearest-neighbour search of a vector index: how many, among which documents. */
export interface NearestRequest extends VectorFilter {
  k: number;
}

/** A page of hits, the total, and every matched document (for facets). */
export interface TableResult {
  hits: Hit[];
  total: number;
  matched: Iterable<number>[];
}

export class DocTable<M, C = undefined> {
  readonly ids: string[] = [];
  readonly meta: (M | undefined)[] = [];
  private readonly byId = new Map<string, number>();
  /**
   * A fingerprint of each document's language and indexed texts as last analysed: a write that
   * leaves them as they were (a price, stock or vector change) is not analysed again. Keeping the
   * texts themselves to compare cost ~400 bytes of heap a product, copied by the young-generation
   * collections of every import, for a comparison a 53-bit hash makes in ~0.5 µs.
   */
  private readonly textPrints = new NumberColumn(Float64Array, NaN);
  private readonly free: number[] = [];
  private readonly valueSets = new Map<string, Map<string, Set<number>>>();
  /** Per document: the value sets it is in (one array, where a record of value lists took eight objects). */
  private readonly docSets: (Set<number>[] | undefined)[] = [];
  readonly text = new TextIndex();
  /** Scratch list of a keyword search's matches. */
  private matched = new Int32Array(1024);

  private readonly vectorIndexes = new Map<VectorName, VectorIndex>();
  private readonly fields: readonly TextField[];
  private readonly onSet: (doc: number, columns: C | undefined) => void;

  constructor({ fields, onSet = () => undefined }: DocTableOptions<C>) {
    this.fields = fields;
    this.onSet = onSet;
  }

  get size(): number {
    return this.byId.size;
  }

  docOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  vector(name: VectorName, doc: number): Float32Array | undefined {
    return this.vectorIndexes.get(name)?.get(doc);
  }

  vectors(name: VectorName): VectorIndex | undefined {
    return this.vectorIndexes.get(name);
  }

  set(input: DocInput<M, C>): void {
    this.setMany([input]);
  }

  /** Stores documents (taken one at a time from `inputs`); their vectors go to the graph in one batch per vector index. */
  setMany(inputs: Iterable<DocInput<M, C>>): void {
    const batches = new Map<VectorName, { docs: number[]; vectors: Float32Array[] }>();
    for (const input of inputs) {
      let doc = this.byId.get(input.id);
      if (doc === undefined) {
        doc = this.free.pop() ?? this.ids.length;
        this.byId.set(input.id, doc);
        this.ids[doc] = input.id;
      }
      this.meta[doc] = input.meta;
      this.onSet(doc, input.columns);
      const print = textsPrint(input.language, input.texts);
      if (this.textPrints.at(doc) !== print) {
        this.text.set(doc, { language: input.language, texts: input.texts, fields: this.fields });
        this.textPrints.set(doc, print);
      }
      this.setValues(doc, input.values);
      for (const name of ['content', 'anchor'] as const) {
        const vector = input.vectors[name];
        if (!vector) {
          this.vectorIndexes.get(name)?.delete(doc);
          continue;
        }
        let batch = batches.get(name);
        if (!batch) batches.set(name, (batch = { docs: [], vectors: [] }));
        batch.docs.push(doc);
        batch.vectors.push(vector);
      }
    }
    for (const [name, batch] of batches) this.vectorIndex(name, batch.vectors[0].length).setMany(batch.docs, batch.vectors);
  }

  delete(id: string): void {
    const doc = this.byId.get(id);
    if (doc === undefined) return;
    this.byId.delete(id);
    this.text.remove(doc);
    for (const set of this.docSets[doc] ?? []) set.delete(doc);
    this.docSets[doc] = undefined;
    for (const index of this.vectorIndexes.values()) index.delete(doc);
    this.meta[doc] = undefined;
    this.onSet(doc, undefined);
    this.textPrints.set(doc, NaN);
    this.free.push(doc);
  }

  /** Documents holding any of the values in a field. */
  withValues(field: string, values: string[]): Set<number>[] {
    const sets = this.valueSets.get(field);
    return values.map((v) => sets?.get(v) ?? new Set<number>());
  }

  /**
   * The smallest list of candidates the given exact-value constraints allow (each constraint: a
   * field and its accepted values), or null when there is no constraint (every document).
   */
  candidates(constraints: [string, string[]][]): number[] | null {
    let best: number[] | null = null;
    for (const [field, values] of constraints) {
      const sets = this.withValues(field, values);
      const size = sets.reduce((n, s) => n + s.size, 0);
      if (best && best.length <= size) continue;
      const list: number[] = [];
      for (const set of sets) for (const doc of set) list.push(doc);
      best = sets.length > 1 ? [...new Set(list)] : list;
    }
    return best;
  }

  /** Every live document number. */
  all(): number[] {
    return [...this.byId.values()];
  }

  /**
   * Keyword matches of a query among allowed documents: those matching every query word first,
   * then, while fewer than PARTIAL_TIER_BELOW match every word, those matching words that carry
   * more than COVERAGE of the query's weight (coverage.ts). The best `k` come ranked, `all` lists
   * every match.
   */
  keyword(query: string, k: number, { analysis, allows, boost }: Pick<SearchScope, 'analysis' | 'allows' | 'boost'>): KeywordMatches {
    const words = this.joinCompounds(analyzeQuery(query, analysis), analysis);
    const m = this.text.match(words);
    const full = new TopK(k);
    const partial = new TopK(k);
    if (this.matched.length < m.count + (boost?.size ?? 0)) this.matched = new Int32Array((m.count + (boost?.size ?? 0)) * 2);
    const all = this.matched;
    // Float32 sums: a share of exactly COVERAGE must not pass on rounding.
    const enough = m.weight * COVERAGE * (1 + 1e-5);
    const matching = (doc: number) => m.words[doc] === words.length || m.covered[doc] > enough;
    // Every match, those of every word first: the partial ones are left out where enough match every word (coverage.ts).
    let nFull = 0;
    for (let i = 0; i < m.count; i++) {
      const doc = m.docs[i];
      if (m.words[doc] !== words.length || !allows(doc)) continue;
      all[nFull++] = doc;
      full.offer(doc, m.scores[doc] + (boost?.get(doc) ?? 0));
    }
    const withPartial = nFull < PARTIAL_TIER_BELOW;
    let n = nFull;
    for (let i = 0; withPartial && i < m.count; i++) {
      const doc = m.docs[i];
      if (m.words[doc] === words.length || !matching(doc) || !allows(doc)) continue;
      all[n++] = doc;
      partial.offer(doc, m.scores[doc] + (boost?.get(doc) ?? 0));
    }
    const matchesWords = withPartial ? matching : (doc: number) => m.words[doc] === words.length;
    // Boosted documents (an exact code) count even where the words do not match.
    for (const [doc, extra] of boost ?? []) {
      if ((m.words[doc] > 0 && matchesWords(doc)) || !allows(doc)) continue;
      all[n++] = doc;
      full.offer(doc, m.scores[doc] + extra);
    }
    const first = full.sorted();
    const rest = partial.sorted();
    const room = k - first.docs.length;
    const ranked = room > 0 ? { docs: [...first.docs, ...rest.docs.slice(0, room)], scores: [...first.scores, ...rest.scores.slice(0, room)] } : first;
    const matches = (doc: number) => (m.words[doc] > 0 && matchesWords(doc) && allows(doc)) || Boolean(boost?.has(doc) && allows(doc));
    const tier = (doc: number) => (m.words[doc] === words.length || boost?.has(doc) ? 0 : 1);
    const score = (doc: number) => m.scores[doc] + (boost?.get(doc) ?? 0);
    return { ranked, full: first.docs.length, all: all.subarray(0, n), matches, tier, score };
  }

  /** Adjacent query words read as one compound where the index knows the joined word ("regen jacke" → regenjacke). */
  private joinCompounds(words: QueryWord[], analysis: QueryAnalysis): QueryWord[] {
    const out: QueryWord[] = [];
    for (let i = 0; i < words.length; i++) {
      const joined = i + 1 < words.length ? joinedWords(words[i], words[i + 1], analysis) : null;
      if (joined && this.text.knows(joined)) {
        out.push(joined);
        i++;
      } else out.push(words[i]);
    }
    return out;
  }

  /**
   * Keyword, semantic or both fused (RRF): keyword over every allowed document matching the query
   * (all its words, else any; no query browses newest first), semantic over the allowed documents
   * in a served language. `total` counts every keyword match plus the semantic candidates keyword
   * did not match.
   */
  search(s: SearchRequest, scope: SearchScope): TableResult {
    const window = windowOf(s);
    const words = s.query.trim();
    let keyword: (Ranked & { full: number }) | null = null;
    let keywordAll: ArrayLike<number> & Iterable<number> = [];
    let inKeyword: (doc: number) => boolean = scope.allows;
    let matches: KeywordMatches | null = null;
    if (s.mode !== 'semantic' || !s.vector) {
      if (words) {
        const found = (matches = this.keyword(words, s.mode === 'keyword' ? s.offset + s.limit : window, scope));
        keyword = { ...found.ranked, full: found.full };
        keywordAll = found.all;
        inKeyword = found.matches;
      } else {
        keywordAll = (scope.candidates() ?? this.all()).filter(scope.allows);
        keyword = { ...newestFirst(keywordAll, scope.createdMs, s.offset + s.limit), full: Infinity };
      }
    }
    let semantic: Ranked | null = null;
    if (s.mode !== 'keyword' && s.vector) {
      const languages = this.withValues('baseLanguage', [...s.semanticLanguages]);
      const served = (doc: number) => scope.allows(doc) && languages.some((set) => set.has(doc));
      semantic = aboveFloor(this.nearest('content', s.vector, { k: window, allows: served, docs: scope.candidates() ?? undefined }), s.minSimilarity);
    }

    const result = (list: { doc: number; score: number; ranks: Hit['ranks'] }[], total: number, matched: Iterable<number>[]): TableResult => ({
      hits: page(list, s.offset, s.limit).map(({ doc, score, ranks }) => ({ id: this.ids[doc], score, ranks })),
      total,
      matched,
    });
    if (scope.order) {
      // Sorted (sortedTiers.ts): the same matches and total, each tier in the sort fields' order.
      const sorted = sortedTiers(s.offset + s.limit, scope.order, { keywordAll, matches, semantic, inKeyword, ran: keyword !== null, createdMs: scope.createdMs });
      return result(sorted.list, sorted.total, sorted.matched);
    }
    if (keyword && semantic) {
      const fused = fuseRanks({ ids: keyword.docs.map(String), full: keyword.full }, semantic.docs.map(String)).map((h) => ({ doc: Number(h.id), score: h.score, ranks: h.ranks }));
      const extra = semantic.docs.filter((doc) => !inKeyword(doc));
      return result(fused, keywordAll.length + extra.length, [keywordAll, extra]);
    }
    if (semantic) {
      return result(semantic.docs.map((doc, i) => ({ doc, score: semantic!.scores[i], ranks: { keyword: null, semantic: i + 1 } })), semantic.docs.length, [semantic.docs]);
    }
    const ranked = keyword ?? { docs: [], scores: [] };
    return result(ranked.docs.map((doc, i) => ({ doc, score: ranked.scores[i], ranks: { keyword: i + 1, semantic: null } })), keywordAll.length, [keywordAll]);
  }

  /**
   * Documents nearest to one document's similarity anchor (its content vector without one): those
   * with an anchor compared by it, the others by their content vector.
   */
  related(origin: number, { offset, limit }: RelatedRequest, { allows, docs }: { allows: (doc: number) => boolean; docs: number[] }): { hits: Hit[]; total: number } {
    const query = this.vector('anchor', origin) ?? this.vector('content', origin);
    if (!query) return { hits: [], total: 0 };
    const k = offset + limit;
    const byAnchor = this.nearest('anchor', query, { k, allows, docs });
    const byContent = this.nearest('content', query, { k, allows: (doc) => allows(doc) && !this.vector('anchor', doc), docs });
    const merged = mergeNearest(byAnchor, byContent, k);
    const hits = page(merged.docs.map((doc, i) => ({ id: this.ids[doc], score: merged.scores[i], ranks: { keyword: null, semantic: i + 1 } })), offset, limit);
    return { hits, total: merged.docs.length };
  }

  /** Nearest documents to a vector in one of the vector indexes, among allowed documents. */
  nearest(name: VectorName, query: Float32Array, request: NearestRequest): Ranked {
    return this.vectorIndexes.get(name)?.search(query, request.k, request) ?? { docs: [], scores: [] };
  }

  private vectorIndex(name: VectorName, dimension: number): VectorIndex {
    let index = this.vectorIndexes.get(name);
    // A new model with another dimension: vectors of the old one cannot be compared, start over.
    if (!index || index.dimension !== dimension) this.vectorIndexes.set(name, (index = new VectorIndex(dimension)));
    return index;
  }

  private setValues(doc: number, values: Record<string, string[]>): void {
    // for…in, not Object.entries: no array per field on a path every write takes.
    const sets: Set<number>[] = [];
    for (const field in values) {
      let byValue = this.valueSets.get(field);
      if (!byValue) this.valueSets.set(field, (byValue = new Map()));
      for (const v of values[field]) {
        let set = byValue.get(v);
        if (!set) byValue.set(v, (set = new Set()));
        sets.push(set);
      }
    }
    // An update mostly leaves them as they were: only the sets it left or joined change.
    const previous = this.docSets[doc];
    if (previous) for (const set of previous) if (!sets.includes(set)) set.delete(doc);
    for (const set of sets) if (!previous?.includes(set)) set.add(doc);
    // An exact-size copy: a list grown by push keeps room for ten more.
    this.docSets[doc] = sets.slice();
  }
}

/** The nearest documents at or above a similarity floor (the list is best first). */
function aboveFloor(ranked: Ranked, floor: number): Ranked {
  let n = 0;
  while (n < ranked.scores.length && ranked.scores[n] >= floor) n++;
  return n === ranked.scores.length ? ranked : { docs: ranked.docs.slice(0, n), scores: ranked.scores.slice(0, n) };
}

/**
 * A 53-bit fingerprint (cyrb53) of a language and texts in order; a field's end and a missing field
 * mix in values no UTF-16 unit takes, so that neither a text moved across fields nor null against
 * '' gives the same print.
 */
function textsPrint(language: string, texts: readonly (string | null)[]): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let f = -1; f < texts.length; f++) {
    const text = f < 0 ? language : texts[f];
    if (text === null) {
      h1 = Math.imul(h1 ^ 0x20000, 2654435761);
      h2 = Math.imul(h2 ^ 0x20000, 1597334677);
      continue;
    }
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ 0x10000, 2654435761);
    h2 = Math.imul(h2 ^ 0x10000, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
