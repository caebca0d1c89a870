// The `embed` BullMQ queue: a job per product or knowledge entry whose texts changed, or per
// BULK_JOB_DOCUMENTS products of a bulk import; deduplicated by document and text hash.
import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { RedisClient } from '../store/redis.js';
import type { EntryEmbeddingScheduler } from '../domain/knowledgeEntries.js';
import type { EmbeddingScheduler } from '../domain/products.js';
import { newQueue } from './connection.js';

export const EMBED_QUEUE = 'embed';

/**
 * A document to embed, and the hash of the texts to embed (a document whose texts changed since
 * gets a newer job); without one, whatever texts the document has when the job runs.
 */
export interface EmbedTarget {
  id: string;
  textHash?: string;
}

export interface EmbedJob {
  tenantId: string;
  /** Absent: products. */
  kind?: 'entry';
  /** A single write's document. */
  docs?: EmbedTarget[];
  /** A bulk import's products, up to BULK_JOB_DOCUMENTS: their texts when the job runs (ids alone keep the queue small). */
  ids?: string[];
  /** Set for products of a bulk import, whose progress counts embeddings. */
  ingestJobId?: string;
  /** Set for documents of a re-embed with this model (store/reembed.ts), whose progress counts them. */
  reembed?: string;
  /** One document, as jobs queued by earlier builds name it (read by embedTargets). */
  id?: string;
  textHash?: string;
  thash?: string;
}

export const EMBED_ATTEMPTS = 5;

/**
 * Products of a bulk import per embed job: one job (a few Redis calls to queue, take and finish)
 * for many products, so a large import's embeddings cost Redis little while it writes.
 */
export const BULK_JOB_DOCUMENTS = 128;

/** The documents a job embeds, whichever build queued it. */
export const embedTargets = (job: EmbedJob): EmbedTarget[] => [
  ...(job.docs ?? []),
  ...(job.ids ?? []).map((id) => ({ id })),
  ...(job.id ? [{ id: job.id, textHash: job.textHash ?? job.thash }] : []),
];

export class EmbedQueue implements EmbeddingScheduler, EntryEmbeddingScheduler {
  readonly initialStatus = 'pending' as const;
  private readonly queue: Queue<EmbedJob>;

  // Finished jobs are removed, failed ones too (the document's embedding_status records the
  // failure): a job id only dedupes pending work, so the same texts can be scheduled again later.
  constructor(connection: RedisClient) {
    this.queue = newQueue<EmbedJob>(EMBED_QUEUE, connection, { attempts: EMBED_ATTEMPTS, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: true });
  }

  /**
   * Products, and (with `entryId`) knowledge entries: both ports of the domain. A bulk import's
   * products go BULK_JOB_DOCUMENTS to a job; other writes one job per document.
   */
  async schedule(tenantId: string, items: (({ productId: string } | { entryId: string }) & { textHash: string })[], ingestJobId?: string): Promise<void> {
    const entry = items.length > 0 && 'entryId' in items[0];
    const name = entry ? 'entry' : 'product';
    const prefix = `${entry ? 'e' : 'p'}.${tenantId}`;
    const idOf = (item: (typeof items)[number]) => ('entryId' in item ? item.entryId : item.productId);
    const jobs = [];
    if (ingestJobId) {
      for (let i = 0; i < items.length; i += BULK_JOB_DOCUMENTS) {
        const ids = items.slice(i, i + BULK_JOB_DOCUMENTS).map(idOf);
        // The same products of the same import (a resumed import queues them again): one job.
        const key = createHash('sha256').update(`${ingestJobId} ${ids.join(',')}`).digest('hex').slice(0, 32);
        jobs.push({ name, data: { tenantId, ids, ingestJobId }, opts: { jobId: `${prefix}.${key}` } });
      }
    } else {
      for (const item of items) {
        // Same document and texts: one job, however often it is pushed.
        const doc = { id: idOf(item), textHash: item.textHash };
        jobs.push({ name, data: { tenantId, docs: [doc], ...(entry ? { kind: 'entry' as const } : {}) }, opts: { jobId: `${prefix}.${doc.id}.${doc.textHash.slice(0, 24)}` } });
      }
    }
    for (let i = 0; i < jobs.length; i += 1000) await this.queue.addBulk(jobs.slice(i, i + 1000));
  }

  /** A re-embed's documents (store/reembed.ts), BULK_JOB_DOCUMENTS to a job. */
  async scheduleReembed(tenantId: string, { kind, ids, model }: { kind: 'product' | 'entry'; ids: string[]; model: string }): Promise<void> {
    const jobs = [];
    for (let i = 0; i < ids.length; i += BULK_JOB_DOCUMENTS) {
      const batch = ids.slice(i, i + BULK_JOB_DOCUMENTS);
      const key = createHash('sha256').update(`${model} ${batch.join(',')}`).digest('hex').slice(0, 32);
      jobs.push({
        name: kind,
        data: { tenantId, ids: batch, reembed: model, ...(kind === 'entry' ? { kind: 'entry' as const } : {}) },
        opts: { jobId: `${kind === 'entry' ? 'e' : 'p'}.${tenantId}.r.${key}` },
      });
    }
    for (let i = 0; i < jobs.length; i += 1000) await this.queue.addBulk(jobs.slice(i, i + 1000));
  }

  /** Products skipped before, now served by the model (store/reembed.ts skippedServed), BULK_JOB_DOCUMENTS to a job: whatever texts they have when it runs. */
  async scheduleSkipped(tenantId: string, ids: string[]): Promise<void> {
    const jobs = [];
    for (let i = 0; i < ids.length; i += BULK_JOB_DOCUMENTS) {
      const batch = ids.slice(i, i + BULK_JOB_DOCUMENTS);
      const key = createHash('sha256').update(batch.join(',')).digest('hex').slice(0, 32);
      jobs.push({ name: 'product', data: { tenantId, ids: batch }, opts: { jobId: `p.${tenantId}.s.${key}` } });
    }
    for (let i = 0; i < jobs.length; i += 1000) await this.queue.addBulk(jobs.slice(i, i + 1000));
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

/** Embedding turned off: documents are stored with embedding_status "skipped". */
export const noEmbedding: EmbeddingScheduler = { initialStatus: 'skipped', schedule: async () => undefined };
export const noEntryEmbedding: EntryEmbeddingScheduler = { initialStatus: 'skipped', schedule: async () => undefined };
