// A product's three forms: the input a client sends (ProductCreate), the document stored, and the
// view answered (the document with what is derived at read time).
import type { Static } from '@sinclair/typebox';
import { canonicalDecimal } from '../schemas/decimalString.js';
import type { Product, ProductCreate } from '../schemas/products.js';
import type { EmbeddingStatus } from '../schemas/common.js';
import { skippedLanguageOf, type StoredEmbeddingStatus } from '../store/docs.js';
import type { AnswerText, ProductRecord, StoredProduct } from '../store/products.js';

export type ProductInput = Static<typeof ProductCreate>;
export type ProductView = Static<typeof Product>;

/** Fields a matching sync_hash still updates: they change without the source data's hash changing. */
export const VOLATILE = [
  'price_current', 'price_msrp', 'price_special', 'price_on_request', 'currency', 'availability',
  'rating_average', 'rating_count', 'image_url', 'additional_images', 'product_url',
] as const;

const decimal = (value: string | number | null | undefined) => (value === null || value === undefined ? null : canonicalDecimal(value));

/** The stored product an input describes (identity and timestamps come from `base`). */
export function buildDoc(input: ProductInput, base: Pick<StoredProduct, 'id' | 'tenant_id' | 'site_id' | 'translation_group_id' | 'created_at' | 'updated_at'>, source: string): StoredProduct {
  return {
    id: base.id,
    tenant_id: base.tenant_id,
    site_id: base.site_id,
    // An empty external_id is no upsert key: stored (and answered) as null.
    external_id: input.external_id || null,
    title: input.title,
    description: input.description ?? null,
    short_description: input.short_description ?? null,
    sku: input.sku ?? null,
    gtin: input.gtin ?? null,
    brand: input.brand ?? null,
    category: input.category ?? null,
    attributes: input.attributes ?? {},
    properties: input.properties ?? {},
    price_current: decimal(input.price_current),
    price_msrp: decimal(input.price_msrp),
    price_special: decimal(input.price_special),
    price_on_request: input.price_on_request ?? false,
    currency: input.currency ?? 'EUR',
    image_url: input.image_url ?? null,
    product_url: input.product_url ?? null,
    availability: input.availability ?? null,
    additional_images: input.additional_images ?? [],
    rating_average: decimal(input.rating_average),
    rating_count: input.rating_count ?? 0,
    language: input.language,
    translation_group_id: base.translation_group_id,
    is_variant: input.is_variant ?? false,
    is_parent: input.is_parent ?? false,
    search_keywords: input.search_keywords ?? [],
    has_similarity_anchor: Boolean(input.similarity_text?.trim()),
    source,
    sync_hash: input.sync_hash ?? null,
    created_at: base.created_at,
    updated_at: base.updated_at,
  };
}

/** The embedding status answered for a stored one: a product skipped for its language is `skipped`, and the reason says why. */
export function answeredStatus(stored: StoredEmbeddingStatus): Pick<ProductView, 'embedding_status' | 'embedding_skipped_reason'> {
  if (skippedLanguageOf(stored) !== null) return { embedding_status: 'skipped', embedding_skipped_reason: 'language_not_served' };
  return { embedding_status: stored as EmbeddingStatus, embedding_skipped_reason: stored === 'skipped' ? 'embedding_off' : null };
}

/** The view answered for a stored product. */
export function toView(record: ProductRecord, parentId: string | null): ProductView {
  const doc = record.doc;
  return {
    ...doc,
    parent_product_id: parentId === doc.id ? null : parentId,
    last_synced_at: record.synced,
    ...answeredStatus(record.embeddingStatus),
  };
}

/**
 * toView as JSON text: the stored document's text as it is, with the fields derived at read time
 * appended (JSON.stringify(toView(…)) gives the same object): an answer of many products passes
 * them on without parsing and writing each again.
 */
export function viewText(text: AnswerText, parentId: string | null): string {
  const status = answeredStatus(text.embeddingStatus);
  return `${text.json.slice(0, -1)},"parent_product_id":${JSON.stringify(parentId)},"last_synced_at":${JSON.stringify(text.synced)},` +
    `"embedding_status":${JSON.stringify(status.embedding_status)},"embedding_skipped_reason":${JSON.stringify(status.embedding_skipped_reason)}}`;
}
