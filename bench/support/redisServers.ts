// The benchmarks' Redis servers: a private plain redis-server or a private 6-node Redis Cluster, a
// server given by URL that may hold other data (the Query Engine's: only a benchmark's own tenant
// is touched there, and dropped at the end), and what each server is.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import calculateSlot from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import { startEmbeddedRedis } from '../../src/store/embeddedRedis.js';
import { keys } from '../../src/store/keys.js';
import { connectRedis, type RedisAt, type RedisClient, type Store } from '../../src/store/redis.js';
import { startRedisCluster } from '../../test/helpers/redisCluster.js';
import type { Undo } from './harness.js';

export interface PrivateRedis {
  /** Where it is: the plain server's URL, or the cluster's nodes. */
  at: RedisAt;
  store: Store;
  /** The redis-server process holding a key: the plain server, or the master of the key's slot now. */
  pidOf(key: string): Promise<number | undefined>;
  /** Every redis-server process by name (the CPU figures of a whole run). */
  pids: Record<string, number | undefined>;
  /** What it is, for a report. */
  name: string;
  /** Stops it before the end (when a benchmark moves on to another Redis). */
  stop(): Promise<void>;
}

/** BENCH_CLUSTER=1: the benchmark's private Redis is a 6-node cluster instead of one server. */
export const CLUSTER = process.env.BENCH_CLUSTER === '1';

/**
 * A private Redis from the redis-server on PATH, with a connection, all undone at the end: a plain
 * server without persistence, or with `cluster` a 6-node Redis Cluster (3 masters, one replica
 * each; test/helpers/redisCluster.ts).
 */
export async function openPrivateRedis(undo: Undo, name: string, { cluster = false } = {}): Promise<PrivateRedis> {
  let parts: Omit<PrivateRedis, 'store'>;
  if (cluster) {
    const nodes = await startRedisCluster();
    undo(() => nodes.stop());
    parts = {
      at: nodes.target,
      pidOf: async (key) => (await nodes.masterOf(calculateSlot(key))).process.pid,
      pids: Object.fromEntries(nodes.nodes.map((n, i) => [`redis-${i}`, n.process.pid])),
      name: '3-master Redis Cluster (one replica each)',
      stop: () => nodes.stop(),
    };
  } else {
    const dir = mkdtempSync(join(tmpdir(), `kcs-bench-${name}-`));
    undo(() => rmSync(dir, { recursive: true, force: true }));
    const redis = await startEmbeddedRedis(dir, { persist: false });
    undo(() => redis.stop());
    parts = { at: redis.url, pidOf: async () => redis.pid, pids: { 'redis-server': redis.pid }, name: 'one redis-server', stop: () => redis.stop() };
  }
  const store = connectRedis(parts.at, { maxRetriesPerRequest: 1 });
  store.on('error', () => undefined); // a failed command rejects; the event alone is noise on the way out
  await store.connect();
  undo(() => void store.disconnect());
  return {
    ...parts,
    store,
    stop: async () => {
      store.disconnect();
      await parts.stop();
    },
  };
}

/**
 * The server with the search module a benchmark's Query Engine column runs on: BENCH_REDIS_URL, or
 * a private one started from BENCH_QE_REDIS_SERVER and BENCH_QE_MODULE; null (no such column) without.
 */
export async function queryEngineServer(undo: Undo): Promise<string | null> {
  const { BENCH_REDIS_URL: url, BENCH_QE_REDIS_SERVER: server, BENCH_QE_MODULE: module } = process.env;
  if (url || !server || !module) return url || null;
  const dir = mkdtempSync(join(tmpdir(), 'kcs-bench-qe-'));
  undo(() => rmSync(dir, { recursive: true, force: true }));
  const redis = await startEmbeddedRedis(dir, { persist: false, server, module });
  undo(() => redis.stop());
  return redis.url;
}

/** Removes a tenant from a shared server: its search indexes with their documents, its other keys, its slug. The keys removed. */
export async function dropTenant(store: Store, slug: string): Promise<number> {
  const tenantId = await store.hget(keys.tenantSlugs, slug);
  if (!tenantId) return 0;
  const indexPrefix = keys.searchIndex(tenantId, '');
  for (const index of (await store.call('FT._LIST').catch(() => [])) as string[]) {
    if (String(index).startsWith(indexPrefix)) await store.call('FT.DROPINDEX', index, 'DD');
  }
  let removed = 0;
  let cursor = '0';
  do {
    const [next, found] = await store.scan(cursor, 'MATCH', `kcs:{t:${tenantId}}*`, 'COUNT', 1000);
    if (found.length > 0) removed += await store.unlink(...found);
    cursor = next;
  } while (cursor !== '0');
  await store.hdel(keys.tenantSlugs, slug);
  return removed;
}

const infoField = (info: string, name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();

/** The server, or every master of a cluster (each holds its own share of the data). */
const masters = (store: Store): RedisClient[] => (store instanceof Cluster ? store.nodes('master') : [store]);

/** The sum of INFO fields over the server or a cluster's masters. */
async function infoSum(store: Store, section: string, fields: string[]): Promise<number> {
  const infos = await Promise.all(masters(store).map((node) => node.info(section)));
  return infos.reduce((sum, info) => fields.reduce((s, field) => s + Number(infoField(info, field)), sum), 0);
}

/** used_memory of the server; of a cluster, summed over its masters (their replicas hold copies). */
export const usedMemory = (store: Store) => infoSum(store, 'memory', ['used_memory']);

/** The server's own CPU seconds with its children's (a fork's: the search module's garbage collection), INFO cpu, a cluster's masters summed. */
export const serverCpuSeconds = (store: Store) => infoSum(store, 'cpu', ['used_cpu_user', 'used_cpu_sys', 'used_cpu_user_children', 'used_cpu_sys_children']);

/** "Redis 7.4.1" or "Redis Cluster, 3 masters, redis-server 7.0.15", with its search module when loaded ("…, RediSearch 2.10.32"). */
export async function describeServer(store: Store): Promise<string> {
  const nodes = masters(store);
  const version = infoField(await nodes[0].info('server'), 'redis_version') ?? '?';
  // MODULE LIST: per module a flat list of name/value pairs; the version is one number, 21032 for 2.10.32.
  const search = ((await nodes[0].call('MODULE', 'LIST')) as unknown[][]).find((m) => m[m.indexOf('name') + 1] === 'search');
  const ver = Number(search?.[search.indexOf('ver') + 1]);
  const module = search ? `, RediSearch ${Math.floor(ver / 10000)}.${Math.floor(ver / 100) % 100}.${ver % 100}` : '';
  return `${store instanceof Cluster ? `Redis Cluster, ${nodes.length} masters, redis-server ${version}` : `Redis ${version}`}${module}`;
}

/** The process id of a server on this machine (undefined elsewhere: its /proc is not ours to read). */
export async function localPid(store: Store, url: string): Promise<number | undefined> {
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(new URL(url).hostname)) return undefined;
  const pid = Number(infoField(await store.info('server'), 'process_id'));
  return pid > 0 ? pid : undefined;
}
