// Search rules without HTTP: which mode can run (semantic only for languages the embedder
// serves), the tenant's variant strategy, the knowledge read rules, and the documents behind the
// engine's hits.
import type { Static } from '@sinclair/typebox';
import type { QueryEmbedders } from '../embed/queryEmbedders.js';
import type { FacetValuesRequest, KnowledgeSearchRequest, ProductSearchRequest } from '../schemas/search.js';
import type { EntryAccess, Hit, ProductSearch, SearchEngine, SearchMode, SearchRequest, SearchResult } from '../search/engine.js';
import { escapeHtml, markPrefix, QueryHighlighter } from '../search/highlight.js';
import { appliedSynonyms, type SynonymTable } from '../search/synonyms.js';
import type { AppliedSynonym } from '../search/analysis.js';
import { InvalidError, NotFoundError } from './errors.js';
import { readableVisibilities, type Caller, type EntryView, type KnowledgeEntryService } from './knowledgeEntries.js';
import type { ProductService, ProductView } from './products.js';
import type { SearchRecorder } from './searchAnalytics.js';
import { searcherOf, type SearchCaller } from './searcherTags.js';
import type { SiteService } from './sites.js';
import type { SynonymService } from './synonyms.js';
import { organicOffset, pinnedPage } from './pinnedPage.js';
import { bothFilters } from './ruleFilters.js';
import { understandPrices, type PricePhrase } from './priceUnderstanding.js';
import { facetsOf, productFilters, sortKeyOf } from './productSearchRequest.js';
import type { AppliedRule } from './ruleSet.js';
import type { SearchRuleService } from './searchRules.js';
import type { Tenant } from '../schemas/records.js';
import type { Page } from '../store/docs.js';
import type { ResultCache } from '../search/resultCache.js';

type ProductSearchInput = Static<typeof ProductSearchRequest>;
type FacetValuesInput = Static<typeof FacetValuesRequest>;
type FiltersInput = NonNullable<ProductSearchInput['filters']>;

export interface FacetValuesAnswer {
  facet: string;
  values: { value: string; count: number; highlighted: string }[];
  facets_exhaustive: boolean;
}
type KnowledgeSearchInput = Static<typeof KnowledgeSearchRequest>;

interface Answer<D> {
  /** `pinned` where a search rule placed the hit. */
  hits: (Hit & D & { pinned?: true })[];
  total: number;
  facets: SearchResult['facets'];
  /** Product searches: false when the facets were counted over a sample of the matches. */
  facets_exhaustive?: boolean;
  facets_stats?: SearchResult['facetsStats'];
  /** Product searches: the synonym sets and search rules the query used, and what it was read as. */
  synonyms_applied?: AppliedSynonym[];
  applied_rules?: AppliedRule[];
  understood?: PricePhrase[];
  /** Product searches: names the search in click and conversion events (null: not counted). */
  query_id?: string | null;
  mode: SearchMode;
  semantic_fallback: string | null;
  engine: string;
  took_ms: number;
}

interface Plan {
  mode: SearchMode;
  vector: Float32Array | null;
  /** The model `vector` is of, and the languages it serves. */
  model: string | null;
  languages: readonly string[];
  fallback: string | null;
  /** The query's language (request, site, tenant default). */
  language: string;
  /** Semantic candidates below this similarity are left out. */
  minSimilarity: number;
  /** A semantic or hybrid search asked for a floor below the model's (anything may then be a hit). */
  floorLowered?: boolean;
  /** Product searches: the synonym sets that apply, and those the query used. */
  synonyms?: { table: SynonymTable; applied: AppliedSynonym[] } | null;
  /** Product searches: the search rules that applied. */
  rules?: AppliedRule[];
  /** Product searches: the phrases read as filters (understand), and the text searched without them. */
  understood?: PricePhrase[];
  text?: string;
}

/** What a search asks of the plan: the query, the mode asked for, its language and floor if given. */
interface PlanInput {
  query: string;
  requested: SearchMode;
  language: string;
  minSimilarity?: number;
}

export interface SearchServiceOptions {
  engine: SearchEngine;
  /** Query vectors, per model; null without an embedder (keyword search only). */
  embedders: QueryEmbedders | null;
  products: ProductService;
  knowledgeEntries: KnowledgeEntryService;
  sites: SiteService;
  /** Facets are exact over at most this many matches (KCS_FACET_EXACT_LIMIT; default search/facets.ts). */
  facetExactLimit?: number;
  /** The tenants' synonym sets (none: product searches apply no synonyms). */
  synonyms?: SynonymService;
  /** The tenants' search rules (none: product searches apply no rules). */
  rules?: SearchRuleService;
  /** Counts product searches and names them (query_id); none: nothing is counted. */
  analytics?: SearchRecorder;
  /** Recent product search results (KCS_SEARCH_CACHE_MB); none: every search runs on the engine. */
  resultCache?: ResultCache;
}

export class SearchService {
  private readonly engine: SearchEngine;
  private readonly embedders: QueryEmbedders | null;
  private readonly products: ProductService;
  private readonly knowledgeEntries: KnowledgeEntryService;
  private readonly sites: SiteService;
  private readonly facetExactLimit: number | undefined;
  private readonly synonyms: SynonymService | null;
  private readonly rules: SearchRuleService | null;
  private readonly analytics: SearchRecorder | null;
  private readonly resultCache: ResultCache | null;

  constructor(options: SearchServiceOptions) {
    this.resultCache = options.resultCache ?? null;
    this.analytics = options.analytics ?? null;
    this.synonyms = options.synonyms ?? null;
    this.rules = options.rules ?? null;
    this.facetExactLimit = options.facetExactLimit;
    this.engine = options.engine;
    this.embedders = options.embedders;
    this.products = options.products;
    this.knowledgeEntries = options.knowledgeEntries;
    this.sites = options.sites;
  }

  /** The languages the configured model serves. */
  get semanticLanguages(): readonly string[] {
    return this.embedders?.configured.embedder.languages ?? [];
  }

  /** `caller`: who searched (the HTTP route's key and address, MCP's key), for the suggestions' distinct searchers; none: counts toward none. */
  async searchProducts(tenant: Tenant, input: ProductSearchInput, caller?: SearchCaller): Promise<Answer<{ product: ProductView }>> {
    const started = performance.now();
    const { result, plan, siteId } = await this.findProducts(tenant, input);
    const hits = await this.withProducts(tenant.id, result.hits);
    const highlighter = highlighterOf(input, plan);
    const marked = highlighter ? hits.map((h) => ({ ...h, highlight: highlighter.product(h.product) })) : hits;
    const queryId = await this.counted(tenant, input, caller, { siteId, total: result.total, shown: hits.length, plan });
    return { ...productAnswer(result, plan), query_id: queryId, hits: marked, mode: plan.mode, semantic_fallback: plan.fallback, engine: this.engine.name, took_ms: elapsed(started) };
  }

  /** searchProducts with each hit's product as JSON text (ProductService.viewTexts): what the HTTP route answers. */
  async searchProductTexts(tenant: Tenant, input: ProductSearchInput, caller?: SearchCaller): Promise<Answer<{ documentJson: string }>> {
    const started = performance.now();
    const { result, plan, siteId } = await this.findProducts(tenant, input);
    const texts = await this.products.viewTexts(tenant.id, result.hits.map((h) => h.id));
    const highlighter = highlighterOf(input, plan);
    // A product deleted since the engine saw it is left out.
    const hits = result.hits.flatMap((h, i) => {
      const documentJson = texts[i];
      if (!documentJson) return [];
      return [highlighter ? { ...h, documentJson, highlight: highlighter.product(JSON.parse(documentJson) as HighlightedFields) } : { ...h, documentJson }];
    });
    const queryId = await this.counted(tenant, input, caller, { siteId, total: result.total, shown: hits.length, plan });
    return { ...productAnswer(result, plan), query_id: queryId, hits, mode: plan.mode, semantic_fallback: plan.fallback, engine: this.engine.name, took_ms: elapsed(started) };
  }

  /**
   * Facet value search: the values of one facet matching a typed prefix, counted under the
   * search's query and filters, with the prefix marked.
   */
  async facetValues(tenant: Tenant, input: FacetValuesInput): Promise<FacetValuesAnswer> {
    const { facets } = facetsOf([input.facet], tenant.settings.facet_attributes ?? [], ['facet']);
    if (facets.length === 0) throw InvalidError.at(['facet'], `${input.facet} has values only as facets_stats (min, max, avg): it has no values to search`);
    const prefix = input.facet_query ?? '';
    const { result } = await this.findProducts(tenant, { ...input, facets: [input.facet], limit: 1, offset: 0 }, { facetPrefix: prefix, facetValues: input.max_values ?? 10 });
    const tags = { preTag: input.highlight_pre_tag ?? '<mark>', postTag: input.highlight_post_tag ?? '</mark>' };
    const values = (result.facets[facets[0]] ?? []).map(({ value, count }) => ({ value, count, highlighted: markPrefix(value, prefix, tags) ?? escapeHtml(value) }));
    return { facet: input.facet, values, facets_exhaustive: result.facetsExhaustive ?? true };
  }

  /** The engine's hits of a product search, and the plan it ran under. */
  private async findProducts(
    tenant: Tenant, input: ProductSearchInput, narrowing: Pick<ProductSearch, 'facetPrefix' | 'facetValues'> = {},
  ): Promise<{ result: SearchResult; plan: Plan; siteId: string | undefined }> {
    const site = input.site_id !== undefined ? await this.sites.resolve(tenant.id, input.site_id) : undefined;
    const siteId = site?.id;
    // Price phrases read as a filter: the rest of the query is what is searched (synonyms, rules, highlights).
    const understanding = (input.understand ?? tenant.settings.understand_queries) ? understandPrices(input.query ?? '') : null;
    const query = understanding?.query ?? input.query ?? '';
    const language = input.language ?? site?.language ?? (await this.sites.defaultLanguage(tenant.id));
    const [plan, table, effect] = await Promise.all([
      this.plan(tenant.id, { query, requested: input.mode ?? 'hybrid', language, minSimilarity: input.min_similarity }),
      this.synonyms && query.trim() ? this.synonyms.tableFor(tenant.id, { siteId, language }) : null,
      this.rules ? this.rules.effectFor(tenant.id, siteId, query) : null,
    ]);
    // Synonyms are a keyword matter: a semantic search applies none.
    if (table && plan.mode !== 'semantic') plan.synonyms = { table, applied: appliedSynonyms(query, { stemming: input.language ?? null, language, synonyms: table }) };
    plan.rules = effect?.applied ?? [];
    plan.understood = understanding?.phrases ?? [];
    plan.text = query;
    // What the query was read as, and a rule's filters, hold beside the search's own; filters none can meet leave only the pins.
    let f: FiltersInput | null = input.filters ?? {};
    for (const added of [...plan.understood.map((u) => u.filter), ...(effect?.filters ?? [])]) f = f && bothFilters(f, added);
    const { facets, stats } = facetsOf(input.facets ?? [], tenant.settings.facet_attributes ?? []);
    const pins = input.limit === 0 ? [] : (effect?.pins ?? []);
    const offset = input.offset ?? 0;
    const excludeIds = effect ? [...effect.hidden, ...effect.pins.map((p) => p.productId)] : undefined;
    const organic: SearchResult = f === null ? { hits: [], total: 0, facets: Object.fromEntries(facets.map((name) => [name, []])) } : await this.engineSearch(tenant.id, {
      ...this.request(query, plan, input),
      offset: organicOffset(pins, offset),
      synonyms: plan.synonyms?.table ?? null,
      facets,
      stats,
      sort: (input.sort ?? []).map(sortKeyOf),
      facetExactLimit: this.facetExactLimit,
      ...narrowing,
      filters: productFilters(f, { siteId, language: input.language, category: input.category, excludeIds, variantStrategy: tenant.settings.variant_strategy }),
    });
    const result = pins.length > 0 ? { ...organic, ...pinnedPage(organic.hits, organic.total, pins, offset, input.limit ?? 20) } : organic;
    return { result, plan, siteId };
  }

  /** The engine's result of a product search, through the cache of recent results where there is one. */
  private engineSearch(tenantId: string, search: ProductSearch): Promise<SearchResult> {
    return this.resultCache ? this.resultCache.searchProducts(this.engine, tenantId, search) : this.engine.searchProducts(tenantId, search);
  }

  /**
   * The search counted (unless it asked not to be, or is facet-only: limit 0), and its query_id
   * (null when not counted). It counts toward suggestions only as a first page with hits, asked by
   * a known caller, without a lowered similarity floor.
   */
  private counted(
    tenant: Tenant, input: ProductSearchInput, caller: SearchCaller | undefined, r: { siteId: string | undefined; total: number; shown: number; plan: Plan },
  ): string | null | Promise<string | null> {
    if (!this.analytics || input.analytics === false || input.limit === 0) return null;
    const offset = input.offset ?? 0;
    const suggestible = caller !== undefined && offset === 0 && r.shown > 0 && !r.plan.floorLowered;
    return this.analytics.record(tenant, {
      siteId: r.siteId ?? null, query: input.query ?? '', total: r.total, shown: { first: offset + 1, last: offset + r.shown },
      searcher: suggestible ? searcherOf(caller, input.user_token) : null,
    });
  }

  async relatedProducts(tenant: Tenant, productId: string, page: Page): Promise<Answer<{ product: ProductView }>> {
    const started = performance.now();
    const related = await this.engine.relatedProducts(tenant.id, productId.toLowerCase(), { ...page, variantStrategy: tenant.settings.variant_strategy });
    if (!related) throw new NotFoundError('Product not found');
    const { relatedBy, ...result } = related;
    const hits = await this.withProducts(tenant.id, result.hits);
    // A product without vectors (embedding off, or its language not served: its embedding_skipped_reason) is related by keywords.
    const fallback = !this.embedders ? EMBEDDING_OFF : relatedBy === 'vectors' ? null : 'the product has no vectors: related by keyword similarity of its title, brand, category and attributes';
    return { ...result, hits, mode: relatedBy === 'vectors' ? 'semantic' : 'keyword', semantic_fallback: fallback, engine: this.engine.name, took_ms: elapsed(started) };
  }

  async searchKnowledge(caller: Caller, input: KnowledgeSearchInput): Promise<Answer<{ entry: EntryView }>> {
    const started = performance.now();
    const query = input.query ?? '';
    const language = input.language ?? (await this.sites.defaultLanguage(caller.tenantId));
    const plan = await this.plan(caller.tenantId, { query, requested: input.mode ?? 'hybrid', language, minSimilarity: input.min_similarity });
    const access = this.access(caller, input.include_expired ?? false);
    const result = await this.engine.searchKnowledge(caller.tenantId, {
      ...this.request(query, plan, input),
      filters: {
        type: input.type,
        categoryId: input.category_id?.toLowerCase(),
        projectId: input.project_id?.toLowerCase(),
        visibility: input.visibility,
        layer: input.layer,
        tags: input.tags,
        language: input.language,
        access,
      },
    });
    const hits = await this.withEntries(caller, result.hits, access.includeExpired);
    return { ...result, hits, mode: plan.mode, semantic_fallback: plan.fallback, engine: this.engine.name, took_ms: elapsed(started) };
  }

  async relatedEntries(
    caller: Caller, entryId: string, { includeExpired, ...page }: Page & { includeExpired: boolean },
  ): Promise<Answer<{ entry: EntryView }>> {
    const started = performance.now();
    const access = this.access(caller, includeExpired);
    const result = await this.engine.relatedEntries(caller.tenantId, entryId.toLowerCase(), { ...page, access });
    if (!result) throw new NotFoundError('Knowledge entry not found');
    const hits = await this.withEntries(caller, result.hits, includeExpired);
    return { ...result, hits, mode: 'semantic', semantic_fallback: this.embedders ? null : EMBEDDING_OFF, engine: this.engine.name, took_ms: elapsed(started) };
  }

  /**
   * The mode that can run: semantic needs a query, and the model of the vectors the tenant is
   * searched with (a re-embed may be under way) loaded here and serving the query's language.
   */
  private async plan(tenantId: string, { query, requested, language, minSimilarity }: PlanInput): Promise<Plan> {
    const keyword = (fallback: string | null): Plan => ({
      mode: 'keyword', vector: null, model: null, languages: this.semanticLanguages, fallback, language, minSimilarity: 1,
    });
    if (requested === 'keyword') return keyword(null);
    if (!this.embedders) return keyword(EMBEDDING_OFF);
    if (!query.trim()) return keyword('an empty query browses by keyword');
    const model = await this.engine.servingModel(tenantId);
    if (!model) return keyword(EMBEDDING_OFF);
    let embedder;
    try {
      embedder = await this.embedders.forModel(model);
    } catch (error) {
      return keyword(`the tenant's vectors are of the model ${model}, which this process cannot load (${(error as Error).message}); they are being re-embedded with ${this.embedders.configured.embedder.modelId}`);
    }
    const { languages } = embedder.embedder;
    if (!embedder.serves(language)) return keyword(`the embedding model ${model} serves ${languages.join(', ')}, not ${language}`);
    try {
      const vector = await embedder.vector(query);
      const floor = embedder.embedder.minSimilarity;
      return { mode: requested, vector, model, languages, fallback: null, language, minSimilarity: minSimilarity ?? floor, floorLowered: minSimilarity !== undefined && minSimilarity < floor };
    } catch (error) {
      return keyword(`embedding the query failed: ${(error as Error).message}`);
    }
  }

  /** What every engine search takes: the query, the planned mode and vector, the page. */
  private request(query: string, plan: Plan, page: { limit?: number; offset?: number }): SearchRequest {
    return {
      query, mode: plan.mode, vector: plan.vector, model: plan.model, semanticLanguages: plan.languages,
      language: plan.language, minSimilarity: plan.minSimilarity, limit: page.limit ?? 20, offset: page.offset ?? 0,
    };
  }

  private access(caller: Caller, includeExpired: boolean): EntryAccess {
    return { userId: caller.userId, visibilities: readableVisibilities(caller), includeExpired, now: Date.now() };
  }

  private async withProducts(tenantId: string, hits: Hit[]): Promise<(Hit & { product: ProductView })[]> {
    const views = await this.products.views(tenantId, hits.map((h) => h.id));
    // A product deleted since the engine saw it is left out.
    return hits.flatMap((h, i) => (views[i] ? [{ ...h, product: views[i]! }] : []));
  }

  private async withEntries(caller: Caller, hits: Hit[], includeExpired: boolean): Promise<(Hit & { entry: EntryView })[]> {
    // The read rules are checked again on the stored entries: the engine may be a moment behind.
    const views = await this.knowledgeEntries.readableViews(caller, hits.map((h) => h.id), includeExpired);
    return hits.flatMap((h, i) => (views[i] ? [{ ...h, entry: views[i]! }] : []));
  }
}

/** A product search's result as answered: facets_exhaustive and facets_stats beside the facets, the synonyms and rules it used (always lists). */
function productAnswer({ facetsExhaustive, facetsStats, ...result }: SearchResult, plan: Plan) {
  return {
    ...result, facets_exhaustive: facetsExhaustive ?? true, ...(facetsStats ? { facets_stats: facetsStats } : {}),
    synonyms_applied: plan.synonyms?.applied ?? [], applied_rules: plan.rules ?? [], understood: plan.understood ?? [],
  };
}

/** The fields a highlight marks. */
type HighlightedFields = { title: string | null; brand: string | null; description: string | null };

/** The search's highlighter, when it asks for highlights. */
function highlighterOf(input: ProductSearchInput, plan: Plan): QueryHighlighter | null {
  if (!input.highlight) return null;
  return new QueryHighlighter(plan.text ?? input.query ?? '', {
    language: plan.language, preTag: input.highlight_pre_tag ?? '<mark>', postTag: input.highlight_post_tag ?? '</mark>', snippetWords: input.snippet_words ?? 20,
    synonyms: plan.synonyms?.table ?? null,
  });
}


const EMBEDDING_OFF = 'embedding is off (KCS_EMBEDDER=none)';
const elapsed = (started: number) => Math.round((performance.now() - started) * 100) / 100;
