// The SearchEngine port: what the search service asks of an engine, whichever it is (the built-in
// in-memory replica on plain Redis, or the Redis Query Engine). Engines return ids, scores and
// ranks; the service loads the documents themselves, so both engines answer the same shape.
import type { QueryAnalysis, QuerySynonyms } from './analysis.js';
import type { FacetName, StatField } from './productFacets.js';
import type { SortKey } from './productSort.js';

export type { FacetName, StatField } from './productFacets.js';
export type { SortKey } from './productSort.js';
export type SearchMode = 'keyword' | 'semantic' | 'hybrid';
export type VariantStrategy = 'all' | 'children_only' | 'parents_only';

export interface ProductFilters {
  siteId?: string;
  language?: string;
  category?: string;
  brand?: string[];
  availability?: string[];
  priceMin?: number;
  priceMax?: number;
  ratingMin?: number;
  ratingMax?: number;
  /** Lower-case category path: the product's category is it or below it (productFacets.ts categoryPaths). */
  categoryPath?: string;
  inStock?: boolean;
  /** Attribute name → accepted values (any of them; case-insensitive). */
  attributes?: Record<string, string[]>;
  /** Lower-case product ids left out (a search rule's hidden and pinned products). */
  excludeIds?: string[];
  variantStrategy: VariantStrategy;
}

/** What one search asks for; `vector` is the query embedding, null when semantic ranking cannot run. */
export interface SearchRequest {
  query: string;
  mode: SearchMode;
  vector: Float32Array | null;
  /** The model `vector` is of (servingModel's answer when it was embedded). */
  model: string | null;
  /** Semantic ranking only considers documents in these languages (those the embedder serves). */
  semanticLanguages: readonly string[];
  /**
   * The query's language: the request's, else the site's, else the tenant's default. German
   * queries have their compounds split (analysis.ts).
   */
  language: string;
  /** Cosine similarity below which a semantic candidate counts as unrelated and is left out. */
  minSimilarity: number;
  limit: number;
  offset: number;
  /** The synonym sets that apply (search/synonyms.ts SynonymTable; none: no synonyms). */
  synonyms?: QuerySynonyms | null;
}

/** How an engine analyses a request's query: stemmed in `stemming` (null: every stemmed language), with the request's synonyms. */
export const queryAnalysisOf = (s: SearchRequest, stemming: string | null): QueryAnalysis => ({ stemming, language: s.language, synonyms: s.synonyms ?? null });

export interface ProductSearch extends SearchRequest {
  filters: ProductFilters;
  /** Value facets to count (productFacets.ts FacetName). */
  facets: FacetName[];
  /** Numeric fields to answer min, max and average of over the matches. */
  stats?: StatField[];
  /** The order within each tier of hits (empty: relevance). */
  sort?: SortKey[];
  /**
   * Facet value search: only values matching this prefix (folded; of the value or a word of it)
   * are listed, up to `facetValues`.
   */
  facetPrefix?: string;
  /** How many values a facet lists (default FACET_VALUES, facets.ts). */
  facetValues?: number;
  /** Facets are exact over at most this many matches, and sampled beyond (default FACET_EXACT_LIMIT, facets.ts). */
  facetExactLimit?: number;
}

/** Who reads knowledge entries: the same rules as GET (ceiling, own personal entries, expiry). */
export interface EntryAccess {
  userId: string;
  /** Non-personal visibilities the reader may see. */
  visibilities: string[];
  includeExpired: boolean;
  /** Epoch ms that expiry is judged against. */
  now: number;
}

export interface EntryFilters {
  type?: string;
  categoryId?: string;
  projectId?: string;
  visibility?: string;
  layer?: string;
  /** Entries carrying any of these tags. */
  tags?: string[];
  language?: string;
  access: EntryAccess;
}

export interface KnowledgeSearch extends SearchRequest {
  filters: EntryFilters;
}

export interface Hit {
  id: string;
  score: number;
  /** 1-based rank of the document in each signal's list; null when that signal did not find it. */
  ranks: { keyword: number | null; semantic: number | null };
}

export interface FacetCount {
  value: string;
  count: number;
}

export interface SearchResult {
  hits: Hit[];
  /** Documents matched: every keyword match, plus the semantic candidates (at most the window). */
  total: number;
  /** Per asked facet, by its name as asked. */
  facets: Partial<Record<FacetName, FacetCount[]>>;
  /** Per asked numeric field: min, max and average over the matches that have it. */
  facetsStats?: Partial<Record<StatField, FacetStats>>;
  /** False when the facets were counted over a sample of the matches (facets.ts); absent: exact. */
  facetsExhaustive?: boolean;
}

export interface FacetStats {
  min: number | null;
  max: number | null;
  avg: number | null;
  /** Matches that have the field. */
  count: number;
}

export interface RelatedRequest {
  limit: number;
  offset: number;
}

/** Related products, and how they were found: by the product's vectors, or (it has none) by its keywords (search/moreLikeThis.ts). */
export interface RelatedResult extends SearchResult {
  relatedBy: 'vectors' | 'keywords';
}

export interface EngineProgress {
  tenants: number;
  tenantsLoaded: number;
  documents: number;
}

export interface SearchEngine {
  readonly name: 'builtin' | 'redis-query-engine';
  /** Builds or checks the indexes; resolves when the engine can answer. */
  start(onProgress?: (progress: EngineProgress) => void): Promise<void>;
  readonly ready: boolean;
  searchProducts(tenantId: string, search: ProductSearch): Promise<SearchResult>;
  /** Nearest products by similarity anchor, or by keywords where the product has no vectors; null when the product is unknown. */
  relatedProducts(tenantId: string, productId: string, request: RelatedRequest & { variantStrategy: VariantStrategy }): Promise<RelatedResult | null>;
  searchKnowledge(tenantId: string, search: KnowledgeSearch): Promise<SearchResult>;
  /** Nearest readable entries by similarity anchor; null when the entry is unknown or not readable. */
  relatedEntries(tenantId: string, entryId: string, request: RelatedRequest & { access: EntryAccess }): Promise<SearchResult | null>;
  /**
   * The model whose vectors the tenant is searched with (null: none): its own while a re-embed
   * with the configured model runs (search/servingModels.ts). Query vectors must be of it.
   */
  servingModel(tenantId: string): Promise<string | null>;
  /**
   * A mark of what the engine answers the tenant's searches from, taken before a search: it moves
   * with every change of the tenant's documents that the engine can see (search/resultCache.ts
   * keeps a result only under the mark it was found at). Null while the engine may answer the
   * tenant partly (its indexes still read stored documents): nothing is kept.
   */
  changeMark(tenantId: string): string | null | Promise<string | null>;
  /** Read-your-writes: makes this process see documents just written before the write is answered. */
  refresh(tenantId: string, changed: DocumentRef[]): Promise<void>;
  close(): Promise<void>;
}

export interface DocumentRef {
  kind: 'product' | 'entry';
  id: string;
}

/** How many candidates semantic search contributes (and hybrid fuses) at least. */
export const SEMANTIC_WINDOW = 100;
export const MAX_WINDOW = 1100;

/** The semantic candidate depth of a request: enough for the page, at least the window. */
export const windowOf = (r: { offset: number; limit: number }): number => Math.min(MAX_WINDOW, Math.max(SEMANTIC_WINDOW, r.offset + r.limit));

/** Keyword hits in their two tiers: the first `full` match every query word, the rest enough of them (coverage.ts). */
export interface KeywordRanking {
  ids: string[];
  full: number;
}

/**
 * Hybrid ranking: the documents matching every query word, then those matching enough of them,
 * in keyword order; then those only semantic search found (above the model's similarity floor),
 * in semantic order. Semantic ranking adds what keyword search missed (a synonym, a typo beyond
 * reach) and never moves a keyword match: on the judged set (bench:quality) re-ordering keyword
 * matches by the embedding, as reciprocal rank fusion does, ranked accessories and neighbours
 * above what was asked for. A hit's score is its tier (2, 1, 0) plus its reciprocal rank in the
 * list that placed it, so scores descend down the list.
 */
export function fuseRanks(keyword: KeywordRanking, semantic: string[]): { id: string; score: number; ranks: Hit['ranks'] }[] {
  const semanticRank = new Map(semantic.map((id, i) => [id, i + 1]));
  const found = new Set(keyword.ids);
  return [
    ...keyword.ids.map((id, i) => ({
      id, score: (i < keyword.full ? 2 : 1) + 1 / (RRF_K + i + 1), ranks: { keyword: i + 1, semantic: semanticRank.get(id) ?? null },
    })),
    ...semantic.filter((id) => !found.has(id)).map((id) => ({ id, score: 1 / (RRF_K + semanticRank.get(id)!), ranks: { keyword: null, semantic: semanticRank.get(id)! } })),
  ];
}

const RRF_K = 60;
