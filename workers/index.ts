// `kcs worker`: every BullMQ worker of the service in one process.
import type { Worker } from 'bullmq';
import { createServices, openQueues, writeConfirmation } from '../src/app.js';
import type { Config } from '../src/config.js';
import { createEmbedder } from '../src/embed/index.js';
import type { Logger } from '../src/log.js';
import { queueConnection } from '../src/queue/connection.js';
import { ProductRepository } from '../src/store/products.js';
import { ProjectionBackfill } from '../src/store/projectionBackfill.js';
import { indexOptionsOf, resolveSearchEngine, searchWrites } from '../src/search/index.js';
import { connectRedis, type RedisAt } from '../src/store/redis.js';
import { VectorRepository } from '../src/store/vectors.js';
import { embedWorker } from './embed.js';
import { ingestWorker } from './ingest.js';
import { maintenanceWorker } from './maintenance.js';

/**
 * Node options for a `kcs worker` process: a 32 MiB young generation (twice V8's default). A bulk
 * import makes many short-lived objects per item (parsed input, document, script arguments); with
 * the default, scavenges took ~20% of the worker's time, and this flag saves ~15% of its CPU per
 * item (docs/BENCHMARKS.md). `kcs start` forks its workers with it; bin/kcs sets it for `worker`.
 */
export const WORKER_NODE_OPTIONS = ['--max-semi-space-size=32'];

export interface RunningWorkers {
  close(): Promise<void>;
}

export async function startWorkers(config: Config, redisAt: RedisAt, log: Logger): Promise<RunningWorkers> {
  const redis = connectRedis(redisAt, { connectionName: 'kcs-worker' });
  await redis.connect();
  // Ingest schedules embeddings: the worker process sends jobs as well as taking them.
  const queues = openQueues(redisAt, config);
  // Documents written here carry the projection of the engine that serves search on this server.
  const embedder = createEmbedder(config.embedding);
  const search = searchWrites(await resolveSearchEngine(redis, config.searchEngine), redis, indexOptionsOf(embedder));
  const { projection } = search;
  const services = createServices(redis, { queues, search });
  // BullMQ leaves a connection it was handed open on close: we own it and close it.
  const connection = queueConnection(redisAt);
  const wanted = new Set(config.workerQueues);
  const workers: Worker[] = [];
  if (wanted.has('maintenance')) {
    const backfill = projection ? new ProjectionBackfill(redis, projection) : null;
    workers.push(maintenanceWorker(connection, { products: new ProductRepository(redis, projection), backfill, concurrency: config.workerConcurrency, log }));
  }
  const writes = await writeConfirmation(config, redis, queues.connection, log);
  if (wanted.has('ingest')) {
    workers.push(ingestWorker(connection, {
      ingest: services.ingest, jobs: services.jobs, concurrency: config.workerConcurrency, log, lockMs: config.ingestLockMs,
      writes,
    }));
  }
  if (embedder && wanted.has('embed')) {
    workers.push(embedWorker(connection, embedder, new VectorRepository(redis), services.jobs, config.embedding.batchSize, log));
  }
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  log.info({ queues: workers.map((w) => w.name), embedder: wanted.has('embed') ? embedder?.modelId ?? 'none' : 'none' }, 'workers started');
  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await queues.close();
      writes?.close();
      connection.disconnect();
      redis.disconnect();
    },
  };
}
