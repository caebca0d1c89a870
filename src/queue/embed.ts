// The `embed` BullMQ queue: one job per product or knowledge entry whose texts changed,
// deduplicated by text hash.
import type { Queue } from 'bullmq';
import type { RedisClient } from '../store/redis.js';
import type { EntryEmbeddingScheduler } from '../domain/knowledge.js';
import type { EmbeddingScheduler } from '../domain/products.js';
import { newQueue } from './connection.js';

export const EMBED_QUEUE = 'embed';

export interface EmbedJob {
  tenantId: string;
  /** Absent: a product. */
  kind?: 'entry';
  /** The product's or entry's id. */
  id: string;
  /** The text hash the job embeds; a document whose texts changed since gets a newer job. */
  thash: string;
  /** Set for products of a bulk import, whose progress counts embeddings. */
  ingestJobId?: string;
}

export const EMBED_ATTEMPTS = 5;

export class EmbedQueue implements EmbeddingScheduler, EntryEmbeddingScheduler {
  readonly initialStatus = 'pending' as const;
  private readonly queue: Queue<EmbedJob>;

  // Finished jobs are removed, failed ones too (the document's embedding_status records the
  // failure): a job id only dedupes pending work, so the same text can be scheduled again later.
  constructor(connection: RedisClient) {
    this.queue = newQueue<EmbedJob>(EMBED_QUEUE, connection, { attempts: EMBED_ATTEMPTS, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: true });
  }

  /** Products, and (with `entryId`) knowledge entries: both ports of the domain. */
  async schedule(tenantId: string, items: (({ productId: string } | { entryId: string }) & { thash: string })[], ingestJobId?: string): Promise<void> {
    for (let i = 0; i < items.length; i += 1000) {
      await this.queue.addBulk(
        items.slice(i, i + 1000).map((item) => {
          const entry = 'entryId' in item;
          const id = 'entryId' in item ? item.entryId : item.productId;
          return {
            name: entry ? 'entry' : 'product',
            data: { tenantId, id, thash: item.thash, ...(entry ? { kind: 'entry' as const } : {}), ...(ingestJobId ? { ingestJobId } : {}) },
            // Same document and text: one job, however often it is pushed.
            opts: { jobId: `${entry ? 'e' : 'p'}.${tenantId}.${id}.${item.thash.slice(0, 24)}` },
          };
        }),
      );
    }
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

/** Embedding turned off: documents are stored with embedding_status "skipped". */
export const noEmbedding: EmbeddingScheduler = { initialStatus: 'skipped', schedule: async () => undefined };
export const noEntryEmbedding: EntryEmbeddingScheduler = { initialStatus: 'skipped', schedule: async () => undefined };
