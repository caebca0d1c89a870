// The embedded default: a private redis-server from PATH on a free loopback port, with
// append-only persistence under <dataDir>/redis, stopped (and so flushed) on exit.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';

export interface EmbeddedRedis {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export class RedisServerMissingError extends Error {
  constructor() {
    super(
      'redis-server was not found on PATH. Install it (Debian/Ubuntu: apt-get install -y redis-server; ' +
        'macOS: brew install redis) or point the service at a running server with REDIS_URL=redis://host:6379',
    );
  }
}

const STATE_FILE = 'kcs-redis.json';

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

export function redisServerAvailable(): boolean {
  return !spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error;
}

export interface EmbeddedRedisOptions {
  /** Append-only persistence under <dataDir>/redis (default true). */
  persist?: boolean;
  /** Told when the server exited unasked; it is started again on the same port and data. */
  onExit?: (event: { code: number | null; signal: NodeJS.Signals | null; restartInMs: number }) => void;
  /** The redis-server binary (default: the one on PATH), and a module it loads (benchmarks: the search module). */
  server?: string;
  module?: string;
}

/**
 * The server's allocator (jemalloc: Debian's shared one reads MALLOC_CONF, the one Redis bundles as
 * `je_` reads JE_MALLOC_CONF) backs its heap with transparent huge pages: on a VM each TLB miss walks
 * two page tables, and a create touches ~25 entries of large hash tables and sorted sets. Measured:
 * a third less of redis-server's CPU for an import's writes (bench:ingest); an append-only
 * rewrite's fork copies no more (the kernel splits a huge page on write).
 * The kernel grants them where it is set to `madvise` or `always`. A setting of the user's own
 * (either variable) is passed on as it is.
 */
const HUGE_PAGES = 'thp:always';

function serverEnv(): NodeJS.ProcessEnv {
  if (process.env.MALLOC_CONF !== undefined || process.env.JE_MALLOC_CONF !== undefined) return process.env;
  return { ...process.env, MALLOC_CONF: HUGE_PAGES, JE_MALLOC_CONF: HUGE_PAGES };
}

/** A server that died is started again after this delay, doubled (up to the maximum) while it keeps dying young. */
const RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;
const STABLE_AFTER_MS = 10_000;

export async function startEmbeddedRedis(dataDir: string, options: EmbeddedRedisOptions = {}): Promise<EmbeddedRedis> {
  if (!options.server && !redisServerAvailable()) throw new RedisServerMissingError();
  const dir = resolve(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  await stopStale(dir);

  const port = await freePort();
  const persist = options.persist ?? true;
  const args = [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
    '--appendonly', persist ? 'yes' : 'no', '--appendfsync', 'everysec', '--save', '',
    // The first compaction of the append-only file waits until it holds 512 MB (Redis: 64 MB): a
    // rewrite forks and writes the whole dataset, a core's work for seconds, and on one machine
    // it took a fifth of the CPU a 100,000-product import had (bench:ingest). Later ones
    // still come each time the file doubles.
    '--auto-aof-rewrite-min-size', '512mb',
    // A document's hash (its JSON, a few fields, its vectors) stays one compact listpack instead
    // of a hash table from the first value over 64 bytes (Redis's default): less memory and CPU
    // for every write of an import.
    '--hash-max-listpack-value', '8192',
    '--pidfile', join(dir, 'redis.pid'), '--logfile', join(dir, 'redis.log'), '--daemonize', 'no',
    ...(options.module ? ['--loadmodule', options.module] : []),
  ];
  const url = `redis://127.0.0.1:${port}`;
  const launch = () => {
    const child = spawn(options.server ?? 'redis-server', args, { stdio: 'ignore', env: serverEnv() });
    writeFileSync(join(dir, STATE_FILE), JSON.stringify({ url, pid: child.pid }));
    return child;
  };
  let child = launch();
  await waitForPing(url, child, dir);

  // Supervision: a server killed under us (OOM killer, kill -9) comes back on the same port with its
  // append-only file, and every client (ioredis reconnects by itself) picks up again.
  let stopping = false;
  let restartDelay = RESTART_DELAY_MS;
  let restartTimer: NodeJS.Timeout | null = null;
  const supervise = (proc: ChildProcess, startedAt: number) =>
    proc.once('exit', (code, signal) => {
      if (stopping) return;
      restartDelay = Date.now() - startedAt > STABLE_AFTER_MS ? RESTART_DELAY_MS : Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS);
      options.onExit?.({ code, signal, restartInMs: restartDelay });
      restartTimer = setTimeout(() => {
        restartTimer = null;
        if (stopping) return;
        child = launch();
        supervise(child, Date.now());
      }, restartDelay);
    });
  supervise(child, Date.now());

  return {
    url,
    get pid() {
      return child.pid!;
    },
    async stop() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      child.kill('SIGTERM'); // redis-server shuts down cleanly on SIGTERM: the AOF is flushed.
      await exited;
      rmSync(join(dir, STATE_FILE), { force: true });
    },
  };
}

/** The URL of an embedded server already running on this data directory, if any. */
export async function runningEmbeddedRedis(dataDir: string): Promise<string | null> {
  const file = join(resolve(dataDir, 'redis'), STATE_FILE);
  if (!existsSync(file)) return null;
  const { url } = JSON.parse(readFileSync(file, 'utf8')) as { url: string };
  const client = probeClient(url);
  try {
    await client.connect();
    await client.ping();
    return url;
  } catch {
    return null;
  } finally {
    client.disconnect();
  }
}

/** A one-shot client: no reconnects, and a refused connection is an answer, not an error event. */
function probeClient(url: string): Redis {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  return client;
}

async function waitForPing(url: string, child: ChildProcess, dir: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const client = probeClient(url);
    try {
      await client.connect();
      await client.ping();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      client.disconnect();
    }
  }
  child.kill('SIGKILL');
  const logFile = join(dir, 'redis.log');
  const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join('\n') : '';
  throw new Error(`redis-server did not start in ${dir}${tail ? `:\n${tail}` : ''}`);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A redis-server left behind by a killed kcs still holds our data directory: stop it first. */
async function stopStale(dir: string): Promise<void> {
  const pidFile = join(dir, 'redis.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  const isRedis = (p: number) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('redis-server');
    } catch {
      return false;
    }
  };
  if (pid > 0 && isAlive(pid) && isRedis(pid)) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }
  rmSync(pidFile, { force: true });
}
