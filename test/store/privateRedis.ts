// A private redis-server for the tests of one file (the store's Lua scripts): started in a temp
// dir before its tests, with the scripts defined on the client (connectRedis), and stopped after;
// and what those tests read back: the whole keyspace, the newest entry of a stream.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/store/embeddedRedis.js';
import { connectRedis, scanKeys, type Store } from '../../src/store/redis.js';

/**
 * Registers the file's before/after hooks and returns the client they open: it forwards to that
 * connection, so it is used in tests and hooks, not at load time. `seed` writes what every test of
 * the file reads, once connected. (Node 20 starts a file's root before-hooks without awaiting one
 * another: a file gives its setup here, or in a describe's hook, never in a root hook of its own.)
 */
export function privateRedis(seed?: (redis: Store) => Promise<unknown>): Store {
  let dir: string;
  let server: EmbeddedRedis | undefined;
  let client: Store | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kcs-scripts-'));
    server = await startEmbeddedRedis(dir, { persist: false });
    client = connectRedis(server.url);
    await client.connect();
    await seed?.(client);
  });

  after(async () => {
    client?.disconnect();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  return new Proxy({} as Store, {
    get(_, name) {
      if (!client) throw new Error('privateRedis: the server starts in the before hook; use the client in tests');
      const value: unknown = Reflect.get(client, name);
      return typeof value === 'function' ? value.bind(client) : value;
    },
  });
}

/** Every key with its DUMP (hex): the same before and after a call that wrote nothing. */
export async function keyspace(redis: Store): Promise<Map<string, string>> {
  const names = (await scanKeys(redis, '*')).sort();
  const dumps = await Promise.all(names.map((key) => redis.dumpBuffer(key)));
  return new Map(names.map((key, i) => [key, dumps[i]?.toString('hex') ?? '']));
}

/** The newest entry of a stream, its fields as an object (undefined: the stream is empty). */
export async function newest(redis: Store, stream: string): Promise<Record<string, string> | undefined> {
  const [entry] = await redis.xrevrange(stream, '+', '-', 'COUNT', 1);
  if (!entry) return undefined;
  const fields: Record<string, string> = {};
  for (let i = 0; i < entry[1].length; i += 2) fields[entry[1][i]] = entry[1][i + 1];
  return fields;
}
