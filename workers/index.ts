// `kcs worker`: every BullMQ worker of the service in one process.
import type { Worker } from 'bullmq';
import { createServices, migrate, openQueues, writeConfirmation } from '../src/app.js';
import type { Config } from '../src/config.js';
import { createEmbedder } from '../src/embed/index.js';
import { lowerThisProcess } from '../src/embed/priority.js';
import type { Logger } from '../src/log.js';
import { queueConnection } from '../src/queue/connection.js';
import { IngestQueue } from '../src/queue/ingest.js';
import { ProductRepository } from '../src/store/productRepository.js';
import { ProjectionBackfill } from '../src/store/projectionBackfill.js';
import { indexOptionsOf, resolveSearchEngine, searchWrites } from '../src/search/index.js';
import { connectRedis, type RedisAt, type Store } from '../src/store/redis.js';
import { VectorRepository } from '../src/store/vectors.js';
import { keys } from '../src/store/keys.js';
import { EmbeddingModelRegistry } from '../src/store/embeddingModels.js';
import { ReembedRepository } from '../src/store/reembed.js';
import { EmbeddingProgressRepository } from '../src/store/embeddingProgress.js';
import { embedWorker } from './embed.js';
import { ingestWorker } from './ingest.js';
import { maintenanceWorker } from './maintenance.js';

/**
 * Node options for a `kcs worker` process: a 32 MiB young generation (twice V8's default). A bulk
 * import makes many short-lived objects per item (parsed input, document, script arguments); with
 * the default, scavenges took ~20% of the worker's time, and this flag saves ~15% of its CPU per
 * item (bench:ingest). `kcs start` forks its workers with it; bin/kcs sets it for `worker`.
 */
export const WORKER_NODE_OPTIONS = ['--max-semi-space-size=32'];

/** Redis connections of the ingest worker: one per concurrent import, up to this many. */
const MAX_INGEST_LANES = 8;

export interface RunningWorkers {
  close(): Promise<void>;
}

export async function startWorkers(config: Config, redisAt: RedisAt, log: Logger): Promise<RunningWorkers> {
  // A process that only embeds (`kcs start` runs one) steps back as a whole, its Redis calls and
  // job bookkeeping too, not only the model's threads.
  if (config.workerQueues.length === 1 && config.workerQueues[0] === 'embed') lowerThisProcess(config.embedding.nice, config.embedding.idle);
  // A process that imports gives way to the serve process: where they share cores, a search
  // during a bulk import otherwise waited behind the import's writes at each of its wake-ups.
  else if (config.workerQueues.includes('ingest') && !config.workerQueues.includes('embed')) lowerThisProcess(config.ingestNice, false);
  const redis = connectRedis(redisAt, { connectionName: 'kcs-worker' });
  await redis.connect();
  await migrate(redis, log);
  // Ingest schedules embeddings: the worker process sends jobs as well as taking them.
  const queues = openQueues(redisAt, config);
  // Documents written here carry the projection of the engine that serves search on this server.
  // The model runs on low-priority threads of this process (src/embed/threads.ts).
  const embedder = createEmbedder(config.embedding, { threaded: true });
  const search = searchWrites(await resolveSearchEngine(redis, config.searchEngine), redis, indexOptionsOf(embedder));
  const { projection } = search;
  const services = createServices(redis, { queues, search, model: embedder });
  // BullMQ leaves a connection it was handed open on close: we own it and close it.
  const connection = queueConnection(redisAt);
  const wanted = new Set(config.workerQueues);
  const workers: Worker[] = [];
  const reembed = new ReembedRepository(redis);
  if (wanted.has('maintenance')) {
    const backfill = projection ? new ProjectionBackfill(redis, projection) : null;
    workers.push(maintenanceWorker(connection, {
      products: new ProductRepository(redis, projection), backfill, search, concurrency: config.workerConcurrency, log,
      reembed: queues.embed ? { repo: reembed, queue: queues.embed, search } : null,
    }));
  }
  const writes = await writeConfirmation({ config, redis, queueConnection: queues.connection, log });
  const laneConnections: Store[] = [];
  if (wanted.has('ingest')) {
    for (let n = Math.min(config.workerConcurrency, MAX_INGEST_LANES); laneConnections.length < n; ) {
      const lane = connectRedis(redisAt, { connectionName: 'kcs-ingest' });
      laneConnections.push(lane);
      await lane.connect();
    }
    workers.push(ingestWorker(connection, {
      lanes: laneConnections.map((lane) => createServices(lane, { queues, search, model: embedder }).ingest), jobs: services.jobs, concurrency: config.workerConcurrency, log, lockMs: config.ingestLockMs,
      writes,
    }));
  }
  if (embedder && wanted.has('embed')) {
    // What builds this model again, for searches over its vectors once another one is configured.
    await new EmbeddingModelRegistry(redis).record({ modelId: embedder.modelId, spec: config.embedding, dimension: embedder.dimension, languages: embedder.languages });
    workers.push(embedWorker(connection, {
      embedder, vectors: new VectorRepository(redis), jobs: services.jobs, reembed, batchSize: config.embedding.batchSize, log, lockMs: config.embedLockMs,
      yieldTo: () => queues.ingest.busy(),
      watchStarts: (listener) => IngestQueue.watchStarts(redisAt, listener),
      reembedFinished: (tenantId, model) => queues.maintenance.scheduleVectorCleanup(tenantId, model, { delayMs: config.vectorCleanupDelayMs, once: false }),
    }));
    // A tenant whose documents have vectors of another model (or of none known yet) is embedded
    // again with this one, in the background (store/reembed.ts); one searched with it already keeps
    // only the vectors search reads (once per tenant and model: data of earlier builds). Products
    // skipped in a language this model serves (or written with embedding off) are embedded now.
    const progress = new EmbeddingProgressRepository(redis);
    const serves = (language: string) => language === '' || embedder.languages.includes(language);
    for (const tenantId of await redis.hvals(keys.tenantSlugs)) {
      if ((await reembed.activeModel(tenantId)) !== embedder.modelId) await queues.maintenance.scheduleReembed(tenantId, embedder.modelId, embedder.languages);
      else await queues.maintenance.scheduleVectorCleanup(tenantId, embedder.modelId, { delayMs: 0, once: true });
      if ([...(await progress.skippedProducts(tenantId)).keys()].some(serves)) await queues.maintenance.scheduleEmbedSkipped(tenantId, embedder.modelId, embedder.languages);
    }
  }
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  log.info({ queues: workers.map((w) => w.name), embedder: wanted.has('embed') ? embedder?.modelId ?? 'none' : 'none' }, 'workers started');
  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await embedder?.close?.();
      await queues.close();
      writes?.close();
      connection.disconnect();
      for (const lane of laneConnections) lane.disconnect();
      redis.disconnect();
    },
  };
}
