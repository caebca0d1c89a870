// BullMQ entry point of the `ingest` queue: writes the accepted items of a bulk request.
import { Worker, type Job } from 'bullmq';
import type { RedisClient } from '../src/store/redis.js';
import type { IngestService } from '../src/domain/ingest.js';
import type { WriteConfirmation } from '../src/domain/writeConfirmation.js';
import type { Logger } from '../src/log.js';
import { INGEST_ATTEMPTS, INGEST_QUEUE, type IngestTask } from '../src/queue/ingest.js';
import { failedForGood, QUEUE_PREFIX, stallSettings } from '../src/queue/connection.js';
import type { JobRepository } from '../src/store/jobs.js';

export interface IngestWorkerOptions {
  /**
   * The import service on each of the worker's Redis connections; each job runs on the one with
   * the fewest jobs. On a single shared connection a job's small reads queued behind another job's
   * large write pipeline, and the worker and Redis took turns instead of working at once.
   */
  lanes: IngestService[];
  jobs: JobRepository;
  concurrency: number;
  log: Logger;
  /**
   * The job's lock, renewed every lockMs/2 while it runs. When the worker dies the lock expires and
   * a stalled check (every lockMs/2, at most BullMQ's default 30 s) of a live worker hands the job
   * to another: it resumes with the items not yet stored.
   */
  lockMs?: number;
  /** Replicas confirm the import's writes before BullMQ records the job done (a cluster's default). */
  writes?: WriteConfirmation | null;
}

export function ingestWorker(connection: RedisClient, options: IngestWorkerOptions): Worker<IngestTask> {
  const { lanes, jobs, concurrency, log, lockMs = 60_000, writes } = options;
  const running = lanes.map(() => 0);
  const worker = new Worker<IngestTask>(
    INGEST_QUEUE,
    async (job: Job<IngestTask>) => {
      const started = performance.now();
      const lane = running.indexOf(Math.min(...running));
      running[lane]++;
      try {
        await lanes[lane].run(job.data.tenantId, job.data.jobId);
      } finally {
        running[lane]--;
      }
      // Else a master lost after the job is marked completed (on the queues' master) could take
      // the job's last writes with it (on the tenant's master), and nothing would redo them.
      await writes?.confirm(job.data.tenantId);
      log.info({ job: job.data.jobId, tenant: job.data.tenantId, ms: Math.round(performance.now() - started) }, 'bulk import stored');
    },
    // A long import must not be taken for stalled while it runs; it renews its lock meanwhile. A
    // job found stalled resumes where it stopped (before, one killed twice stayed `running`).
    { connection, prefix: QUEUE_PREFIX, concurrency, ...stallSettings(lockMs, INGEST_ATTEMPTS) },
  );
  worker.on('failed', (job, error) => {
    if (!job) return;
    log.warn({ job: job.data.jobId, attempt: job.attemptsMade, err: error.message }, 'bulk import failed');
    if (failedForGood(job, error)) void jobs.setStatus(job.data.tenantId, job.data.jobId, 'failed');
  });
  return worker;
}
