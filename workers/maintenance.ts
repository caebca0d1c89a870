// BullMQ entry point of the `maintenance` queue.
import { Worker, type Job } from 'bullmq';
import type { Logger } from '../src/log.js';
import type { RedisClient } from '../src/store/redis.js';
import { QUEUE_PREFIX } from '../src/queue/connection.js';
import { MAINTENANCE_QUEUE, type MaintenanceJob } from '../src/queue/maintenance.js';
import type { ProductRepository } from '../src/store/products.js';
import type { ProjectionBackfill } from '../src/store/projectionBackfill.js';

export interface MaintenanceWorkerOptions {
  products: ProductRepository;
  /** Writes search projections; null where search needs none (the built-in engine). */
  backfill: ProjectionBackfill | null;
  concurrency: number;
  log: Logger;
}

export function maintenanceWorker(connection: RedisClient, { products, backfill, concurrency, log }: MaintenanceWorkerOptions): Worker<MaintenanceJob> {
  const worker = new Worker<MaintenanceJob>(
    MAINTENANCE_QUEUE,
    async (job: Job<MaintenanceJob>) => {
      switch (job.data.kind) {
        case 'purge-site': {
          const purged = await products.purgeSite(job.data.tenantId, job.data.siteId);
          log.info({ job: job.id, tenant: job.data.tenantId, site: job.data.siteId, purged }, 'site purged');
          return { purged };
        }
        case 'project-search': {
          if (!backfill) throw new Error('this worker writes no search projection (its search engine is not the Redis Query Engine)');
          if (await backfill.done(job.data.tenantId)) return { skipped: true };
          const projected = await backfill.run(job.data.tenantId);
          log.info({ job: job.id, tenant: job.data.tenantId, ...projected }, 'search projection written');
          return projected;
        }
      }
    },
    { connection, prefix: QUEUE_PREFIX, concurrency },
  );
  worker.on('failed', (job, error) => log.warn({ job: job?.id, err: error }, 'maintenance job failed'));
  return worker;
}
