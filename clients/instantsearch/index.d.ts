// Typings of the kcs InstantSearch adapter (index.js).

export interface KcsSearchClientOptions {
  /** The tenant's base URL, e.g. `https://acme.api.example.com` or `http://demo.localhost:8080`. */
  baseUrl: string;
  /** A kcs API key; in a browser, a search key (scope `search`) listing the page's origin in allowed_origins. */
  apiKey: string;
  /** kcs search mode; default: the service's (hybrid). */
  mode?: 'hybrid' | 'keyword' | 'semantic';
  /** The query's language (2–5 letters); default: the site's. */
  language?: string;
  /** A fetch to use instead of the global one. */
  fetch?: (input: string, init: { method: string; headers: Record<string, string>; body: string }) => Promise<{
    ok: boolean;
    status: number;
    statusText: string;
    text(): Promise<string>;
  }>;
}

/** One filter, a group of alternatives (OR), or a list of those (AND), as Algolia takes them. */
export type FilterList = string | ReadonlyArray<string | readonly string[]>;

export interface SearchParams {
  query?: string;
  /** 0-based. */
  page?: number;
  /** 0–100 (kcs's limit). */
  hitsPerPage?: number;
  /**
   * Value facets: brand, category, availability, `category.lvl0` … `category.lvl3`, `attributes.<name>`
   * (a name in the tenant's `facet_attributes`), or `*` (the first three); numeric facets
   * `price_current` (or `price`) and `rating_average`, answered in `facets_stats`. At most 10.
   */
  facets?: string | readonly string[];
  /**
   * `brand:Acme`, `availability:InStock`, `category:Tools`, `in_stock:true`, `attributes.<name>:<value>`,
   * `category.lvl1:Herren > Jacken` (the category is that path or below it).
   */
  facetFilters?: FilterList;
  /** On `price_current` (or `price`) and `rating_average`: `>=`, `<=`, `>`, `<`, `=`, `price_current:10 TO 100`. */
  numericFilters?: FilterList;
  /** The tags kcs marks matched words with (≤ 50 characters each); default `<em>`, `</em>`. */
  highlightPreTag?: string;
  highlightPostTag?: string;
  /** `[]`: no highlight asked of kcs. */
  attributesToHighlight?: readonly string[];
  /** `['description:30']`: the words of the description's snippet (kcs `snippet_words`, 1–100; default 20). */
  attributesToSnippet?: string | readonly string[];
  /** searchForFacetValues: the facet, the text typed, and how many values to return. */
  facetName?: string;
  facetQuery?: string;
  maxFacetHits?: number;
  /** The shopper's token (where InstantSearch's insights set one): kcs's `user_token`, so the shopper counts once toward a query's suggestion. */
  userToken?: string;
  [parameter: string]: unknown;
}

export interface SearchRequest {
  /**
   * A kcs site: its slug or id (empty: every site), optionally sorted, as typesense-instantsearch-adapter
   * names replica indexes: `shop-de/sort/price_current:asc`, `shop-de/sort/rating_average:desc,price_current:asc`
   * (fields price_current, rating_average, created_at, updated_at, title; `_text_match:desc` for relevance; ≤ 3).
   */
  indexName: string;
  params?: SearchParams | string;
  /** `facet`: a search for facet values in `facet` (algoliasearch v5 style). */
  type?: 'default' | 'facet';
  facet?: string;
}

export interface HighlightResult {
  value: string;
  matchLevel: 'none' | 'partial' | 'full';
  matchedWords: string[];
  fullyHighlighted: boolean;
}

export interface SnippetResult {
  value: string;
  matchLevel: 'none' | 'partial' | 'full';
}

/** A kcs product (every field the key may see) with Algolia's objectID, highlight and snippet. */
export interface Hit {
  objectID: string;
  id: string;
  title: string;
  brand: string | null;
  [field: string]: unknown;
  /** From kcs's `highlight` (the words kcs matched: stems, compound parts, typo variants, prefixes), values unescaped. */
  _highlightResult: { title?: HighlightResult; brand?: HighlightResult; description?: HighlightResult };
  /** kcs's snippet of the description: about `snippet_words` words around the best passage, `…` where cut. */
  _snippetResult: { description?: SnippetResult };
}

/** Algolia's statistics of a numeric facet (kcs `facets_stats`); absent where no match has the field. */
export interface FacetStats {
  min: number;
  max: number;
  avg: number;
  sum?: number;
}

export interface SearchResult {
  hits: Hit[];
  nbHits: number;
  page: number;
  nbPages: number;
  hitsPerPage: number;
  /** Facet → value → count (`{}` for a numeric facet: its figures are in facets_stats). */
  facets: Record<string, Record<string, number>>;
  /** Per numeric facet asked (price_current, rating_average). */
  facets_stats?: Record<string, FacetStats>;
  exhaustiveNbHits: boolean;
  exhaustiveFacetsCount: boolean;
  exhaustive: { nbHits: boolean; facetsCount: boolean };
  processingTimeMS: number;
  query: string;
  params: string;
  index: string;
}

export interface FacetHit {
  value: string;
  highlighted: string;
  count: number;
}

export interface SearchForFacetValuesResult {
  facetHits: FacetHit[];
  exhaustiveFacetsCount: boolean;
  processingTimeMS: number;
}

export interface KcsSearchClient {
  /**
   * One kcs search per request: a lone one by POST /search/products, a batch by POST /search/multi
   * (10 a call), `type: 'facet'` requests by POST /search/facet-values; any failing search rejects the call.
   */
  search(requests: readonly SearchRequest[]): Promise<{ results: Array<SearchResult | SearchForFacetValuesResult> }>;
  /** POST /search/facet-values for each: the values of a value facet matching `facetQuery` as a prefix. */
  searchForFacetValues(requests: readonly SearchRequest[]): Promise<SearchForFacetValuesResult[]>;
  clearCache(): Promise<void>;
  /**
   * search-insights' `aa(method, payload)` for InstantSearch's insights option:
   * `clickedObjectIDsAfterSearch` and `convertedObjectIDsAfterSearch` become kcs click and conversion
   * events for the result's `queryID` (kcs's `query_id`); other methods do nothing.
   */
  insightsClient(method: string, payload?: { queryID?: string; objectIDs?: string[]; positions?: number[] }): Promise<unknown>;
  /** POST /api/knowledge/search/events; a failed send is retried once with the same event ids (counted once). */
  sendEvents(events: KcsSearchEvent[]): Promise<{ accepted: number; duplicates: number }>;
}

/** A click or conversion on a hit of the search `query_id` names (its answer's `query_id`, InstantSearch's `queryID`). */
export interface KcsSearchEvent {
  event_id: string;
  type: 'click' | 'conversion';
  query_id: string;
  product_id: string;
  /** 1-based position of the hit in the whole list; required for clicks. */
  position?: number;
}

/** What a failed search rejects with: kcs's `detail` as the message (422 items as `loc: msg`), and the HTTP status. */
export interface KcsSearchError extends Error {
  name: 'KcsSearchError';
  status: number;
  detail: unknown;
}

export function createSearchClient(options: KcsSearchClientOptions): KcsSearchClient;

/**
 * Algolia's highlight of one value for a query, in the browser: words beginning with a query word
 * (the adapter's fallback where kcs's answer has no highlight; exported for templates that highlight other fields).
 */
export function highlight(value: string, query: string, preTag?: string, postTag?: string): HighlightResult;

/** The site and the kcs sort an index name stands for (`shop-de/sort/price_current:asc`). */
export function parseIndexName(indexName: string): {
  site: string;
  sort: Array<Partial<Record<'price_current' | 'rating_average' | 'created_at' | 'updated_at' | 'title', 'asc' | 'desc'>> | { relevance: 'desc' }>;
};
