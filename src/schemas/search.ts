// Wire contract of search (DESIGN §6): product and knowledge search, related documents.
import { Type, type TSchema } from '@sinclair/typebox';
import { Nullable, StringEnum, Uuid } from './common.js';
import { ENTRY_TYPES, Entry, VISIBILITIES } from './knowledgeEntries.js';
import { Product, StorefrontProduct } from './products.js';

export const SEARCH_MODES = ['hybrid', 'keyword', 'semantic'] as const;
/** The facets a product search can count. */
export const PRODUCT_FACETS = ['brand', 'category', 'availability'] as const;

const Values = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50, description });

const paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Hits per page' })),
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
  in_stock: Type.Optional(Type.Boolean({ description: 'Availability means in stock (InStock, available, lieferbar, ...) or not' })),
  attributes: Type.Optional(
    Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.Union([Type.String({ maxLength: 500 }), Values('Any of these values')]), {
      description: 'Attribute name → value or values (any of them; case-insensitive)',
    }),
  ),
});

export const ProductSearchRequest = Type.Object(
  {
    ...common,
    site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Site UUID or slug' })),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 5 })),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    filters: Type.Optional(ProductSearchFilters),
    facets: Type.Optional(Type.Array(StringEnum(PRODUCT_FACETS), { maxItems: 3, default: [], description: 'Facet counts to return' })),
  },
  { $id: 'ProductSearchRequest' },
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
  { $id: 'KnowledgeSearchRequest' },
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

const resultOf = <K extends string, T extends TSchema>({ name, key, doc, $id }: { name: string; key: K; doc: T; $id: string }) =>
  Type.Object(
    {
      // The document under its own name (`product`, `entry`): typed as that key, not as any string.
      hits: Type.Array(Type.Object({ id: Uuid(), score: Type.Number(), ranks: Ranks, ...({ [key]: doc } as Record<K, T>) })),
      total: Type.Integer({ description: 'Matching documents: every keyword match plus the semantic candidates' }),
      facets: Type.Object({ brand: Type.Optional(FacetCounts), category: Type.Optional(FacetCounts), availability: Type.Optional(FacetCounts) }),
      ...(key === 'product' ? { facets_exhaustive: Type.Optional(FacetsExhaustive) } : {}),
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

export const RelatedQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 0 })),
});
export const RelatedEntriesQuery = Type.Object({ ...RelatedQuery.properties, include_expired: Type.Optional(Type.Boolean({ default: false })) });
