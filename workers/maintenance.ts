// BullMQ entry point of the `maintenance` queue.
import { Worker, type Job } from 'bullmq';
import type { Logger } from '../src/log.js';
import type { RedisClient } from '../src/store/redis.js';
import { QUEUE_PREFIX, stallSettings } from '../src/queue/connection.js';
import { MAINTENANCE_ATTEMPTS, MAINTENANCE_QUEUE, type MaintenanceJob } from '../src/queue/maintenance.js';
import type { ProductRepository } from '../src/store/productRepository.js';
import type { ProjectionBackfill } from '../src/store/projectionBackfill.js';
import type { EmbedQueue } from '../src/queue/embed.js';
import type { ReembedRepository } from '../src/store/reembed.js';
import type { SearchWrites } from '../src/search/index.js';

export interface MaintenanceWorkerOptions {
  products: ProductRepository;
  /** Re-embeds (null where this process embeds nothing), and what search prepares for one. */
  reembed: { repo: ReembedRepository; queue: EmbedQueue; search: SearchWrites } | null;
  /** Writes search projections; null where search needs none (the built-in engine). */
  backfill: ProjectionBackfill | null;
  search: SearchWrites;
  concurrency: number;
  log: Logger;
}

export function maintenanceWorker(connection: RedisClient, { products, backfill, search, reembed, concurrency, log }: MaintenanceWorkerOptions): Worker<MaintenanceJob> {
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
          const dropped = await search.projected(job.data.tenantId);
          log.info({ job: job.id, tenant: job.data.tenantId, ...projected, dropped }, 'search projection written');
          return projected;
        }
        case 'reembed': {
          if (!reembed) throw new Error('this worker embeds nothing');
          const { tenantId, model } = job.data;
          if ((await reembed.repo.activeModel(tenantId)) === model) return { skipped: true };
          await reembed.search.reembedStarts(tenantId);
          const stale = await reembed.repo.stale(tenantId, model, job.data.languages ?? null);
          // No vectors for what nothing would read: a product in a language the new model does not serve.
          const unserved = await reembed.repo.markUnserved(tenantId, stale.unserved);
          await reembed.repo.start(tenantId, model, stale);
          await reembed.queue.scheduleReembed(tenantId, { kind: 'product', ids: stale.products, model });
          await reembed.queue.scheduleReembed(tenantId, { kind: 'entry', ids: stale.entries, model });
          log.info({ job: job.id, tenant: tenantId, model, products: stale.products.length, entries: stale.entries.length, unserved }, 're-embedding with another model');
          return { products: stale.products.length, entries: stale.entries.length, unserved };
        }
        case 'embed-skipped': {
          if (!reembed) throw new Error('this worker embeds nothing');
          const { tenantId, model, languages } = job.data;
          const skipped = await reembed.repo.skippedServed(tenantId, languages);
          // Queued first: a worker killed before the mark leaves them skipped, and embedded all the same.
          await reembed.queue.scheduleSkipped(tenantId, skipped.map((p) => p.id));
          const pending = await reembed.repo.markPending(tenantId, skipped);
          log.info({ job: job.id, tenant: tenantId, model, products: skipped.length, pending }, 'embedding products skipped before, in a language the model serves');
          return { products: skipped.length };
        }
        case 'drop-stale-vectors': {
          if (!reembed) throw new Error('this worker embeds nothing');
          const { tenantId, model } = job.data;
          const documents = await reembed.repo.dropStaleVectors(tenantId, model);
          // Not now: another model is the tenant's, or a re-embed runs (its end schedules this again).
          if (documents === null) return { skipped: true };
          // A re-embed that started since builds its model's index: that one stays.
          const running = await reembed.repo.progress(tenantId);
          const indexes = await reembed.search.dropOtherModelIndexes(tenantId, running ? [model, running.model] : [model]);
          log.info({ job: job.id, tenant: tenantId, model, documents, indexes }, 'vectors of other models dropped');
          return { documents, indexes };
        }
      }
    },
    // A purge or re-embed of a killed worker runs again (each kind of job is safe to run twice).
    { connection, prefix: QUEUE_PREFIX, concurrency, ...stallSettings(30_000, MAINTENANCE_ATTEMPTS) },
  );
  worker.on('failed', (job, error) => log.warn({ job: job?.id, err: error }, 'maintenance job failed'));
  return worker;
}
