// The Redis servers of the search benchmarks: a private plain redis-server (the built-in engine's),
// a server given by URL that may hold other data (the Query Engine's: only the benchmark's own
// tenant is touched there, and dropped at the end), and what each server is.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/store/embeddedRedis.js';
import { keys } from '../../src/store/keys.js';
import { connectRedis, type Store } from '../../src/store/redis.js';
import type { Undo } from './harness.js';

export interface PrivateServer {
  dir: string;
  redis: EmbeddedRedis;
  store: Store;
}

/** A private redis-server (the one on PATH) in a temporary directory, with a connection; all undone at the end. */
export async function openPrivateRedis(undo: Undo, name: string): Promise<PrivateServer> {
  const dir = mkdtempSync(join(tmpdir(), `kcs-bench-${name}-`));
  undo(() => rmSync(dir, { recursive: true, force: true }));
  const redis = await startEmbeddedRedis(dir, { persist: false });
  undo(() => redis.stop());
  const store = connectRedis(redis.url);
  await store.connect();
  undo(() => void store.disconnect());
  return { dir, redis, store };
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

export async function usedMemory(store: Store): Promise<number> {
  return Number(infoField(await store.info('memory'), 'used_memory'));
}

/** The server's own CPU seconds (user + system, INFO cpu): right for a server on another machine too. */
export async function serverCpuSeconds(store: Store): Promise<number> {
  const info = await store.info('cpu');
  return Number(infoField(info, 'used_cpu_user')) + Number(infoField(info, 'used_cpu_sys'));
}

/** "Redis 7.4.1" with its search module when loaded ("…, RediSearch 2.10.32"). */
export async function describeServer(store: Store): Promise<string> {
  const version = infoField(await store.info('server'), 'redis_version') ?? '?';
  const modules = (await store.call('MODULE', 'LIST')) as unknown[][];
  const search = modules.map((m) => new Map(pairs(m))).find((m) => m.get('name') === 'search');
  // The module's version is one number: 21032 is 2.10.32.
  const ver = Number(search?.get('ver'));
  const module = search ? `, RediSearch ${Math.floor(ver / 10000)}.${Math.floor(ver / 100) % 100}.${ver % 100}` : '';
  return `Redis ${version}${module}`;
}

/** The process id of a server on this machine (undefined elsewhere: its /proc is not ours to read). */
export async function localPid(store: Store, url: string): Promise<number | undefined> {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) return undefined;
  const pid = Number(infoField(await store.info('server'), 'process_id'));
  return pid > 0 ? pid : undefined;
}

function pairs(flat: unknown[]): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([String(flat[i]), flat[i + 1]]);
  return out;
}
