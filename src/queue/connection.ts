// What every BullMQ queue of kcs shares: the connection settings and the key prefix.
import { Queue, type DefaultJobOptions } from 'bullmq';
import { Redis } from 'ioredis';

/** One hash tag for all queue keys, so BullMQ's multi-key scripts also work on a Redis Cluster. */
export const QUEUE_PREFIX = '{kcs:q}';

/** BullMQ connections must not give up on a command (its blocking reads rely on it). */
export function queueConnection(redisUrl: string): Redis {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null, connectionName: 'kcs-queue' });
  connection.on('error', () => undefined); // reconnects by itself; the app's own client reports outages
  return connection;
}

export function newQueue<T>(name: string, connection: Redis, defaultJobOptions: DefaultJobOptions): Queue<T> {
  return new Queue<T>(name, { connection, prefix: QUEUE_PREFIX, defaultJobOptions });
}
