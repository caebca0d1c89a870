// `kcs worker`: every BullMQ worker of the service in one process.
import type { Config } from '../src/config.js';
import type { Logger } from '../src/log.js';
import { queueConnection } from '../src/queue/maintenance.js';
import { connectRedis } from '../src/store/redis.js';
import { ProductRepository } from '../src/store/products.js';
import { maintenanceWorker } from './maintenance.js';

export interface RunningWorkers {
  close(): Promise<void>;
}

export async function startWorkers(config: Config, redisUrl: string, log: Logger): Promise<RunningWorkers> {
  const redis = connectRedis(redisUrl, { connectionName: 'kcs-worker' });
  await redis.connect();
  // BullMQ leaves a connection it was handed open on close: we own it and close it.
  const connection = queueConnection(redisUrl);
  const workers = [maintenanceWorker(connection, new ProductRepository(redis), config.workerConcurrency, log)];
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  log.info({ queues: workers.map((w) => w.name), concurrency: config.workerConcurrency }, 'workers started');
  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      connection.disconnect();
      redis.disconnect();
    },
  };
}
