// Vectors of products and knowledge entries: the texts to embed, the content-addressed cache,
// and the guarded store.
import { createHash } from 'node:crypto';
import { float32Bytes, fromFloat32Bytes, toBytes } from './vectorBytes.js';
import { rateBuckets } from './embeddingProgress.js';
import { CHANGE_STREAM_MAXLEN, embeddingCacheKey, keys } from './keys.js';
import type { ProductTextSources, StoredProduct } from './products.js';
import type { Store } from './redis.js';
import { VectorsResult } from './scripts.js';

/** A document that carries vectors. */
export interface VectorTarget {
  kind: 'product' | 'entry';
  id: string;
}

const docKey = (tenantId: string, target: VectorTarget) =>
  target.kind === 'entry' ? keys.entry(tenantId, target.id) : keys.product(tenantId, target.id);

/** The hash a document's vectors are in: a product's vector hash, an entry's own. */
export const vectorsKey = (tenantId: string, target: VectorTarget): string =>
  target.kind === 'entry' ? keys.entry(tenantId, target.id) : keys.productVectors(tenantId, target.id);

/** Where a product's vector search filters come from on its first vectors (its search hash); an entry's hash holds them itself. */
const searchKey = (tenantId: string, target: VectorTarget): string =>
  target.kind === 'entry' ? keys.entry(tenantId, target.id) : keys.productSearch(tenantId, target.id);

/**
 * The hash field of one vector of a document (in the hash vectorsKey names): named by model, so that vectors of another model
 * (before a change of model is re-embedded) never stand in for this one's, and an index over the
 * documents (the Redis Query Engine's) reads only vectors of its own model and dimension.
 */
export const vectorField = (model: string, name: string): string => `v:${model}:${name}`;

/** The texts each kind of document is embedded from (see ProductTexts and EntryTexts): the vectors search ranks by. */
export const VECTOR_NAMES = {
  product: ['description', 'anchor'],
  entry: ['content', 'anchor'],
} as const;

const CACHE_TTL_SECONDS = 30 * 24 * 3600;
export const textKey = (text: string) => createHash('sha256').update(text).digest('hex');

/** Vectors computed by one model, by name (null: that text is empty), for the texts of one hash. */
export interface ComputedVectors {
  textHash: string;
  model: string;
  vectors: Record<string, Float32Array | null>;
}

export class VectorRepository {
  constructor(private readonly redis: Store) {}

  /** A knowledge entry's current texts (name → text or null) and their hash; null when it is gone. */
  async entryTexts(tenantId: string, id: string): Promise<{ texts: Record<string, string | null>; textHash: string } | null> {
    const [texts, textHash] = await this.redis.hmget(keys.entry(tenantId, id), 'texts', 'text_hash');
    return texts && textHash ? { texts: JSON.parse(texts) as Record<string, string | null>, textHash } : null;
  }

  /** What a product's texts are made of (the stored document and the texts given explicitly) and their hash; null when it is gone. */
  async productTextInputs(tenantId: string, id: string): Promise<{ doc: StoredProduct; sources: ProductTextSources; textHash: string } | null> {
    const [doc, sources, textHash] = await this.redis.hmget(keys.product(tenantId, id), 'doc', 'text_sources', 'text_hash');
    if (!doc || !textHash) return null;
    return { doc: JSON.parse(doc) as StoredProduct, sources: sources ? (JSON.parse(sources) as ProductTextSources) : {}, textHash };
  }

  // The cache holds float32, as the model answered; the documents' vectors are stored as FLOAT16 (vectorBytes.ts).
  // The cache's keys spread over a cluster's slots, so one command per key: auto-pipelining sends
  // those of one node in one round trip (an MGET or a pipeline may not cross slots).
  async cached(model: string, texts: string[]): Promise<(Float32Array | null)[]> {
    const values = await Promise.all(texts.map((t) => this.redis.getBuffer(embeddingCacheKey(model, textKey(t)))));
    return values.map((v) => (v ? fromFloat32Bytes(v) : null));
  }

  async cache(model: string, entries: { text: string; vector: Float32Array }[]): Promise<void> {
    await Promise.all(entries.map(({ text, vector }) => this.redis.set(embeddingCacheKey(model, textKey(text)), float32Bytes(vector), 'EX', CACHE_TTL_SECONDS)));
  }

  /** Stores the vectors if the document's texts are still those they were computed for. */
  async store(tenantId: string, target: VectorTarget, { textHash, model, vectors }: ComputedVectors): Promise<boolean> {
    const pairs = Object.entries(vectors).flatMap(([name, v]) => [vectorField(model, name), v ? toBytes(v) : '']);
    const { current, expired } = rateBuckets(Date.now());
    const stored = await this.redis.storeVectors(
      docKey(tenantId, target), keys.changes(tenantId), keys.embeddingCounts(tenantId), keys.embeddingRate(tenantId),
      keys.embeddingModel(tenantId), vectorsKey(tenantId, target), searchKey(tenantId, target), textHash, model, target.kind, target.id, CHANGE_STREAM_MAXLEN, current, expired, ...pairs,
    );
    return stored === VectorsResult.Stored;
  }

  /** Marks the embedding failed, unless newer texts are already on their way (`textHash` absent: whatever texts it has). */
  async markFailed(tenantId: string, target: VectorTarget, textHash?: string): Promise<void> {
    await this.redis.markEmbeddingFailed(docKey(tenantId, target), keys.embeddingCounts(tenantId), textHash ?? '', target.kind);
  }
}
