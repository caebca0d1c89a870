// The `ingest` BullMQ queue: one job per accepted bulk request.
import { QueueEvents, type Queue } from 'bullmq';
import type { RedisAt, RedisClient } from '../store/redis.js';
import { newQueue, QUEUE_PREFIX, queueConnection } from './connection.js';

export const INGEST_QUEUE = 'ingest';
/** Runs of a bulk job that may fail before it is failed for good; also how often it may be found stalled (a worker killed under it). */
export const INGEST_ATTEMPTS = 10;
/** The queue's payload: which accepted bulk job to run (the job itself, its items and its view live in store/jobs.ts). */
export interface IngestTask {
  tenantId: string;
  jobId: string;
}

export class IngestQueue {
  private readonly queue: Queue<IngestTask>;

  constructor(connection: RedisClient) {
    this.queue = newQueue<IngestTask>(INGEST_QUEUE, connection, { attempts: INGEST_ATTEMPTS, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: 1000, removeOnFail: 5000 });
  }

  async add(tenantId: string, jobId: string): Promise<void> {
    await this.queue.add('bulk', { tenantId, jobId }, { jobId: `ingest.${tenantId}.${jobId}` });
  }

  /** True while an import is queued or running. */
  async busy(): Promise<boolean> {
    const counts = await this.queue.getJobCounts('active', 'wait', 'prioritized');
    return Object.values(counts).some((n) => n > 0);
  }

  /**
   * Calls `listener` the moment an import is queued or taken (the queue's event stream, read on a
   * connection of its own), sooner than a poll of busy() would see it; the returned function stops.
   */
  static watchStarts(at: RedisAt, listener: () => void): () => Promise<void> {
    const connection = queueConnection(at);
    const events = new QueueEvents(INGEST_QUEUE, { connection, prefix: QUEUE_PREFIX });
    events.on('error', () => undefined); // reconnects by itself; busy() still answers
    events.on('waiting', listener);
    events.on('active', listener);
    return async () => {
      await events.close();
      connection.disconnect();
    };
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
