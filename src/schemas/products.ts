import { Type } from '@sinclair/typebox';
import { DECIMAL_PATTERN } from './decimalString.js';
import { DateTime, EMBEDDING_SKIP_REASONS, EMBEDDING_STATUSES, MAX_INT, Nullable, Pagination, StringEnum, Uuid } from './common.js';
import { Decimal, type DecimalOptions } from './decimal.js';
import { EmbeddingRate } from './embedding.js';

/** A price or rating: a JSON number or a decimal string (spec pattern), or null. */
const NullableDecimal = (options: DecimalOptions = {}) => Nullable(Decimal(options));

const FreeObject = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });
const OptionalNullableString = (options: { maxLength?: number; description?: string } = {}) =>
  Type.Optional(Nullable(Type.String(options)));

export const ProductCreate = Type.Object(
  {
    external_id: OptionalNullableString({ maxLength: 200, description: 'The upsert key within a site' }),
    title: Type.String({ minLength: 1 }),
    description: OptionalNullableString(),
    short_description: OptionalNullableString(),
    sku: OptionalNullableString({ maxLength: 100 }),
    gtin: OptionalNullableString({ maxLength: 50, description: 'GTIN/EAN barcode' }),
    brand: OptionalNullableString({ maxLength: 200 }),
    category: OptionalNullableString(),
    attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { default: {} })),
    properties: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { default: {} })),
    price_current: Type.Optional(NullableDecimal()),
    price_msrp: Type.Optional(NullableDecimal()),
    price_special: Type.Optional(NullableDecimal()),
    price_on_request: Type.Optional(Type.Boolean({ default: false })),
    currency: Type.Optional(Type.String({ maxLength: 3, default: 'EUR' })),
    image_url: OptionalNullableString(),
    additional_images: Type.Optional(Type.Array(Type.String(), { default: [] })),
    product_url: OptionalNullableString(),
    availability: OptionalNullableString({ maxLength: 50 }),
    rating_average: Type.Optional(NullableDecimal({ minimum: 0, maximum: 5 })),
    rating_count: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_INT, default: 0 })),
    language: Type.String({ minLength: 2, maxLength: 5 }),
    parent_external_id: OptionalNullableString({ description: 'external_id of the parent product (for variants)' }),
    is_variant: Type.Optional(Type.Boolean({ default: false })),
    is_parent: Type.Optional(Type.Boolean({ default: false })),
    similarity_text: OptionalNullableString({ description: 'Anchor text for the find-related path' }),
    search_keywords: Type.Optional(Type.Array(Type.String(), { default: [] })),
    embedding_text_description: OptionalNullableString(),
    embedding_text_properties: OptionalNullableString(),
    embedding_text_attributes: OptionalNullableString(),
    sync_hash: OptionalNullableString({ maxLength: 64 }),
  },
  { $id: 'ProductCreate' },
);

const DecimalOut = Nullable(Type.String({ pattern: DECIMAL_PATTERN }));

export const Product = Type.Object(
  {
    id: Uuid(),
    tenant_id: Uuid(),
    site_id: Uuid(),
    external_id: Nullable(Type.String()),
    title: Type.String(),
    description: Nullable(Type.String()),
    short_description: Nullable(Type.String()),
    sku: Nullable(Type.String()),
    gtin: Nullable(Type.String()),
    brand: Nullable(Type.String()),
    category: Nullable(Type.String()),
    attributes: FreeObject('Free-form attributes'),
    properties: FreeObject('Free-form properties'),
    price_current: DecimalOut,
    price_msrp: DecimalOut,
    price_special: DecimalOut,
    price_on_request: Type.Boolean(),
    currency: Type.String(),
    image_url: Nullable(Type.String()),
    product_url: Nullable(Type.String()),
    availability: Nullable(Type.String()),
    additional_images: Type.Array(Type.String()),
    rating_average: DecimalOut,
    rating_count: Type.Integer(),
    language: Type.String(),
    translation_group_id: Nullable(Uuid()),
    parent_product_id: Nullable(Uuid()),
    is_variant: Type.Boolean(),
    is_parent: Type.Boolean(),
    search_keywords: Type.Array(Type.String()),
    has_similarity_anchor: Type.Boolean(),
    source: Type.String(),
    sync_hash: Nullable(Type.String()),
    last_synced_at: Nullable(DateTime()),
    created_at: DateTime(),
    updated_at: DateTime(),
    embedding_status: StringEnum(EMBEDDING_STATUSES),
    embedding_skipped_reason: Nullable(StringEnum(EMBEDDING_SKIP_REASONS, {
      description: 'Why a skipped product has no vectors: embedding_off (written with KCS_EMBEDDER=none), or language_not_served ' +
        '(the embedding model does not serve its language; it is embedded once a model that does is configured); null unless skipped',
    })),
  },
  { $id: 'Product' },
);

/**
 * What a search-only caller (scope `search` without `catalog:read`: a storefront key, public by
 * design) sees of a product: what a shop page shows. Left out: the connector's sync bookkeeping
 * (external_id, sync_hash, source, last_synced_at), kcs's own (tenant_id, translation_group_id,
 * has_similarity_anchor, embedding_status, embedding_skipped_reason, created_at, updated_at) and search_keywords, the
 * merchandiser's synonyms. A new Product field stays out until it is listed here.
 */
export const STOREFRONT_PRODUCT_FIELDS = [
  'id', 'site_id', 'title', 'description', 'short_description', 'sku', 'gtin', 'brand', 'category', 'attributes', 'properties',
  'price_current', 'price_msrp', 'price_special', 'price_on_request', 'currency', 'image_url', 'product_url', 'availability',
  'additional_images', 'rating_average', 'rating_count', 'language', 'parent_product_id', 'is_variant', 'is_parent',
] as const satisfies readonly (keyof typeof Product.properties)[];

export const StorefrontProduct = Type.Pick(Product, STOREFRONT_PRODUCT_FIELDS, { $id: 'StorefrontProduct' });

export const SiteQuery = Type.Object({ site_id: Type.String({ minLength: 1, maxLength: 100, description: 'Site UUID or slug' }) });

export const ProductListQuery = Type.Object({
  site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Site UUID or slug' })),
  language: Type.Optional(Type.String({ minLength: 2, maxLength: 5 })),
  category: Type.Optional(Type.String()),
  limit: Type.Optional(Pagination.limit),
  offset: Type.Optional(Pagination.offset),
});

export const ProductIdParams = Type.Object({ product_id: Uuid() });

export const ProductDeleteQuery = Type.Object({
  site_id: Type.String({ minLength: 1, maxLength: 100, description: 'Site UUID or slug' }),
  external_id: Type.String({ minLength: 1, maxLength: 200 }),
});

export const BulkAccepted = Type.Object(
  {
    job_id: Uuid(),
    accepted: Type.Integer(),
    rejected: Type.Integer(),
    errors: Type.Array(Type.Object({ index: Type.Integer(), detail: Type.Array(Type.Unknown()) })),
  },
  { $id: 'BulkAccepted' },
);

export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;

export const IngestJob = Type.Object(
  {
    id: Uuid(),
    status: StringEnum(JOB_STATUSES),
    total: Type.Integer(),
    counts: Type.Object({
      created: Type.Integer(), updated: Type.Integer(), unchanged: Type.Integer(), failed: Type.Integer(), rejected: Type.Integer(),
    }),
    errors: Type.Array(Type.Object({ index: Type.Integer(), detail: Type.Unknown() })),
    embedding: Type.Object({ pending: Type.Integer(), done: Type.Integer(), failed: Type.Integer(), ...EmbeddingRate }),
    created_at: DateTime(),
    finished_at: Nullable(DateTime()),
  },
  { $id: 'IngestJob' },
);

export const JobSummary = Type.Omit(IngestJob, ['errors'], { $id: 'JobSummary' });
export const JobListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

export const JobIdParams = Type.Object({ job_id: Uuid() });
export const JobWaitQuery = Type.Object({
  wait: Type.Optional(Type.Boolean({ default: false, description: 'Answer once the items are stored (up to 60 s)' })),
});

