// Vectors of products and knowledge entries: the texts to embed, the content-addressed cache,
// and the guarded store.
import { createHash } from 'node:crypto';
import { fromBytes, toBytes } from './vectorBytes.js';
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

/**
 * The hash field of one vector of a document: named by model, so that vectors of another model
 * (before a change of model is re-embedded) never stand in for this one's, and an index over the
 * documents (the Redis Query Engine's) reads only vectors of its own model and dimension.
 */
export const vectorField = (model: string, name: string): string => `v:${model}:${name}`;

const CACHE_TTL_SECONDS = 30 * 24 * 3600;
export const textKey = (text: string) => createHash('sha256').update(text).digest('hex');

export class VectorRepository {
  constructor(private readonly redis: Store) {}

  /** A knowledge entry's current texts (name → text or null) and their hash; null when it is gone. */
  async entryTexts(tenantId: string, id: string): Promise<{ texts: Record<string, string | null>; thash: string } | null> {
    const [texts, thash] = await this.redis.hmget(keys.entry(tenantId, id), 'texts', 'thash');
    return texts && thash ? { texts: JSON.parse(texts) as Record<string, string | null>, thash } : null;
  }

  /** What a product's texts are made of (the stored document and the texts given explicitly) and their hash; null when it is gone. */
  async productTextInputs(tenantId: string, id: string): Promise<{ doc: StoredProduct; sources: ProductTextSources; thash: string } | null> {
    const [doc, sources, thash] = await this.redis.hmget(keys.product(tenantId, id), 'doc', 'tsrc', 'thash');
    if (!doc || !thash) return null;
    return { doc: JSON.parse(doc) as StoredProduct, sources: sources ? (JSON.parse(sources) as ProductTextSources) : {}, thash };
  }

  // The cache's keys spread over a cluster's slots, so one command per key: auto-pipelining sends
  // those of one node in one round trip (an MGET or a pipeline may not cross slots).
  async cached(model: string, texts: string[]): Promise<(Float32Array | null)[]> {
    const values = await Promise.all(texts.map((t) => this.redis.getBuffer(embeddingCacheKey(model, textKey(t)))));
    return values.map((v) => (v ? fromBytes(v) : null));
  }

  async cache(model: string, entries: { text: string; vector: Float32Array }[]): Promise<void> {
    await Promise.all(entries.map(({ text, vector }) => this.redis.set(embeddingCacheKey(model, textKey(text)), toBytes(vector), 'EX', CACHE_TTL_SECONDS)));
  }

  /** Stores the vectors if the document's texts are still those they were computed for. */
  async store(tenantId: string, target: VectorTarget, thash: string, model: string, vectors: Record<string, Float32Array | null>): Promise<boolean> {
    const pairs = Object.entries(vectors).flatMap(([name, v]) => [vectorField(model, name), v ? toBytes(v) : '']);
    const key = docKey(tenantId, target);
    return (await this.redis.storeVectors(key, keys.changes(tenantId), thash, model, target.kind, target.id, CHANGE_STREAM_MAXLEN, ...pairs)) === VectorsResult.Stored;
  }

  /** Marks the embedding failed, unless newer texts are already on their way. */
  async markFailed(tenantId: string, target: VectorTarget, thash: string): Promise<void> {
    const key = docKey(tenantId, target);
    if ((await this.redis.hget(key, 'thash')) === thash) await this.redis.hset(key, 'estatus', 'failed');
  }
}
