// What every BullMQ queue of kcs shares: the connection settings and the key prefix.
import { Queue, type DefaultJobOptions, type Job } from 'bullmq';
import { openClient, type RedisAt, type RedisClient } from '../store/redis.js';

/** One hash tag for all queue keys, so BullMQ's multi-key scripts also work on a Redis Cluster. */
export const QUEUE_PREFIX = '{kcs:q}';

/** BullMQ workers' connections must not give up on a command (their blocking reads rely on it). */
export function queueConnection(at: RedisAt): RedisClient {
  const connection = openClient(at, { maxRetriesPerRequest: null, connectionName: 'kcs-queue' });
  connection.on('error', () => undefined); // reconnects by itself; the app's own client reports outages
  return connection;
}

/**
 * The connection that adds jobs: like the app's client (store/redis.ts) it fails at once while
 * Redis is unreachable, so a request that schedules work answers 503 instead of waiting for Redis.
 */
export function producerConnection(at: RedisAt): RedisClient {
  const connection = openClient(at, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectionName: 'kcs-producer' });
  connection.on('error', () => undefined);
  return connection;
}

/**
 * A worker's lock and stall settings: the lock of each job it runs (renewed while it lives), a
 * check for the jobs of dead workers every half lock (at most BullMQ's 30 s), and how often a job
 * may be found stalled before BullMQ fails it: as often as it may fail. BullMQ's default, once,
 * failed a job whose worker was killed twice, with attempts left (see failedForGood).
 */
export const stallSettings = (lockMs: number, attempts: number) => ({
  lockDuration: lockMs, stalledInterval: Math.min(30_000, Math.ceil(lockMs / 2)), maxStalledCount: attempts,
});

/**
 * True when BullMQ will not run a failed job again: its attempts are spent, or it failed for good
 * (an UnrecoverableError, which is also how BullMQ fails a job found stalled more often than its
 * worker's maxStalledCount allows). A job failed that way has attempts left and would otherwise
 * look like one that is retried.
 */
export const failedForGood = (job: Job, error: Error): boolean => error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);

export function newQueue<T>(name: string, connection: RedisClient, defaultJobOptions: DefaultJobOptions): Queue<T> {
  const queue = new Queue<T>(name, { connection, prefix: QUEUE_PREFIX, defaultJobOptions });
  // Without a listener BullMQ prints each connection error to stderr; a failed add reaches its caller.
  queue.on('error', () => undefined);
  return queue;
}
