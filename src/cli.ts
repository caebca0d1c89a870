// `kcs serve | worker | start | admin …` — one code base, three roles (DESIGN §1).
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runAdmin } from '../scripts/admin.js';
import { startWorkers, WORKER_NODE_OPTIONS, type RunningWorkers } from '../workers/index.js';
import { createServices, startServer, type RunningServer } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { bootstrapDemo } from './domain/bootstrap.js';
import { createLogger, type Logger } from './log.js';
import { createEmbedder } from './embed/index.js';
import { indexOptionsOf, resolveSearchEngine, searchWrites } from './search/index.js';
import { RedisServerMissingError, runningEmbeddedRedis, startEmbeddedRedis, type EmbeddedRedis } from './store/embeddedRedis.js';
import { describeTarget, redisEnv, type RedisAt, type Store } from './store/redis.js';

const USAGE = `usage: kcs <command>
  start     serve + worker for one machine (embedded redis-server unless REDIS_URL or
            REDIS_CLUSTER_NODES is set)
  serve     the HTTP API
  worker    the BullMQ workers (needs REDIS_URL, REDIS_CLUSTER_NODES, or a running embedded server)
  admin     tenants, users, API keys and OAuth clients: kcs admin --help`;

/**
 * Ordered clean-up run once on SIGINT/SIGTERM (or when the parent of a worker goes away).
 * Bounded: a step stuck on an unreachable Redis cannot keep the process alive past the grace time.
 */
function onShutdown(log: Logger, graceMs: number, steps: (() => Promise<void>)[]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    setTimeout(() => {
      log.error({ graceMs }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, graceMs + 5000).unref();
    for (const step of steps) await step().catch((err: unknown) => log.error({ err }, 'shutdown step failed'));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('disconnect', () => void stop('parent gone'));
  // A forked worker whose parent died while this module was still loading missed the event.
  if (process.send && !process.connected) void stop('parent gone');
}

/**
 * REDIS_URL or REDIS_CLUSTER_NODES, or the embedded server: started here when `start` is true,
 * else one already running.
 */
async function redisFor(config: Config, log: Logger, start: boolean): Promise<{ redis: RedisAt; embedded: EmbeddedRedis | null }> {
  if (config.redis) {
    log.info({ redis: describeTarget(config.redis) }, 'using redis');
    return { redis: config.redis, embedded: null };
  }
  if (!start) {
    const url = await runningEmbeddedRedis(config.dataDir);
    if (url) return { redis: url, embedded: null };
    throw new Error(`REDIS_URL is not set and no embedded redis-server runs on ${config.dataDir}; run \`npm start\` or set REDIS_URL`);
  }
  const embedded = await startEmbeddedRedis(config.dataDir, {
    onExit: (exit) => log.error(exit, 'embedded redis-server exited; starting it again'),
  });
  log.info({ url: embedded.url, dir: `${config.dataDir}/redis` }, 'embedded redis-server started');
  return { redis: embedded.url, embedded };
}

/** The environment without its Redis settings, so that the ones given to a child are the only ones. */
const withoutRedisTarget = ({ REDIS_URL: _url, REDIS_CLUSTER_NODES: _nodes, ...env }: NodeJS.ProcessEnv): NodeJS.ProcessEnv => env;

async function serve(config: Config, withWorker: boolean): Promise<void> {
  const log = createLogger(config.logLevel, 'kcs');
  // Clean-up is registered before anything starts, so a signal at any moment stops what runs.
  let embedded: EmbeddedRedis | null = null;
  let server: RunningServer | null = null;
  const workers = new Set<ChildProcess>();
  let stopping = false;
  onShutdown(log, config.shutdownGraceMs, [
    async () => {
      // Workers stopped by the same signal (Ctrl-C reaches the whole process group) are not restarted.
      stopping = true;
      await server?.close();
    },
    async () => {
      await Promise.all(
        [...workers].filter((child) => child.exitCode === null).map((child) => {
          const exited = new Promise((done) => child.once('exit', done));
          child.kill('SIGTERM');
          return exited;
        }),
      );
    },
    async () => embedded?.stop(),
  ]);

  checkEmbedder(config);
  const redis = await redisFor(config, log, true);
  embedded = redis.embedded;
  try {
    server = await startServer(config, redis.redis, log);
  } catch (error) {
    // Nothing else stops the embedded server on a failed start (a port in use): it would outlive us.
    await embedded?.stop();
    throw error;
  }
  if (withWorker) {
    // Workers run in their own processes so that CPU-bound jobs never stall HTTP; embedding (the
    // model blocks its event loop for seconds per batch) apart from ingest, so bulk writes go on.
    const roles = config.embedding.provider === 'none' ? ['ingest,maintenance'] : ['ingest,maintenance', 'embed'];
    const spawnWorker = (queues: string) => {
      if (stopping) return;
      const child = fork(fileURLToPath(import.meta.url), ['worker'], {
        execArgv: [...process.execArgv, ...WORKER_NODE_OPTIONS],
        env: { ...withoutRedisTarget(process.env), ...redisEnv(redis.redis), KCS_WORKER_QUEUES: queues },
      });
      workers.add(child);
      child.on('exit', (code) => {
        workers.delete(child);
        if (stopping) return;
        log.warn({ code, queues }, 'worker exited; restarting in 1 s');
        setTimeout(() => spawnWorker(queues), 1000);
      });
    };
    roles.forEach(spawnWorker);
  }

  if (config.bootstrapDemo) {
    const key = await bootstrapDemo(server.services.tenants, server.services.users, server.services.apiKeys);
    if (key) printWelcome(key, config, server.port);
  }
}

/** A model directory that is not one is a configuration error, said in one line before anything starts. */
function checkEmbedder(config: Config): void {
  try {
    void createEmbedder(config.embedding)?.close?.();
  } catch (error) {
    const variable = config.embedding.provider === 'onnx' ? 'KCS_ONNX_MODEL_DIR' : 'KCS_EMBEDDER';
    throw new ConfigError([`${variable}: ${(error as Error).message}`]);
  }
}

function printWelcome(key: string, config: Config, port: number): void {
  const base = `${config.publicScheme}://demo.${config.baseDomain}:${port}`;
  process.stdout.write(
    `\nFirst start: created tenant "demo" with an admin user and this API key (shown once, it holds every scope):\n\n` +
      `  ${key}\n\nTry it:\n\n  curl -H "Authorization: Bearer ${key}" ${base}/api/knowledge/sites\n\n`,
  );
}

async function worker(config: Config): Promise<void> {
  const log = createLogger(config.logLevel, 'kcs-worker');
  let running: RunningWorkers | null = null;
  onShutdown(log, config.shutdownGraceMs, [async () => running?.close()]);
  checkEmbedder(config);
  const { redis } = await redisFor(config, log, false);
  running = await startWorkers(config, redis, log);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'admin') {
    process.exitCode = await runAdmin(rest, async () => {
      const config = loadConfig();
      const log = createLogger('warn', 'kcs-admin');
      const { redis, embedded } = config.redis || (await runningEmbeddedRedis(config.dataDir))
        ? await redisFor(config, log, false)
        : await redisFor(config, log, true);
      const services = async (redis: Store) =>
        createServices(redis, { search: searchWrites(await resolveSearchEngine(redis, config.searchEngine), redis, indexOptionsOf(createEmbedder(config.embedding))) });
      return { redis, createServices: services, stop: async () => embedded?.stop() };
    });
    return;
  }
  const config = loadConfig();
  switch (command) {
    case 'start':
      return serve(config, true);
    case 'serve':
      return serve(config, false);
    case 'worker':
      return worker(config);
    default:
      process.stderr.write(`${USAGE}\n`);
      process.exitCode = command === undefined || command === '--help' ? 0 : 2;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof RedisServerMissingError) {
    process.stderr.write(`kcs: ${error.message}\n`);
  } else {
    process.stderr.write(`kcs: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
  process.exit(1);
});
