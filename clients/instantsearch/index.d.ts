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
  /** brand, category, availability, or `*`. */
  facets?: string | readonly string[];
  /** `brand:Acme`, `availability:InStock`, `category:Tools`, `in_stock:true`, `attributes.<name>:<value>`. */
  facetFilters?: FilterList;
  /** On the price: `price>=10`, `price<=100`, `price>10`, `price=5`, `price:10 TO 100`. */
  numericFilters?: FilterList;
  highlightPreTag?: string;
  highlightPostTag?: string;
  /** searchForFacetValues: the facet, the text typed, and how many values to return. */
  facetName?: string;
  facetQuery?: string;
  maxFacetHits?: number;
  [parameter: string]: unknown;
}

export interface SearchRequest {
  /** A kcs site: its slug or id (empty: every site). */
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

/** A kcs product (every field the key may see) with Algolia's objectID and highlight. */
export interface Hit {
  objectID: string;
  id: string;
  title: string;
  brand: string | null;
  [field: string]: unknown;
  _highlightResult: { title?: HighlightResult; brand?: HighlightResult };
}

export interface SearchResult {
  hits: Hit[];
  nbHits: number;
  page: number;
  nbPages: number;
  hitsPerPage: number;
  /** Facet → value → count. */
  facets: Record<string, Record<string, number>>;
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
  search(requests: readonly SearchRequest[]): Promise<{ results: Array<SearchResult | SearchForFacetValuesResult> }>;
  searchForFacetValues(requests: readonly SearchRequest[]): Promise<SearchForFacetValuesResult[]>;
  clearCache(): Promise<void>;
}

/** What a failed search rejects with: kcs's `detail` as the message (422 items as `loc: msg`), and the HTTP status. */
export interface KcsSearchError extends Error {
  name: 'KcsSearchError';
  status: number;
  detail: unknown;
}

export function createSearchClient(options: KcsSearchClientOptions): KcsSearchClient;

/** Algolia's highlight of one value for a query (exported for templates that highlight other fields). */
export function highlight(value: string, query: string, preTag?: string, postTag?: string): HighlightResult;
