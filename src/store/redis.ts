import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisTarget } from '../config.js';
import type { ScriptCommands } from './scripts.js';
import { readHashesCall } from './scriptCalls.js';
import { UnavailableError } from './unavailableError.js';

const LUA_DIR = fileURLToPath(new URL('./lua/', import.meta.url));

/**
 * A `--- @include "<path>"` line (as in BullMQ's scripts) takes the text of lua/<path>.lua (with
 * its own includes): Redis scripts cannot load shared code themselves.
 */
const withIncludes = (lua: string): string =>
  lua.replace(/^--- @include "([\w/]+)"$/gm, (_, path: string) => withIncludes(readFileSync(`${LUA_DIR}${path}.lua`, 'utf8')));

/** A client of one server or of a whole Redis Cluster (which routes each command to its slot's node). */
export type RedisClient = Redis | Cluster;
export type Store = RedisClient & ScriptCommands;
/** A Redis to connect to: a target from the configuration, or a server's URL. */
export type RedisAt = RedisTarget | string;

export const targetOf = (at: RedisAt): RedisTarget => (typeof at === 'string' ? { kind: 'server', url: at } : at);

/** The environment that points another kcs process (a worker, `kcs admin`) at the same Redis. */
export function redisEnv(at: RedisAt): Record<string, string> {
  const target = targetOf(at);
  if (target.kind === 'server') return { REDIS_URL: target.url };
  const auth = target.username || target.password
    ? `${encodeURIComponent(target.username ?? '')}:${encodeURIComponent(target.password ?? '')}@`
    : '';
  const [first, ...rest] = target.nodes.map((n) => `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`);
  return { REDIS_CLUSTER_NODES: [`${target.tls ? 'rediss' : 'redis'}://${auth}${first}`, ...rest].join(',') };
}

/** Where a target is, for logs (without credentials). */
export const describeTarget = (at: RedisAt): string => {
  const target = targetOf(at);
  if (target.kind === 'cluster') return `cluster ${target.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  const url = new URL(target.url);
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
};

/**
 * A client of the target with `options` for its connections: an ioredis Redis, or an ioredis
 * Cluster whose node connections take `options` (with the cluster's TLS and credentials).
 */
export function openClient(at: RedisAt, options: RedisOptions, clusterOptions: ClusterOptions = {}): RedisClient {
  const target = targetOf(at);
  if (target.kind === 'server') return new Redis(target.url, options);
  const { lazyConnect, enableOfflineQueue, enableAutoPipelining: _, ...nodeOptions } = options;
  return new Cluster(target.nodes, {
    lazyConnect,
    enableOfflineQueue,
    // No auto-pipelining: when one command of a pipeline is answered ASK (its slot is migrating),
    // ioredis sends the whole pipeline to the importing master, where the keys not moved yet read as
    // missing. One at a time, each command follows its own redirection.
    enableAutoPipelining: false,
    // Reads and writes go to the slot's master: replicas serve no reads, so none can be stale.
    scaleReads: 'master',
    // A slot without a master (a failover under way) is retried for about one second, then the
    // command fails and the API answers 503; the slot map is re-read at once when a node fails.
    retryDelayOnClusterDown: 100,
    retryDelayOnFailover: 100,
    retryDelayOnTryAgain: 100,
    maxRedirections: 10,
    slotsRefreshTimeout: 2000,
    ...clusterOptions,
    redisOptions: {
      ...nodeOptions,
      ...(target.tls ? { tls: {} } : {}),
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
    },
  });
}

/** A connection for the app; `onError` hears connection trouble (ioredis reconnects by itself). */
export function connectRedis(at: RedisAt, options: RedisOptions = {}, onError: (error: Error) => void = () => undefined): Store {
  const scripts = readdirSync(LUA_DIR).flatMap((file) => {
    const match = /^(\w+?)(?:-(\d+))?\.lua$/.exec(file);
    return match ? [{ name: match[1], numberOfKeys: match[2] === undefined ? undefined : Number(match[2]), file }] : [];
  });
  const redis = openClient(at, {
    lazyConnect: true,
    // Fail fast while Redis is down, so the API answers 503 at once: a command issued while the
    // connection is not ready is refused (not queued until the next reconnect attempt, which
    // backs off to 2 s); one in flight when the connection drops is retried over one reconnect.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // A command in flight when the connection drops fails (failInFlightOnClose), never sent again on
    // its own: a write is not repeated behind the caller's back.
    autoResendUnfulfilledCommands: false,
    // On one server (a cluster client does not: openClient).
    enableAutoPipelining: true,
    connectionName: 'kcs',
    ...options,
  });
  redis.on('error', onError);
  if (redis instanceof Redis) failInFlightOnClose(redis);
  for (const { name, numberOfKeys, file } of scripts) {
    const lua = withIncludes(readFileSync(LUA_DIR + file, 'utf8'));
    redis.defineCommand(name, numberOfKeys === undefined ? { lua } : { numberOfKeys, lua });
    SCRIPT_TEXTS.set(name, { lua, sha: createHash('sha1').update(lua).digest('hex') });
  }
  return redis as Store;
}

/** The scripts' texts by name, as defined on the app's clients. */
const SCRIPT_TEXTS = new Map<string, { lua: string; sha: string }>();

/**
 * A script that only reads, on a connection without the scripts defined (a replica's): EVALSHA_RO,
 * which a read-only replica runs, or EVAL_RO with its text where the replica has not seen it yet.
 * `call` as the script's defined command takes it, its key count first.
 */
export async function readOnlyScript(connection: Redis, name: string, call: (string | number | Buffer)[]): Promise<unknown> {
  const script = SCRIPT_TEXTS.get(name);
  if (!script) throw new Error(`no script ${name}`);
  try {
    return await connection.call('EVALSHA_RO', script.sha, ...call);
  } catch (error) {
    if (!(error instanceof Error) || !/^NOSCRIPT/.test(error.message)) throw error;
    return connection.call('EVAL_RO', script.lua, ...call);
  }
}

/**
 * When the connection drops, the commands in flight on it fail at once (503 for their requests).
 * ioredis would hold them until it is ready again and send them then: a Redis restarted with an
 * AOF to load kept a search waiting 7 s for an answer its process could not give meanwhile.
 * (flushQueue is ioredis's own way to fail a queue; between a close and the next connect the
 * queue it holds is the commands sent on the closed connection.)
 */
function failInFlightOnClose(redis: Redis): void {
  const flushable = redis as unknown as { flushQueue(error: Error, options: { offlineQueue: boolean; commandQueue: boolean }): void };
  redis.on('close', () => flushable.flushQueue(new Error('Connection is closed.'), { offlineQueue: false, commandQueue: true }));
}

/**
 * Every key matching `pattern`: SCAN on the server, or on each master of a cluster (a cluster
 * node scans only its own keys).
 */
export async function scanKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for (const node of redis instanceof Cluster ? redis.nodes('master') : [redis]) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
  }
  return found;
}

/** The same fields of many hashes in one command (store/lua/readHashes.lua), one array per hash. */
export async function readHashes(redis: Store, hashKeys: string[], fields: readonly string[]): Promise<(string | null)[][]> {
  if (hashKeys.length === 0) return [];
  const flat = await redis.readHashes(...readHashesCall(hashKeys, fields));
  return hashKeys.map((_, i) => flat.slice(i * fields.length, (i + 1) * fields.length));
}

/** True for errors that mean Redis cannot be reached (as opposed to a bad command). */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof UnavailableError) return true;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    error.name === 'ClusterAllFailedError' ||
    // Cluster trouble: a slot without a master, a failover under way, no node reachable.
    /Connection is closed|Stream isn't writeable|LOADING|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|Cluster isn't ready|Failed to refresh slots cache|None of startup nodes is available|Too many Cluster redirections|^(MOVED|ASK) /.test(error.message)
  );
}
