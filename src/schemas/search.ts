// Wire contract of search (DESIGN §6): product and knowledge search, related documents.
import { Type, type TSchema } from '@sinclair/typebox';
import { Nullable, StringEnum, Uuid } from './common.js';
import { ENTRY_TYPES, Entry, VISIBILITIES } from './knowledgeEntries.js';
import { Product, StorefrontProduct } from './products.js';

export const SEARCH_MODES = ['hybrid', 'keyword', 'semantic'] as const;
/** Facets a product search can count, beyond category levels and attributes.<name> of the tenant's facet_attributes. */
export const PRODUCT_FACETS = ['brand', 'category', 'availability'] as const;
/** Numeric fields answered as min, max and average (facets_stats) when asked among the facets. */
export const STAT_FIELDS = ['price_current', 'rating_average'] as const;
/** Category levels counted (category.lvl0 … category.lvl3). */
export const CATEGORY_LEVELS = 4;
export const SORT_FIELDS = ['price_current', 'rating_average', 'created_at', 'updated_at', 'title'] as const;
export const MAX_FACETS = 10;

const Values = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50, description });

const paging = {
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 20, description: 'Hits per page (0: only the total, facets and stats)' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 0, description: 'Hits to skip (offset + limit ≤ 1100)' })),
};
const common = {
  query: Type.Optional(Type.String({ maxLength: 500, default: '', description: 'Search text; empty browses the filtered documents, newest first' })),
  mode: Type.Optional(StringEnum(SEARCH_MODES, { default: 'hybrid' })),
  min_similarity: Type.Optional(Type.Number({
    minimum: 0, maximum: 1,
    description: 'Semantic candidates below this cosine similarity are unrelated and left out (default: the embedding model\'s floor)',
  })),
  ...paging,
};

export const ProductSearchFilters = Type.Object({
  brand: Type.Optional(Values('Any of these brands (case-insensitive)')),
  availability: Type.Optional(Values('Any of these availability values (case-insensitive)')),
  price_min: Type.Optional(Type.Number({ minimum: 0, description: 'price_current ≥ this' })),
  price_max: Type.Optional(Type.Number({ minimum: 0, description: 'price_current ≤ this' })),
  rating_min: Type.Optional(Type.Number({ minimum: 0, description: 'rating_average ≥ this' })),
  rating_max: Type.Optional(Type.Number({ minimum: 0, description: 'rating_average ≤ this' })),
  category_path: Type.Optional(Type.String({
    minLength: 1, maxLength: 500, description: 'The category is this path or below it ("Herren > Jacken" also matches "Herren > Jacken > Regenjacken"; case-insensitive)',
  })),
  in_stock: Type.Optional(Type.Boolean({ description: 'Availability means in stock (InStock, available, lieferbar, ...) or not' })),
  attributes: Type.Optional(
    Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.Union([Type.String({ maxLength: 500 }), Values('Any of these values')]), {
      description: 'Attribute name → value or values (any of them; case-insensitive)',
    }),
  ),
}, { additionalProperties: false });

const Direction = StringEnum(['asc', 'desc'] as const);
/** One sort key: an object with exactly one of the fields. */
const SortEntry = Type.Object(
  {
    ...Object.fromEntries(SORT_FIELDS.map((f) => [f, Type.Optional(Direction)])),
    relevance: Type.Optional(StringEnum(['desc'] as const)),
  },
  { minProperties: 1, maxProperties: 1, additionalProperties: false, description: `{<field>: "asc" | "desc"} with field one of ${SORT_FIELDS.join(', ')}, or {relevance: "desc"}` },
);

export const ProductSearchRequest = Type.Object(
  {
    ...common,
    site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Site UUID or slug' })),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 5 })),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    filters: Type.Optional(ProductSearchFilters),
    facets: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 120 }), {
      maxItems: MAX_FACETS, default: [],
      description: `Facets to return: value counts of ${PRODUCT_FACETS.join(', ')}, category.lvl0 … category.lvl${CATEGORY_LEVELS - 1} (the levels of a category path ` +
        `"A > B > C"), attributes.<name> for the names in the tenant's facet_attributes; ${STAT_FIELDS.join(' and ')} answer facets_stats (min, max, avg)`,
    })),
    sort: Type.Optional(Type.Array(SortEntry, {
      maxItems: 3, default: [],
      description: 'Order of the hits within each tier (every word, enough words, semantic only): fields in turn, then relevance; products without the field last',
    })),
    highlight: Type.Optional(Type.Boolean({ default: false, description: 'Each hit carries highlight: title, brand, description with the matched words marked, a snippet, the matched words' })),
    highlight_pre_tag: Type.Optional(Type.String({ maxLength: 50, default: '<mark>' })),
    highlight_post_tag: Type.Optional(Type.String({ maxLength: 50, default: '</mark>' })),
    snippet_words: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Words in a highlight snippet' })),
    understand: Type.Optional(Type.Boolean({
      description: 'Read price phrases of the query ("unter 100 €", "bis 50 euro", "under $80", "50-100€", "günstiger als 30") as a price filter, ' +
        'searching the rest of the query (listed in understood); default: the tenant setting understand_queries',
    })),
    analytics: Type.Optional(Type.Boolean({
      default: true, description: 'Count this search in the search analytics (a limit 0, facet-only search never is); false: not counted, query_id null',
    })),
    user_token: Type.Optional(Type.String({
      minLength: 1, maxLength: 129, pattern: '^[A-Za-z0-9_=/+.:-]+$',
      description: 'An opaque id of the shopper (e.g. InstantSearch\'s userToken), never stored in clear: a shopper counts once a day toward a ' +
        'query\'s suggestion by key and address or by this token',
    })),
  },
  { $id: 'ProductSearchRequest', additionalProperties: false },
);

/** Facet value search: the product search body, one facet and the typed prefix. */
export const FacetValuesRequest = Type.Object(
  {
    ...Type.Omit(ProductSearchRequest, ['facets', 'sort', 'highlight', 'snippet_words', 'limit', 'offset', 'analytics', 'user_token']).properties,
    facet: Type.String({ minLength: 1, maxLength: 120, description: 'A value facet the product search can count' }),
    facet_query: Type.Optional(Type.String({ maxLength: 100, default: '', description: 'Prefix of the values (or of a word in them), case and diacritics ignored' })),
    max_values: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
  },
  { $id: 'FacetValuesRequest', additionalProperties: false },
);

export const KnowledgeSearchRequest = Type.Object(
  {
    ...common,
    type: Type.Optional(StringEnum(ENTRY_TYPES)),
    category_id: Type.Optional(Uuid()),
    project_id: Type.Optional(Uuid()),
    visibility: Type.Optional(StringEnum(VISIBILITIES)),
    layer: Type.Optional(Type.String({ maxLength: 50 })),
    tags: Type.Optional(Values('Entries carrying any of these tags')),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 5 })),
    include_expired: Type.Optional(Type.Boolean({ default: false })),
  },
  { $id: 'KnowledgeSearchRequest', additionalProperties: false },
);

const Ranks = Type.Object({
  keyword: Nullable(Type.Integer({ description: '1-based rank in the keyword list' })),
  semantic: Nullable(Type.Integer({ description: '1-based rank in the semantic list' })),
});
const FacetsExhaustive = Type.Boolean({
  description: 'Product searches: false when the search matched more products than facets are counted exactly over (10,000 unless configured): ' +
    'the counts are then taken over the first of them and scaled to all the matches',
});
const FacetCounts = Type.Array(Type.Object({ value: Type.String(), count: Type.Integer() }));
const Stats = Type.Object({ min: Nullable(Type.Number()), max: Nullable(Type.Number()), avg: Nullable(Type.Number()), count: Type.Integer() });
const FacetsStats = Type.Object(Object.fromEntries(STAT_FIELDS.map((f) => [f, Type.Optional(Stats)])), {
  description: 'Per numeric field asked among the facets: min, max, average over the matches that have it, and how many have it',
});
const Highlight = Type.Object({
  title: Nullable(Type.String()), brand: Nullable(Type.String()), description: Nullable(Type.String()), snippet: Nullable(Type.String()),
  matched_words: Type.Array(Type.String()),
}, { description: 'HTML-escaped, the words that matched wrapped in the highlight tags' });

const SynonymsApplied = Type.Array(
  Type.Object({ id: Type.String(), matched: Type.String({ description: 'The query words that equal an entry of the set' }), alternatives: Type.Array(Type.String()) }),
  { description: 'Product searches (always, [] when none): the synonym sets the query used, and the entries its words also stood for' },
);

const AppliedRules = Type.Array(
  Type.Object({
    id: Type.String(),
    pinned: Type.Array(Uuid(), { description: 'The products it pinned' }),
    hidden: Type.Integer({ description: 'How many products it hides' }),
    filtered: Type.Boolean({ description: 'Whether it added filters' }),
  }),
  { description: 'Product searches (always, [] when none): the search rules that applied to the query' },
);

const Understood = Type.Array(
  Type.Object({
    words: Type.String({ description: 'The words of the query, as typed, that were read as a filter (not searched as text)' }),
    filter: Type.Object({ price_min: Type.Optional(Type.Number()), price_max: Type.Optional(Type.Number()) }, { description: 'The filter they stand for, as in filters' }),
  }),
  { description: 'Product searches (always, [] when none): the phrases of the query read as filters (understand); the search ran on the rest of the query' },
);

const resultOf = <K extends string, T extends TSchema>({ name, key, doc, $id }: { name: string; key: K; doc: T; $id: string }) =>
  Type.Object(
    {
      // The document under its own name (`product`, `entry`): typed as that key, not as any string.
      hits: Type.Array(Type.Object({
        id: Uuid(), score: Type.Number(), ranks: Ranks, ...({ [key]: doc } as Record<K, T>),
        ...(key === 'product' ? { highlight: Type.Optional(Highlight), pinned: Type.Optional(Type.Boolean({ description: 'Placed by a search rule (score 0)' })) } : {}),
      })),
      total: Type.Integer({ description: 'Matching documents: every keyword match plus the semantic candidates' }),
      facets: Type.Record(Type.String(), FacetCounts, { description: 'Per asked value facet, under its name as asked' }),
      ...(key === 'product' ? {
        facets_exhaustive: Type.Optional(FacetsExhaustive), facets_stats: Type.Optional(FacetsStats), synonyms_applied: Type.Optional(SynonymsApplied),
        applied_rules: Type.Optional(AppliedRules), understood: Type.Optional(Understood),
        query_id: Type.Optional(Nullable(Type.String({ description: 'Product searches: names this search in click and conversion events (POST /search/events, 24 hours); null when not counted' }))),
      } : {}),
      mode: StringEnum(SEARCH_MODES, { description: 'The mode that ran (hybrid falls back to keyword when semantic cannot run)' }),
      semantic_fallback: Nullable(Type.String({ description: `Why semantic ranking did not run for this ${name} search, if it did not` })),
      engine: Type.String({ description: 'builtin or redis-query-engine' }),
      took_ms: Type.Number(),
    },
    { $id },
  );

export const ProductSearchResult = resultOf({ name: 'product', key: 'product', doc: Product, $id: 'ProductSearchResult' });
/** The answer of product search and related products for a search-only caller. */
export const StorefrontSearchResult = resultOf({ name: 'product', key: 'product', doc: StorefrontProduct, $id: 'StorefrontSearchResult' });
export const KnowledgeSearchResult = resultOf({ name: 'knowledge', key: 'entry', doc: Entry, $id: 'KnowledgeSearchResult' });

export const FacetValuesResult = Type.Object(
  {
    facet: Type.String(),
    values: Type.Array(Type.Object({ value: Type.String(), count: Type.Integer(), highlighted: Type.String({ description: 'The value, escaped, with the typed prefix marked' }) })),
    facets_exhaustive: FacetsExhaustive,
  },
  { $id: 'FacetValuesResult' },
);

export const RelatedQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 0 })),
});
export const RelatedEntriesQuery = Type.Object({ ...RelatedQuery.properties, include_expired: Type.Optional(Type.Boolean({ default: false })) });
