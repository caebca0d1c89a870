// The `maintenance` BullMQ queue: background work that follows a write (e.g. purging a deleted site).
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';

export const MAINTENANCE_QUEUE = 'maintenance';
/** One hash tag for all queue keys, so BullMQ's multi-key scripts also work on a Redis Cluster. */
export const QUEUE_PREFIX = '{kcs:q}';

export type MaintenanceJob = { kind: 'purge-site'; tenantId: string; siteId: string };


/** BullMQ connections must not give up on a command (its blocking reads rely on it). */
export function queueConnection(redisUrl: string): Redis {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null, connectionName: 'kcs-queue' });
  connection.on('error', () => undefined); // reconnects by itself; the app's own client reports outages
  return connection;
}

export class MaintenanceQueue {
  private readonly queue: Queue<MaintenanceJob>;

  constructor(connection: Redis) {
    this.queue = new Queue<MaintenanceJob>(MAINTENANCE_QUEUE, {
      connection,
      prefix: QUEUE_PREFIX,
      defaultJobOptions: { attempts: 8, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: 1000, removeOnFail: 5000 },
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
