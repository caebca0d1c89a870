// Vectors of products: the texts to embed, the content-addressed cache, and the guarded store.
import { createHash } from 'node:crypto';
import { fromBytes, toBytes } from '../embed/embedder.js';
import { embeddingCacheKey, keys } from './keys.js';
import type { Store } from './redis.js';
import type { ProductTexts } from './products.js';

const CACHE_TTL_SECONDS = 30 * 24 * 3600;
export const textKey = (text: string) => createHash('sha256').update(text).digest('hex');

export class VectorRepository {
  constructor(private readonly redis: Store) {}

  /** The product's current texts and their hash; null when it is gone. */
  async productTexts(tenantId: string, productId: string): Promise<{ texts: ProductTexts; thash: string } | null> {
    const [texts, thash] = await this.redis.hmget(keys.product(tenantId, productId), 'texts', 'thash');
    return texts && thash ? { texts: JSON.parse(texts) as ProductTexts, thash } : null;
  }

  async cached(model: string, texts: string[]): Promise<(Float32Array | null)[]> {
    if (texts.length === 0) return [];
    const values = await this.redis.mgetBuffer(...texts.map((t) => embeddingCacheKey(model, textKey(t))));
    return values.map((v) => (v ? fromBytes(v) : null));
  }

  async cache(model: string, entries: { text: string; vector: Float32Array }[]): Promise<void> {
    if (entries.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const { text, vector } of entries) pipeline.set(embeddingCacheKey(model, textKey(text)), toBytes(vector), 'EX', CACHE_TTL_SECONDS);
    await pipeline.exec();
  }

  /** Stores the vectors if the product's texts are still those they were computed for. */
  async store(tenantId: string, productId: string, thash: string, model: string, vectors: Record<string, Float32Array | null>): Promise<boolean> {
    const pairs = Object.entries(vectors).flatMap(([name, v]) => [`v:${name}`, v ? toBytes(v) : '']);
    return (await this.redis.storeVectors(keys.product(tenantId, productId), thash, model, ...pairs)) === 1;
  }

  /** Marks the embedding failed, unless newer texts are already on their way. */
  async markFailed(tenantId: string, productId: string, thash: string): Promise<void> {
    const key = keys.product(tenantId, productId);
    if ((await this.redis.hget(key, 'thash')) === thash) await this.redis.hset(key, 'estatus', 'failed');
  }
}
