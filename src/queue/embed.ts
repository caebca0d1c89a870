// The `embed` BullMQ queue: one job per product whose texts changed, deduplicated by text hash.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { EmbeddingScheduler } from '../domain/products.js';
import { newQueue } from './connection.js';

export const EMBED_QUEUE = 'embed';

export interface EmbedJob {
  tenantId: string;
  productId: string;
  /** The text hash the job embeds; a product whose texts changed since gets a newer job. */
  thash: string;
  /** Set for products of a bulk import, whose progress counts embeddings. */
  ingestJobId?: string;
}

export const EMBED_ATTEMPTS = 5;

export class EmbedQueue implements EmbeddingScheduler {
  readonly initialStatus = 'pending' as const;
  private readonly queue: Queue<EmbedJob>;

  constructor(connection: Redis) {
    this.queue = newQueue<EmbedJob>(EMBED_QUEUE, connection, { attempts: EMBED_ATTEMPTS, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: 10_000 });
  }

  async schedule(tenantId: string, items: { productId: string; thash: string }[], ingestJobId?: string): Promise<void> {
    for (let i = 0; i < items.length; i += 1000) {
      await this.queue.addBulk(
        items.slice(i, i + 1000).map(({ productId, thash }) => ({
          name: 'product',
          data: { tenantId, productId, thash, ...(ingestJobId ? { ingestJobId } : {}) },
          // Same product and text: one job, however often it is pushed.
          opts: { jobId: `p.${tenantId}.${productId}.${thash.slice(0, 24)}` },
        })),
      );
    }
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

/** Embedding turned off: products are stored with embedding_status "skipped". */
export const noEmbedding: EmbeddingScheduler = { initialStatus: 'skipped', schedule: async () => undefined };
