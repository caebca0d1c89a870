// BullMQ entry point of the `maintenance` queue.
import { Worker, type Job } from 'bullmq';
import type { Logger } from '../src/log.js';
import type { Redis } from 'ioredis';
import { QUEUE_PREFIX } from '../src/queue/connection.js';
import { MAINTENANCE_QUEUE, type MaintenanceJob } from '../src/queue/maintenance.js';
import type { ProductRepository } from '../src/store/products.js';

export function maintenanceWorker(connection: Redis, products: ProductRepository, concurrency: number, log: Logger): Worker<MaintenanceJob> {
  const worker = new Worker<MaintenanceJob>(
    MAINTENANCE_QUEUE,
    async (job: Job<MaintenanceJob>) => {
      switch (job.data.kind) {
        case 'purge-site': {
          const purged = await products.purgeSite(job.data.tenantId, job.data.siteId);
          log.info({ job: job.id, tenant: job.data.tenantId, site: job.data.siteId, purged }, 'site purged');
          return { purged };
        }
      }
    },
    { connection, prefix: QUEUE_PREFIX, concurrency },
  );
  worker.on('failed', (job, error) => log.warn({ job: job?.id, err: error }, 'maintenance job failed'));
  return worker;
}
