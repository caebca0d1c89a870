// The Redis Query Engine adapter (RediSearch: Redis Stack, Redis 8). Each tenant has FT indexes over
// its documents' search fields (schema.ts), which every document write stores in the same atomic
// step (projection.ts), on the master that holds the tenant's documents (router.ts). So a write is
// searchable in every process the moment it is answered, and a serve process has nothing to read
// or follow at start.
//
// Keyword ranking is the server's BM25 over kcs's own analysis; a word the index does not know gets
// typo variants, the last word matches as a prefix; KNN runs with pre-filters and is sorted by
// distance; hybrid is fused here (RRF), as in the built-in engine.
import type { Logger } from '../../log.js';
import { keys } from '../../store/keys.js';
import type { Store } from '../../store/redis.js';
import type { ReplicaSet } from '../../store/replicaSet.js';
import { UnavailableError } from '../../store/unavailableError.js';
import { analyzeQuery, type QueryAnalysis } from '../analysis.js';
import {
  fuseRanks, windowOf,
  type DocumentRef, type EngineProgress, type EntryAccess, type KnowledgeSearch,
  type FacetName, type ProductSearch, type RelatedRequest, type RelatedResult, type SearchEngine, type SearchRequest, type SearchResult, type SortKey, type StatField,
  type VariantStrategy, queryAnalysisOf,
} from '../engine.js';
import { fieldKeys } from '../productSort.js';
import { CODE_HITS, CODE_SCORE, SortedSearch, type FoundHits } from './sortedSearch.js';
import { FACET_EXACT_LIMIT, FACET_VALUES } from '../facets.js';
import { queryCodes } from '../productValues.js';
import { ChangeMarks } from './changeMarks.js';
import { IndexCommands } from './commands.js';
import { FacetCounter } from './facets.js';
import { KeywordSearch, type Keyword, type KeywordQuery, type PartialTier, type PlannedWords, type Ranked } from './keyword.js';
import { ModelIndexes } from './modelIndexes.js';
import { LIKED_FIELDS, moreLikeThis } from './moreLikeThis.js';
import { accessFilter, all, entryFilter, productFilterParts, tagAny, tagNone, variantFilter, type ProductFilterParts } from './query.js';
import { IndexRouter } from './router.js';
import type { ServingModels } from '../servingModels.js';
import { F, PROJECTION_VERSION, type Collection, type IndexOptions } from './schema.js';
import type { TenantIndexes } from './tenantIndexes.js';
import { TermDictionary, type TermDictionaryOptions } from './termDictionary.js';
import { TermStatistics, type TermStatisticsOptions } from './termStatistics.js';
import { reportQueryWorkers } from './workers.js';
import { EXACT_LIMIT, VectorSearch } from './vectorSearch.js';
import { productSemantic, runsSemantic, servedFilter, vectorModelOf, type SemanticScope } from './semanticScope.js';

export interface RedisQueryEngineOptions {
  /** Which model's vectors each tenant is searched with: each model has its own indexes. */
  models: ServingModels;
  /**
   * Asks for the projection of a tenant whose documents were written without it (before the Redis
   * Query Engine served search); their search fields are written in the background.
   */
  project?: (tenantId: string) => Promise<void>;
  /** Filtered sets up to this size are scanned exactly (default EXACT_LIMIT). */
  exactLimit?: number;
  /** How long the term counts that plan keyword queries are kept (termStatistics.ts). */
  termStatistics?: TermStatisticsOptions;
  /** How much of the tenants' term dictionaries this process holds (termDictionary.ts). */
  termDictionary?: TermDictionaryOptions;
  /** Replicas that may answer the searches' FT commands (router.ts read). */
  readers?: ReplicaSet | null;
}

/** What differs between a product and an entry search, and the query's words. */
interface SearchScope {
  filter: string;
  /** Exact codes the query may be (products: sku/gtin). */
  codes: string[];
  facets: FacetName[];
  stats: StatField[];
  /** Sort fields (none: relevance). */
  sort: SortKey[];
  /** Facet value search: values matching this prefix, the first `facetValues`. */
  facetPrefix?: string;
  facetValues?: number;
  /** The query's words as the index reads them. */
  planned: PlannedWords;
  /** The semantic search (null: none). */
  semantic: SemanticScope | null;
}

const NO_SITES: readonly string[] = [];

const unknownIndex = (error: unknown) => error instanceof Error && /unknown index|no such index/i.test(error.message);

export class RedisQueryEngine implements SearchEngine {
  readonly name = 'redis-query-engine' as const;
  ready = false;
  private readonly indexes: ModelIndexes;
  private readonly projected = new Map<string, Promise<void>>();
  private readonly marks: ChangeMarks;
  private readonly ft: IndexCommands;
  private readonly stats: TermStatistics;
  private readonly keywords: KeywordSearch;
  private readonly facetCounts: FacetCounter;
  private readonly vectors: VectorSearch;
  private readonly sorted: SortedSearch;
  private readonly router: IndexRouter;
  /** Per tenant, the sites being purged as the last product search read them (searchProducts). */
  private readonly purgingSites = new Map<string, readonly string[]>();

  constructor(
    private readonly redis: Store,
    private readonly log: Logger,
    private readonly options: RedisQueryEngineOptions,
  ) {
    this.router = new IndexRouter(redis, options.readers ?? null);
    this.indexes = new ModelIndexes(redis, this.router, log);
    this.marks = new ChangeMarks(redis, this.indexes, options.models);
    this.ft = new IndexCommands(this.router);
    this.stats = new TermStatistics(this.ft, new TermDictionary(this.router, options.termDictionary), options.termStatistics);
    this.keywords = new KeywordSearch(this.ft, this.stats);
    this.facetCounts = new FacetCounter(this.ft);
    this.vectors = new VectorSearch(this.ft, options.exactLimit ?? EXACT_LIMIT);
    this.sorted = new SortedSearch(this.ft, this.keywords, (c, keyword, filter, ids) => this.notMatching(c, { keyword, filter }, ids));
  }

  /** Nothing to read: the indexes are in Redis. Tenants whose documents lack the projection are handed on. */
  async start(onProgress?: (p: EngineProgress) => void): Promise<void> {
    const tenantIds = await this.redis.hvals(keys.tenantSlugs);
    await Promise.all([reportQueryWorkers(this.router.masters(), this.log), ...tenantIds.map((t) => this.checkProjection(t))]);
    onProgress?.({ tenants: tenantIds.length, tenantsLoaded: tenantIds.length, documents: 0 });
    this.ready = true;
  }

  /** Writes are indexed by the server as they are stored; the term counts of the tenant are read again. */
  async refresh(tenantId: string, _changed: DocumentRef[]): Promise<void> {
    this.stats.forget(tenantId);
  }

  async close(): Promise<void> {}

  /** None with replica reads: a replica may answer without a write (not answered yet) that the master's mark counts. */
  changeMark(tenantId: string): Promise<string | null> {
    return this.options.readers ? Promise.resolve(null) : this.marks.of(tenantId);
  }

  async servingModel(tenantId: string): Promise<string | null> {
    return (await this.options.models.of(tenantId)).modelId;
  }

  searchProducts(tenantId: string, s: ProductSearch): Promise<SearchResult> {
    return this.serve(tenantId, async () => {
      const indexes = await this.tenant(tenantId, vectorModelOf(s));
      const c = indexes.products(tenantId);
      const vectors = indexes.productVectors(tenantId);
      const semantic = runsSemantic(s) && vectors ? (parts: ProductFilterParts) => productSemantic(vectors, c, parts, s) : null;
      // What the queries depend on: the words as the index reads them (from the counts kept here),
      // and how many documents a semantic search may rank (an estimate: before the purge).
      const [planned, allowed] = await Promise.all([
        this.plan(c, s, queryAnalysisOf(s, s.filters.language ?? null)),
        semantic ? this.vectors.allowed(semantic(productFilterParts(s.filters, []))) : 0,
      ]);
      const codes = s.query.trim() ? queryCodes(s.query) : [];
      const run = (purging: readonly string[]) => {
        const parts = productFilterParts(s.filters, purging);
        return this.search(c, s, {
          filter: all(parts.stable, parts.volatile), codes, facets: s.facets, stats: s.stats ?? [], sort: fieldKeys(s.sort), planned,
          semantic: semantic && { ...semantic(parts), allowed }, facetPrefix: s.facetPrefix, facetValues: s.facetValues,
        });
      };
      // The sites being purged are read beside the search's first round trip, not before it: the
      // search leaves out the sites this process last saw purged (nearly always none), and runs
      // again in the rare case that the set read names a site it did not leave out.
      const assumed = this.purgingSites.get(tenantId) ?? NO_SITES;
      const [purging, found] = await Promise.all([this.router.readKeys(tenantId, (r) => r.smembers(keys.sitesPurging(tenantId))), run(assumed)]);
      this.purgingSites.set(tenantId, purging.length > 0 ? purging : NO_SITES);
      return purging.every((site) => assumed.includes(site)) ? found : run(purging);
    });
  }

  searchKnowledge(tenantId: string, s: KnowledgeSearch): Promise<SearchResult> {
    return this.serve(tenantId, async () => {
      const c = (await this.tenant(tenantId, vectorModelOf(s))).entries(tenantId);
      const filter = entryFilter(s.filters);
      const semantic = runsSemantic(s) ? { c, filter: all(filter, servedFilter(s)), check: null } : null;
      const [planned, allowed] = await Promise.all([
        this.plan(c, s, queryAnalysisOf(s, s.filters.language ?? null)),
        semantic ? this.vectors.allowed(semantic) : 0,
      ]);
      return this.search(c, s, { filter, codes: [], facets: [], stats: [], sort: [], planned, semantic: semantic && { ...semantic, allowed } });
    });
  }

  relatedProducts(tenantId: string, productId: string, r: RelatedRequest & { variantStrategy: VariantStrategy }): Promise<RelatedResult | null> {
    return this.serve(tenantId, async () => {
      const indexes = await this.tenant(tenantId);
      const c = indexes.products(tenantId);
      const v = indexes.productVectors(tenantId);
      const [rev, [site, ext, ...liked], [anchor, content], purging] = await Promise.all([
        this.redis.hget(keys.product(tenantId, productId), 'rev'),
        this.redis.hmget(c.prefix + productId, 'f:site', 'f:ext', ...LIKED_FIELDS),
        v ? this.redis.hmgetBuffer(v.prefix + productId, ...this.vectorFieldsOf(v)) : [null, null],
        this.redis.smembers(keys.sitesPurging(tenantId)),
      ]);
      if (!rev || (site && purging.includes(site))) return null;
      const vector = anchor?.length ? anchor : content;
      const filter = all(tagAny('site', site ? [site] : []), tagNone(F.id, [productId]), variantFilter(r.variantStrategy), ext ? tagNone('pext', [ext]) : '');
      // No vectors (a language the model does not serve, or embedding off): its keyword neighbours.
      if (!v || !vector?.length) return { ...(await moreLikeThis(this.ft, c, liked, { ...r, filter })), relatedBy: 'keywords' };
      return { ...(await this.related(v, { vector, filter }, r)), relatedBy: 'vectors' };
    });
  }

  relatedEntries(tenantId: string, entryId: string, r: RelatedRequest & { access: EntryAccess }): Promise<SearchResult | null> {
    return this.serve(tenantId, async () => {
      const c = (await this.tenant(tenantId)).entries(tenantId);
      const access = accessFilter(r.access);
      const readable = await this.ft.query(c, all(tagAny(F.id, [entryId]), access), { args: ['NOCONTENT', 'LIMIT', '0', '1'] });
      if (readable.rows.length === 0) return null;
      const [anchor, content] = c.vectorFields ? await this.redis.hmgetBuffer(c.prefix + entryId, ...this.vectorFieldsOf(c)) : [null, null];
      const vector = anchor?.length ? anchor : content;
      if (!vector?.length) return { hits: [], total: 0, facets: {} };
      return this.related(c, { vector, filter: all(access, tagNone(F.id, [entryId])) }, r);
    });
  }

  // ---- tenants ---------------------------------------------------------------------------------

  /**
   * Runs a search. Where the tenant's indexes turn out to be elsewhere or gone (a failover, a moved
   * slot, a dropped index), they are checked again (made where missing) and the search runs once
   * more. While the tenant's slot migrates, its indexes are made ahead on the master it goes to,
   * and the search fails (503): that master holds only the documents moved so far.
   */
  private async serve<T>(tenantId: string, search: () => Promise<T>): Promise<T> {
    try {
      return await search();
    } catch (error) {
      const migratingTo = error instanceof UnavailableError ? error.why.migratingTo : undefined;
      if (migratingTo) {
        void this.options.models.of(tenantId).then((model) => this.indexes.of(model).prepareImport(tenantId, migratingTo)).catch(() => undefined);
        throw error;
      }
      if (!(error instanceof UnavailableError && error.why.moved) && !unknownIndex(error)) throw error;
      this.indexes.forget(tenantId);
      return search();
    }
  }

  /**
   * The indexes of the model the tenant is searched with (or of the query vector's model: the
   * tenant may have switched since it was embedded), once they exist; once per process and
   * tenant, its documents are checked to carry the projection (or will).
   */
  private async tenant(tenantId: string, model?: IndexOptions): Promise<TenantIndexes> {
    let projected = this.projected.get(tenantId);
    if (!projected) {
      projected = this.checkProjection(tenantId);
      this.projected.set(tenantId, projected);
      projected.catch(() => this.projected.delete(tenantId));
    }
    const indexes = this.indexes.of(model ?? (await this.options.models.of(tenantId)));
    await Promise.all([indexes.ensure(tenantId), projected]);
    return indexes;
  }

  /** Documents written before the Redis Query Engine served search lack the projection: hand the tenant on. */
  private async checkProjection(tenantId: string): Promise<void> {
    if ((await this.redis.get(keys.searchProjection(tenantId))) === PROJECTION_VERSION) return;
    if (!this.options.project) {
      this.log.warn({ tenantId }, 'the tenant\'s documents may lack search fields and no projection job can be sent from here');
      return;
    }
    await this.options.project(tenantId);
  }

  // ---- searching -------------------------------------------------------------------------------

  /**
   * Keyword, semantic or both fused, the same for products and entries. The keyword query is
   * planned from the counts kept here (termStatistics.ts), so its tiers, the code lookup, the
   * vector search and the facets over its matches go to the server together.
   */
  private async search(c: Collection, s: ProductSearch | KnowledgeSearch, scope: SearchScope): Promise<SearchResult> {
    const useKeyword = s.mode !== 'semantic' || !s.vector;
    const query = useKeyword ? this.keywords.query(s.query, scope.planned, c.kind) : undefined;
    // Facets start over what every word matches; the partial tier's matches are added where it runs.
    const matched = query === undefined ? undefined : everyWordUnder(query, scope.filter);
    const limit = ('facetExactLimit' in s && s.facetExactLimit) || FACET_EXACT_LIMIT;
    // Counts to be added to those of documents found apart (semantic candidates, codes) need every value, as does a value search.
    // A repeated search knows its partial tier ahead (keyword.ts expectedTier): its query and facets
    // go with the first ones, and every value is counted, as counts to be added need.
    const expected = scope.sort.length === 0 ? await this.keywords.expectedTier(c, query, scope.filter) : null;
    const top = scope.semantic || scope.facetPrefix !== undefined || expected ? null : FACET_VALUES * 2;
    const faceting = scope.facets.length > 0 || scope.stats.length > 0;
    const [found, matchingCounts, matchingStats, partialAhead] = await Promise.all([
      scope.sort.length > 0
        ? this.sorted.hits(c, { ...scope, k: s.offset + s.limit, query, semantic: scope.semantic && this.semanticCandidates(s, scope.semantic, windowOf(s)) })
        : this.rankedHits(c, s, scope, query, expected),
      scope.facets.length > 0 && matched ? this.facetCounts.matching(c, matched, scope.facets, { limit, top }) : null,
      scope.stats.length > 0 && matched ? this.facetCounts.stats(c, matched, scope.stats, limit) : null,
      faceting && expected ? this.facetCounts.ofTier(c, scope, all(expected.expr, scope.filter), limit) : null,
    ]);
    const page = found.hits.slice(s.offset, s.offset + s.limit);
    if (!faceting) return { hits: page, total: found.total, facets: {} };
    return { hits: page, total: found.total, ...(await this.facetCounts.ofSearch(c, scope, { ...found, matched, matchingCounts, matchingStats, top, limit, partialAhead })) };
  }

  /** The hits in relevance order (at least the page), the total, and the documents found apart from the keyword query. */
  private async rankedHits(c: Collection, s: SearchRequest, scope: SearchScope, query: KeywordQuery | null | undefined, expected: PartialTier | null): Promise<FoundHits> {
    const window = windowOf(s);
    const useKeyword = query !== undefined;
    const [keywordFound, codes, semantic] = await Promise.all([
      useKeyword ? this.keywords.search(c, query, { k: runsSemantic(s) ? window : s.offset + s.limit, filter: scope.filter, expected }) : null,
      useKeyword && scope.codes.length > 0 ? this.ft.ids(c, all(tagAny('codes', scope.codes), scope.filter), CODE_HITS) : [],
      scope.semantic ? this.semanticCandidates(s, scope.semantic, window) : null,
    ]);
    // Code matches outside the keyword query's matches still count (and are counted once).
    const codesOutside = keywordFound ? await this.notMatching(c, { keyword: keywordFound, filter: scope.filter }, codes.filter((id) => !keywordFound.ids.includes(id))) : [];
    const keyword = keywordFound && withCodes(keywordFound, codes, codesOutside.length);
    if (keyword && semantic) {
      const outside = await this.notMatching(c, { keyword: keywordFound!, filter: scope.filter }, semantic.ids.filter((id) => !keyword.ids.includes(id)));
      return { hits: fuseRanks(keyword, semantic.ids), total: keyword.total + outside.length, keyword: keywordFound, extra: [...codesOutside, ...outside] };
    }
    if (semantic) {
      const hits = semantic.ids.map((id, i) => ({ id, score: semantic.scores[i], ranks: { keyword: null, semantic: i + 1 } }));
      return { hits, total: semantic.ids.length, keyword: null, extra: semantic.ids };
    }
    const hits = keyword!.ids.map((id, i) => ({ id, score: keyword!.scores[i], ranks: { keyword: i + 1, semantic: null } }));
    return { hits, total: keyword!.total, keyword: keywordFound, extra: codesOutside };
  }

  /** The nearest documents above the request's similarity floor. */
  private semanticCandidates(s: SearchRequest, scope: SemanticScope, window: number): Promise<Ranked> {
    return this.vectors.nearest({ ...scope, vector: 'content', blob: s.vector!, k: window, floor: s.minSimilarity }).then((r) => aboveFloor(r, s.minSimilarity));
  }

  /** The query's words as the index reads them (none when only semantic ranking runs). */
  private plan(c: Collection, s: SearchRequest, analysis: QueryAnalysis): Promise<PlannedWords> {
    const keyword = s.mode !== 'semantic' || !s.vector;
    return this.keywords.plan(c, keyword ? analyzeQuery(s.query, analysis) : [], analysis, true);
  }

  /** Which of the ids (none of them in the keyword hits fetched) the keyword query, run under `filter`, does not match. */
  private async notMatching(c: Collection, { keyword, filter }: { keyword: Keyword; filter: string }, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    // Every match was fetched: these are not among them.
    if (keyword.ids.length >= keyword.total) return ids;
    // Browsing matches every document the filter allows.
    if (keyword.expr === null) return [];
    const matching = new Set(await this.ft.ids(c, all(keyword.expr, filter, tagAny(F.id, ids)), ids.length));
    return ids.filter((id) => !matching.has(id));
  }

  /** Nearest to `vector` among the documents `filter` allows (VectorSearch.related), as a page of hits. */
  private async related(c: Collection, { vector, filter }: { vector: Buffer; filter: string }, r: RelatedRequest): Promise<SearchResult> {
    const merged = await this.vectors.related(c, { vector, filter, k: r.offset + r.limit });
    const hits = merged.map(([id, score], i) => ({ id, score, ranks: { keyword: null, semantic: i + 1 } })).slice(r.offset);
    return { hits, total: merged.length, facets: {} };
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** The hash fields of the anchor and content vectors of the engine's model (none without one). */
  private vectorFieldsOf(c: Collection): string[] {
    return c.vectorFields ? [c.vectorFields.anchor, c.vectorFields.content] : [];
  }
}

/** What every word of a keyword query matches under the filter (browsing: every document it allows; null: nothing). */
function everyWordUnder(query: KeywordQuery | null, filter: string): string | null {
  if (query === null) return filter || '*';
  return query.every === null ? null : all(query.every, filter);
}

/** The nearest documents at or above a similarity floor (the list is best first). */
function aboveFloor(ranked: Ranked, floor: number): Ranked {
  const n = ranked.scores.findIndex((score) => score < floor);
  return n < 0 ? ranked : { ids: ranked.ids.slice(0, n), scores: ranked.scores.slice(0, n) };
}

/** Keyword hits with the code matches first (they score above any text match); `outside` of them did not match the words. */
function withCodes(keyword: Keyword, codes: string[], outside: number): Keyword {
  if (codes.length === 0) return keyword;
  const rest = keyword.ids.map((id, i) => [id, keyword.scores[i]] as const).filter(([id]) => !codes.includes(id));
  return {
    ...keyword,
    ids: [...codes, ...rest.map(([id]) => id)],
    scores: [...codes.map((id) => CODE_SCORE + (keyword.scores[keyword.ids.indexOf(id)] ?? 0)), ...rest.map(([, score]) => score)],
    total: keyword.total + outside,
  };
}
