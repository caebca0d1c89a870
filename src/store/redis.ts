import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Redis, type RedisOptions } from 'ioredis';

const LUA_DIR = fileURLToPath(new URL('./lua/', import.meta.url));

/**
 * A `--- @include "<path>"` line (as in BullMQ's scripts) takes the text of lua/<path>.lua: Redis
 * scripts cannot load shared code themselves.
 */
const withIncludes = (lua: string) =>
  lua.replace(/^--- @include "([\w/]+)"$/gm, (_, path: string) => readFileSync(`${LUA_DIR}${path}.lua`, 'utf8'));

/**
 * The Lua scripts of store/lua, each named `<command>-<number of keys>.lua` and defined once by
 * name; a script named `<command>.lua` takes a varying number of keys, passed first on each call.
 */
export interface ScriptCommands {
  createSite(...args: (string | number)[]): Promise<number>;
  updateSite(...args: (string | number)[]): Promise<number>;
  deleteSite(...args: (string | number)[]): Promise<number>;
  createCategory(...args: (string | number)[]): Promise<number>;
  updateCategory(...args: (string | number)[]): Promise<number>;
  deleteCategory(...args: (string | number)[]): Promise<number>;
  createUser(...args: (string | number)[]): Promise<number>;
  takeToken(...args: (string | number)[]): Promise<number>;
  writeProducts(numberOfKeys: number, ...args: (string | number)[]): Promise<(number | string)[]>;
  touchProducts(numberOfKeys: number, ...args: (string | number)[]): Promise<number[]>;
  deleteProduct(...args: (string | number)[]): Promise<number>;
  storeVectors(...args: (string | number | Buffer)[]): Promise<number>;
  writeEntry(numberOfKeys: number, ...args: (string | number)[]): Promise<[number, number?]>;
  deleteEntry(numberOfKeys: number, ...args: (string | number)[]): Promise<number>;
  pageEntries(numberOfKeys: number, ...args: (string | number)[]): Promise<(number | string)[]>;
  projectDocuments(numberOfKeys: number, ...args: (string | number)[]): Promise<number>;
  readHashes(numberOfKeys: number, ...args: string[]): Promise<(string | null)[]>;
  readHashesBuffer(numberOfKeys: number, ...args: string[]): Promise<(Buffer | null)[]>;
  appendAudit(...args: (string | number)[]): Promise<string>;
  deleteAudited(...args: (string | number)[]): Promise<number>;
}

export type Store = Redis & ScriptCommands;

/** A connection for the app; `onError` hears connection trouble (ioredis reconnects by itself). */
export function connectRedis(url: string, options: RedisOptions = {}, onError: (error: Error) => void = () => undefined): Store {
  const redis = new Redis(url, {
    lazyConnect: true,
    // Fail fast while Redis is down, so the API answers 503 at once: a command issued while the
    // connection is not ready is refused (not queued until the next reconnect attempt, which
    // backs off to 2 s); one in flight when the connection drops is retried over one reconnect.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    enableAutoPipelining: true,
    connectionName: 'kcs',
    ...options,
  });
  redis.on('error', onError);
  for (const file of readdirSync(LUA_DIR)) {
    const match = /^(\w+?)(?:-(\d+))?\.lua$/.exec(file);
    if (!match) continue;
    const lua = withIncludes(readFileSync(LUA_DIR + file, 'utf8'));
    redis.defineCommand(match[1], match[2] === undefined ? { lua } : { numberOfKeys: Number(match[2]), lua });
  }
  return redis as Store;
}

/** The same fields of many hashes in one command (store/lua/readHashes.lua), one array per hash. */
export async function readHashes(redis: Store, hashKeys: string[], fields: readonly string[]): Promise<(string | null)[][]> {
  if (hashKeys.length === 0) return [];
  const flat = await redis.readHashes(hashKeys.length, ...hashKeys, ...fields);
  return hashKeys.map((_, i) => flat.slice(i * fields.length, (i + 1) * fields.length));
}

/** True for errors that mean Redis cannot be reached (as opposed to a bad command). */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    /Connection is closed|Stream isn't writeable|LOADING/.test(error.message)
  );
}
