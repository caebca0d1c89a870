// The `maintenance` BullMQ queue: background work that follows a write (e.g. purging a deleted site).
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { newQueue } from './connection.js';

export const MAINTENANCE_QUEUE = 'maintenance';

export type MaintenanceJob = { kind: 'purge-site'; tenantId: string; siteId: string };

export class MaintenanceQueue {
  private readonly queue: Queue<MaintenanceJob>;

  constructor(connection: Redis) {
    this.queue = newQueue<MaintenanceJob>(MAINTENANCE_QUEUE, connection, {
      attempts: 8, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: 1000, removeOnFail: 5000,
    });
  }

  /** Idempotent: one purge job per site, whatever the number of calls. */
  async schedulePurge(tenantId: string, siteId: string): Promise<void> {
    await this.queue.add('purge-site', { kind: 'purge-site', tenantId, siteId }, { jobId: `purge-site.${tenantId}.${siteId}` });
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
