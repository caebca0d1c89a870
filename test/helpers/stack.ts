// A private, real stack for one test file: its own redis-server (random port, temp dir), a kcs
// server and the BullMQ workers in this process, talked to over real HTTP with a Host header.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer, type Services } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { SCOPES } from '../../src/schemas/scopes.js';
import type { Tenant, User } from '../../src/schemas/records.js';
import { createLogger, type Logger } from '../../src/log.js';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/store/embeddedRedis.js';
import { connectRedis, redisEnv, type RedisAt, type Store } from '../../src/store/redis.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';

export interface HttpResult<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the response is JSON, else the text. */
  body: T;
  text: string;
}

export interface RequestOptions {
  /** Bearer token; omitted means no Authorization header. */
  key?: string;
  /** JSON-encoded unless `raw` is given. */
  body?: unknown;
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** Host header; defaults to `<tenant>.localhost:<port>`. */
  host?: string;
  /** The client address to connect from (a loopback address 127.0.0.x: the server sees another caller); default the system's. */
  localAddress?: string;
}

export interface TenantFixture {
  tenant: Tenant;
  user: User;
  /** A key holding every scope. */
  key: string;
  /** A new key of this tenant's user with just these scopes. */
  keyWith(scopes: string[]): Promise<string>;
  /** HTTP against this tenant. */
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<HttpResult<T>>;
}

export interface Stack {
  port: number;
  config: Config;
  /** The Redis the stack runs on: its private server, or the run's shared server or cluster. */
  redis: RedisAt;
  /** REDIS_URL or REDIS_CLUSTER_NODES for a `kcs` process on the same Redis. */
  redisEnv: Record<string, string>;
  /** A new connected client of that Redis (the caller disconnects it). */
  client(): Promise<Store>;
  services: Services;
  /** Raw HTTP against any Host. */
  request<T = any>(method: string, path: string, options?: RequestOptions & { tenant?: string }): Promise<HttpResult<T>>;
  /** A fresh tenant with an admin user and an all-scopes key. */
  tenant(slug?: string): Promise<TenantFixture>;
  close(): Promise<void>;
}

let tenantCounter = 0;
/** Tenant slugs unique across runs: a shared server (KCS_TEST_REDIS_URL) keeps the tenants of earlier runs. */
const runTag = `${process.pid.toString(36)}${Date.now().toString(36)}`;

/**
 * The Redis the run shares, if any: the server at KCS_TEST_REDIS_URL (`npm run test:rqe` points
 * it at a server with the Query Engine) or the cluster at KCS_TEST_REDIS_CLUSTER_NODES (the
 * cluster pass of `npm test`); tests then use fresh tenants there and touch nothing else.
 */
export function sharedRedis(): RedisAt | null {
  if (process.env.KCS_TEST_REDIS_URL) return process.env.KCS_TEST_REDIS_URL;
  const nodes = process.env.KCS_TEST_REDIS_CLUSTER_NODES;
  return nodes ? loadConfig({ REDIS_CLUSTER_NODES: nodes }).redis : null;
}

/** The Redis a stack runs on: the given one, the run's shared one, or a private redis-server. */
async function stackRedis(dir: string, given?: RedisAt): Promise<{ at: RedisAt; stop(): Promise<void> }> {
  const shared = given ?? sharedRedis();
  if (shared) return { at: shared, stop: async () => undefined };
  const redis: EmbeddedRedis = await startEmbeddedRedis(dir, { persist: false });
  return { at: redis.url, stop: () => redis.stop() };
}

/** Settings a run gives every stack: the search engine (`npm run test:rqe` asks for the Redis Query Engine). */
/** The run's choices a stack takes over: the search engine, the HTTP front (the test runner runs the HTTP suites on each). */
const runEnv = (): Record<string, string> =>
  Object.fromEntries(['KCS_SEARCH_ENGINE', 'KCS_HTTP'].flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])));

export interface StackOptions {
  /** false leaves the queues to workers the test runs itself (e.g. a `kcs worker` process). */
  workers?: boolean;
  /** A Redis server or cluster to share (fresh tenants only) instead of a private one. */
  redis?: RedisAt;
  /** The server's and workers' logger (e.g. one that keeps error logs for the test to read); default: LOG_LEVEL, stdout. */
  log?: Logger;
}

export async function startStack(env: Record<string, string> = {}, options: StackOptions = {}): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'kcs-test-'));
  const redis = await stackRedis(dir, options.redis);
  // The config names the stack's Redis, as a deployment's would (a cluster's defaults follow from it).
  const config = loadConfig({ PORT: '0', LOG_LEVEL: process.env.KCS_TEST_LOG_LEVEL || 'silent', ...redisEnv(redis.at), KCS_DATA_DIR: dir, KCS_SHUTDOWN_GRACE_MS: '2000', ...runEnv(), ...env });
  const log = options.log ?? createLogger(config.logLevel, 'kcs-test');
  const server: RunningServer = await startServer(config, redis.at, log);
  const workers: RunningWorkers | null = options.workers === false ? null : await startWorkers(config, redis.at, log);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const port = server.port;

  const request = <T>(method: string, path: string, options: RequestOptions & { tenant?: string } = {}): Promise<HttpResult<T>> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {
        host: options.host ?? `${options.tenant ?? 'none'}.localhost:${port}`,
        ...options.headers,
      };
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      let payload: string | Buffer | undefined = options.raw;
      if (payload === undefined && options.body !== undefined) {
        payload = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
      const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent, ...(options.localAddress ? { localAddress: options.localAddress } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const isJson = (res.headers['content-type'] ?? '').includes('json');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: (isJson && text ? JSON.parse(text) : text) as T, text });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });

  const stack: Stack = {
    port,
    config,
    redis: redis.at,
    redisEnv: redisEnv(redis.at),
    async client() {
      const client = connectRedis(redis.at);
      await client.connect();
      return client;
    },
    services: server.services,
    request,
    async tenant(slug = `t${runTag}x${++tenantCounter}`) {
      const { tenants, users, apiKeys } = server.services;
      const tenant = await tenants.create(slug, `Tenant ${slug}`);
      const user = await users.create(tenant.id, { email: `admin@${slug}.test`, name: 'Admin' });
      const keyWith = async (scopes: string[]) => (await apiKeys.create(tenant.id, { userId: user.id, name: 'test', scopes })).key;
      const key = await keyWith([...SCOPES]);
      return {
        tenant,
        user,
        key,
        keyWith,
        request: <T>(method: string, path: string, options: RequestOptions = {}) =>
          request<T>(method, path, { key, ...options, tenant: slug }),
      };
    },
    async close() {
      agent.destroy();
      await server.close();
      await workers?.close();
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return stack;
}
