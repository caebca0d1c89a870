// The `ingest` BullMQ queue: one job per accepted bulk request.
import type { Queue } from 'bullmq';
import type { RedisClient } from '../store/redis.js';
import { newQueue } from './connection.js';

export const INGEST_QUEUE = 'ingest';
/** The queue's payload: which accepted bulk job to run (the job itself, its items and its view live in store/jobs.ts). */
export interface IngestTask {
  tenantId: string;
  jobId: string;
}

export class IngestQueue {
  private readonly queue: Queue<IngestTask>;

  constructor(connection: RedisClient) {
    this.queue = newQueue<IngestTask>(INGEST_QUEUE, connection, { attempts: 10, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: 1000, removeOnFail: 5000 });
  }

  async add(tenantId: string, jobId: string): Promise<void> {
    await this.queue.add('bulk', { tenantId, jobId }, { jobId: `ingest.${tenantId}.${jobId}` });
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
