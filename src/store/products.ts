// A stored product and what its writes carry: the types shared by the product repository
// (store/productRepository.ts), the product rules (domain/products.ts) and the search engines.
import type { Static } from '@sinclair/typebox';
import type { Product } from '../schemas/products.js';
import type { AuditActor } from './audit.js';
import type { StoredEmbeddingStatus } from './docs.js';
import type { ProductSearchFields } from './searchFields.js';

export type { Settled, WriteOutcome } from './productAnswers.js';

/**
 * A product's stored fields: the response less what is derived at read time (the parent's id from
 * its external_id, the last sync time, the embedding status: each kept beside the document).
 */
export type StoredProduct = Omit<Static<typeof Product>, 'parent_product_id' | 'last_synced_at' | 'embedding_status' | 'embedding_skipped_reason'>;

/**
 * The embedding texts a client gave explicitly (embedding_text_description, similarity_text as
 * the anchor): stored with the product; a text not given is generated from the stored document.
 */
export interface ProductTextSources {
  description?: string;
  anchor?: string;
}

/** The texts a product is embedded from (the vectors search ranks by); anchor is null without a similarity_text. */
export interface ProductTexts {
  description: string;
  anchor: string | null;
}

/** What an upsert needs of the stored product. */
export interface ProductRecord {
  doc: StoredProduct;
  rev: string;
  parentExternalId: string | null;
  textHash: string;
  synced: string | null;
  embeddingStatus: StoredEmbeddingStatus;
}

/** A product record with its document as stored (JSON text). */
export interface ProductText extends Omit<ProductRecord, 'doc'> {
  json: string;
}

/** What an answer shows of a stored product: its document as stored (JSON text) and what is derived at read time. */
export type AnswerText = Pick<ProductText, 'json' | 'parentExternalId' | 'embeddingStatus' | 'synced'>;

export interface ProductWrite {
  doc: StoredProduct;
  parentExternalId: string | null;
  /** null: the texts did not change; their hash and sources are left as stored. */
  textSources: ProductTextSources | null;
  textHash: string;
  embeddingStatus: StoredEmbeddingStatus;
  /** null: create. */
  previous: ProductRecord | null;
  /** A bulk item: its job and index, so the result is counted once whatever the retries. */
  jobItem?: JobItem;
  /** Digest of the bulk item written (see settleMany); null for other writes, which clear it. */
  itemDigest?: string | null;
  /** Who made a single write: its audit event is written with it. Bulk items have none (their job is audited). */
  audit?: AuditActor;
}

export interface JobItem {
  jobId: string;
  index: number;
}

/** A sync that changed nothing, recorded only while the product's revision still is `expectedRev`. */
export interface ProductTouch {
  id: string;
  expectedRev: string;
  /** The digest of the bulk item to remember, so that the same item sent again is settled by its digest alone. */
  itemDigest?: string | null;
  jobItem?: JobItem;
}

/** The bulk items of one job and site that settleMany may settle. */
export interface ItemSettlement {
  siteId: string;
  jobId: string;
  synced: string;
  /** Distinct external_ids: a later item must not be settled against a state an earlier one is about to change. */
  items: { externalId: string; itemDigest: string; index: number }[];
}


export type TouchOutcome = 'touched' | 'differs' | 'done';

/** What a product write needs of the search projection: the search fields written with the document. */
export interface ProductProjection {
  product(doc: StoredProduct, parentExternalId: string | null): ProductSearchFields;
}

export interface ProductFilter {
  siteId?: string;
  language?: string;
  category?: string;
}
