// Configuration from environment variables, validated once at start.
// Every bad value is reported with its own readable line, then the process exits.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { FACET_EXACT_LIMIT } from './search/facets.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * Where the data lives: one Redis server (REDIS_URL), or a Redis Cluster reached through seed
 * nodes (REDIS_CLUSTER_NODES); TLS and credentials apply to every node of the cluster.
 */
export type RedisTarget =
  | { kind: 'server'; url: string }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; tls: boolean; username?: string; password?: string };

export interface Config {
  port: number;
  host: string;
  /** null: start the embedded private redis-server (see store/embeddedRedis.ts). */
  redis: RedisTarget | null;
  /** Replicas that must have a write before it is answered (WAIT), and how long to wait for them. */
  writeReplicas: { count: number; timeoutMs: number };
  baseDomain: string;
  /** Scheme used in URLs the service hands out (issuer, resource metadata). */
  publicScheme: 'http' | 'https';
  logLevel: LogLevel;
  dataDir: string;
  workerConcurrency: number;
  /** Lock of a running bulk import; a killed worker's import is taken over within about 1.5× this. */
  ingestLockMs: number;
  /** Lock of each embed job a worker holds; a killed worker's jobs go back to the queue within about 1.5× this. */
  embedLockMs: number;
  /**
   * Scheduling priority (nice, 0–19) of a worker process that takes bulk imports (and not the
   * embed queue): searches and reads of the serve process go first where they share cores.
   */
  ingestNice: number;
  /** After a re-embed made a model the tenant's: how long the vectors and indexes of the old one stay (searches under way finish with them). */
  vectorCleanupDelayMs: number;
  /** Create the demo tenant and print a key when the store is empty. */
  bootstrapDemo: boolean;
  shutdownGraceMs: number;
  embedding: EmbeddingConfig;
  /** The queues a `kcs worker` process takes jobs from. */
  workerQueues: WorkerQueue[];
  oauth: OAuthLifetimes;
  oauthRateLimits: OAuthRateLimits;
  /** auto: the Redis Query Engine when the server has it, else the built-in engine. */
  searchEngine: SearchEngineChoice;
  /** Facets are counted exactly over at most this many matches of a search, from a sample beyond (search/facets.ts). */
  facetExactLimit: number;
  /** Bytes the recent product search results of a serve process may take (search/resultCache.ts); 0: no cache. */
  searchCacheBytes: number;
  /** Where the Query Engine's searches read: the tenant's master, or its replicas where they are current. */
  searchReads: SearchReads;
  /** The HTTP front (http/front.ts): uWebSockets.js, node:http, or auto (uWS where its build loads). */
  httpFront: HttpFrontChoice;
}

export const HTTP_FRONTS = ['auto', 'uws', 'node'] as const;
export type HttpFrontChoice = (typeof HTTP_FRONTS)[number];

export const SEARCH_ENGINES = ['auto', 'builtin', 'redis'] as const;
export const SEARCH_READS = ['primary', 'replicas'] as const;
export type SearchReads = (typeof SEARCH_READS)[number];
export type SearchEngineChoice = (typeof SEARCH_ENGINES)[number];

/** Lifetimes of the OAuth authorization server's artefacts, in seconds. */
export interface OAuthLifetimes {
  /** Authorization code: single use, this long after consent. */
  codeTtlS: number;
  accessTtlS: number;
  /** Refresh token: each rotation issues a new one with this lifetime (sliding). */
  refreshTtlS: number;
}

/** Token buckets of the OAuth token endpoint and consent form, in requests per second (0 = off). */
export interface OAuthRateLimits {
  /** Per client and address at /oauth/token; per address at the consent form's answer. */
  ratePerS: number;
  /** Per address at /oauth/token, over all clients. */
  addressRatePerS: number;
}

export const DEFAULT_OAUTH_LIFETIMES: OAuthLifetimes = { codeTtlS: 60, accessTtlS: 3600, refreshTtlS: 30 * 24 * 3600 };

export const WORKER_QUEUES = ['ingest', 'embed', 'maintenance'] as const;
export type WorkerQueue = (typeof WORKER_QUEUES)[number];

/** Which embedder the workers run; `none` stores products with embedding_status "skipped". */
/** The model that embeds texts (src/embed/): what a thread needs to build it, so plain data. */
export type EmbedderSpec =
  | { provider: 'local' }
  | { provider: 'none' }
  /** minSimilarity: the cosine similarity under which the model's neighbours are unrelated (absent in records of older builds). */
  | { provider: 'hf'; model: string; endpointUrl?: string; token?: string; dimension: number; languages: string[]; minSimilarity?: number }
  /** Prefixes: what the model expects before a query and a document (e5: "query: ", "passage: "). */
  | { provider: 'onnx'; modelDir: string; languages: string[]; queryPrefix: string; documentPrefix: string; minSimilarity?: number };

export type EmbeddingConfig = EmbedderSpec & {
  batchSize: number;
  /** Threads a serve process embeds queries on (local and onnx), and their priority (nice). */
  query: { threads: number; nice: number };
  /** Threads the embed worker runs the model on (local and onnx). */
  threads: number;
  /** Their scheduling priority (nice, 0–19): below serving and importing. */
  nice: number;
  /** And the SCHED_IDLE policy (Linux): they run only on a core nothing else wants. */
  idle: boolean;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const int = (name: string, fallback: number, { min, max }: { min: number; max: number }): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${JSON.stringify(raw)} must be an integer from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  };
  const oneOf = <T extends string>(name: string, fallback: T, allowed: readonly T[]): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name}=${JSON.stringify(raw)} must be one of: ${allowed.join(', ')}`);
      return fallback;
    }
    return raw as T;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'yes'].includes(raw)) return true;
    if (['0', 'false', 'no'].includes(raw)) return false;
    problems.push(`${name}=${JSON.stringify(raw)} must be true or false`);
    return fallback;
  };

  const redis = redisTargetOf(env, problems);

  const host = env.HOST || '127.0.0.1';
  if (!/^[A-Za-z0-9.:-]+$/.test(host)) problems.push(`HOST=${JSON.stringify(host)} must be an IP address or host name`);

  const baseDomain = (env.KCS_BASE_DOMAIN || 'localhost').toLowerCase();
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(baseDomain)) {
    problems.push(`KCS_BASE_DOMAIN=${JSON.stringify(baseDomain)} must be a domain name such as api.example.com`);
  }

  const provider = oneOf('KCS_EMBEDDER', 'local', ['local', 'onnx', 'hf', 'none'] as const);
  const languages = (name: string) => (env[name] || 'de,en').split(',').map((l) => l.trim().toLowerCase()).filter(Boolean);
  /** A similarity floor as the spec's field, or none for the model's default (embed/embedder.ts). */
  const similarity = (name: string): { minSimilarity?: number } => {
    if (!env[name]) return {};
    const value = Number(env[name]);
    if (!(value >= 0 && value <= 1)) problems.push(`${name}=${JSON.stringify(env[name])} must be a cosine similarity from 0 to 1`);
    return { minSimilarity: value };
  };
  const running = {
    batchSize: int('KCS_EMBED_BATCH', 64, { min: 1, max: 1024 }),
    threads: int('KCS_EMBED_THREADS', Math.max(1, availableParallelism()), { min: 1, max: 64 }),
    nice: int('KCS_EMBED_NICE', 19, { min: 0, max: 19 }),
    idle: oneOf('KCS_EMBED_IDLE', 'on', ['on', 'off'] as const) === 'on',
    query: { threads: int('KCS_QUERY_EMBED_THREADS', 1, { min: 1, max: 16 }), nice: int('KCS_QUERY_EMBED_NICE', 5, { min: 0, max: 19 }) },
  };
  let embedding: EmbeddingConfig = { provider: provider === 'hf' || provider === 'onnx' ? 'none' : provider, ...running };
  if (provider === 'hf') {
    const model = env.KCS_HF_MODEL;
    if (!model) problems.push('KCS_HF_MODEL must name the model when KCS_EMBEDDER=hf, e.g. intfloat/multilingual-e5-small');
    embedding = {
      provider: 'hf',
      ...running,
      model: model ?? '',
      endpointUrl: env.KCS_HF_ENDPOINT_URL || undefined,
      token: env.HF_TOKEN || undefined,
      dimension: int('KCS_HF_DIMENSION', 384, { min: 1, max: 8192 }),
      languages: languages('KCS_HF_LANGUAGES'),
      ...similarity('KCS_HF_MIN_SIMILARITY'),
    };
  }
  if (provider === 'onnx') {
    const modelDir = env.KCS_ONNX_MODEL_DIR;
    if (!modelDir) problems.push('KCS_ONNX_MODEL_DIR must name a model directory (model.onnx, tokenizer.json, as Hugging Face exports them) when KCS_EMBEDDER=onnx');
    else if (!existsSync(modelDir)) problems.push(`KCS_ONNX_MODEL_DIR=${JSON.stringify(modelDir)} does not exist`);
    embedding = {
      provider: 'onnx',
      ...running,
      modelDir: modelDir ?? '',
      languages: languages('KCS_ONNX_LANGUAGES'),
      queryPrefix: env.KCS_ONNX_QUERY_PREFIX ?? '',
      documentPrefix: env.KCS_ONNX_DOCUMENT_PREFIX ?? '',
      ...similarity('KCS_ONNX_MIN_SIMILARITY'),
    };
  }

  const workerQueues = (env.KCS_WORKER_QUEUES || WORKER_QUEUES.join(',')).split(',').map((q) => q.trim()).filter(Boolean);
  const unknownQueues = workerQueues.filter((q) => !(WORKER_QUEUES as readonly string[]).includes(q));
  if (unknownQueues.length > 0) problems.push(`KCS_WORKER_QUEUES has unknown queues (${unknownQueues.join(', ')}); use ${WORKER_QUEUES.join(', ')}`);

  const config: Config = {
    port: int('PORT', 8080, { min: 0, max: 65535 }),
    host,
    redis,
    // On a cluster every master is expected to have a replica; one server has none by default.
    writeReplicas: { count: int('KCS_WAIT_REPLICAS', redis?.kind === 'cluster' ? 1 : 0, { min: 0, max: 16 }), timeoutMs: int('KCS_WAIT_TIMEOUT_MS', 1000, { min: 1, max: 60_000 }) },
    baseDomain,
    publicScheme: oneOf('KCS_PUBLIC_SCHEME', 'http', ['http', 'https'] as const),
    logLevel: oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    dataDir: env.KCS_DATA_DIR || './data',
    workerConcurrency: int('KCS_WORKER_CONCURRENCY', 4, { min: 1, max: 256 }),
    ingestLockMs: int('KCS_INGEST_LOCK_MS', 60_000, { min: 1000, max: 3_600_000 }),
    embedLockMs: int('KCS_EMBED_LOCK_MS', 30_000, { min: 1000, max: 3_600_000 }),
    ingestNice: int('KCS_INGEST_NICE', 10, { min: 0, max: 19 }),
    vectorCleanupDelayMs: int('KCS_VECTOR_CLEANUP_DELAY_MS', 600_000, { min: 0, max: 86_400_000 }),
    bootstrapDemo: bool('KCS_BOOTSTRAP_DEMO', true),
    shutdownGraceMs: int('KCS_SHUTDOWN_GRACE_MS', 10_000, { min: 0, max: 600_000 }),
    embedding,
    workerQueues: workerQueues as WorkerQueue[],
    searchEngine: oneOf('KCS_SEARCH_ENGINE', 'auto', SEARCH_ENGINES),
    httpFront: oneOf('KCS_HTTP', 'auto', HTTP_FRONTS),
    facetExactLimit: int('KCS_FACET_EXACT_LIMIT', FACET_EXACT_LIMIT, { min: 1, max: 10_000_000 }),
    searchCacheBytes: int('KCS_SEARCH_CACHE_MB', 0, { min: 0, max: 65_536 }) * 2 ** 20,
    searchReads: oneOf('KCS_SEARCH_READS', 'primary', SEARCH_READS),
    oauth: {
      codeTtlS: int('KCS_OAUTH_CODE_TTL_S', DEFAULT_OAUTH_LIFETIMES.codeTtlS, { min: 1, max: 600 }),
      accessTtlS: int('KCS_OAUTH_ACCESS_TTL_S', DEFAULT_OAUTH_LIFETIMES.accessTtlS, { min: 1, max: 86_400 }),
      refreshTtlS: int('KCS_OAUTH_REFRESH_TTL_S', DEFAULT_OAUTH_LIFETIMES.refreshTtlS, { min: 1, max: 365 * 86_400 }),
    },
    oauthRateLimits: {
      ratePerS: int('KCS_OAUTH_RATE_PER_S', 10, { min: 0, max: 100_000 }),
      addressRatePerS: int('KCS_OAUTH_ADDRESS_RATE_PER_S', 50, { min: 0, max: 100_000 }),
    },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

const redisUrlOf = (raw: string): URL | null => {
  try {
    const url = new URL(raw);
    return url.protocol === 'redis:' || url.protocol === 'rediss:' ? url : null;
  } catch {
    return null;
  }
};

/**
 * REDIS_URL, or REDIS_CLUSTER_NODES: seed nodes as `host:port` or as redis:// / rediss:// URLs;
 * the first URL's scheme and credentials (rediss://user:secret@host:port) apply to every node.
 */
function redisTargetOf(env: NodeJS.ProcessEnv, problems: string[]): RedisTarget | null {
  const single = env.REDIS_URL || '';
  const seeds = env.REDIS_CLUSTER_NODES || '';
  if (single && seeds) {
    problems.push('REDIS_URL and REDIS_CLUSTER_NODES are both set; set one (REDIS_CLUSTER_NODES for a Redis Cluster)');
    return null;
  }
  if (single) {
    if (redisUrlOf(single)) return { kind: 'server', url: single };
    problems.push(`REDIS_URL=${JSON.stringify(single)} must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379/0`);
    return null;
  }
  if (!seeds) return null;
  const target: RedisTarget & { kind: 'cluster' } = { kind: 'cluster', nodes: [], tls: false };
  let credentialsFrom: URL | null = null;
  for (const seed of seeds.split(',').map((s) => s.trim()).filter(Boolean)) {
    const url = redisUrlOf(seed.includes('://') ? seed : `redis://${seed}`);
    const port = Number(url?.port);
    if (!url || !url.hostname || !Number.isInteger(port) || port < 1 || port > 65535 || (url.pathname !== '' && url.pathname !== '/')) {
      problems.push(`REDIS_CLUSTER_NODES has ${JSON.stringify(seed)}: each seed node must be host:port or redis[s]://[user:password@]host:port`);
      continue;
    }
    target.nodes.push({ host: url.hostname.replace(/^\[|\]$/g, ''), port });
    if (!credentialsFrom && seed.includes('://')) credentialsFrom = url;
  }
  if (target.nodes.length === 0) {
    if (problems.length === 0) problems.push('REDIS_CLUSTER_NODES names no node; give host:port[,host:port...]');
    return null;
  }
  if (credentialsFrom) {
    target.tls = credentialsFrom.protocol === 'rediss:';
    if (credentialsFrom.username) target.username = decodeURIComponent(credentialsFrom.username);
    if (credentialsFrom.password) target.password = decodeURIComponent(credentialsFrom.password);
  }
  return target;
}
