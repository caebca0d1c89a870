// kcs as its CLI runs it (`node --import tsx src/cli.ts <command>`), in processes of its own, on a
// free loopback port and a data directory of its own: `kcs start` with the README's defaults
// (embedded redis-server, the workers forked beside the server), or `kcs serve` and `kcs worker`
// on a Redis of the benchmark's. A serve process that finds no tenant creates the demo tenant and
// prints its API key (every scope): the benchmark reads it there.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '../../src/store/embeddedRedis.js';
import { redisEnv, type RedisAt } from '../../src/store/redis.js';
import { WORKER_NODE_OPTIONS } from '../../workers/index.js';
import { cpuProfileArgs, type Undo } from './harness.js';
import { waitIdle } from './proc.js';

export interface Kcs {
  /** Its HTTP port (0 for a worker). */
  port: number;
  /** The demo tenant's Host header. */
  host: string;
  /** The demo tenant's API key, when this process created the tenant; '' otherwise. */
  key: string;
  pid: number;
  /** From its first HTTP answer (it listens) to /readyz 200 (the search engine built); 0 for a worker. */
  readyMs: number;
  /** This process and its children (those of `kcs start`: redis-server, each worker by its queues). */
  pids(): Record<string, number>;
  stop(): Promise<void>;
}

export interface KcsOptions {
  /** The Redis of `serve` and `worker` (`start` runs its embedded one). */
  redis?: RedisAt;
  /** Settings on top of this process's environment (KCS_EMBEDDER, KCS_SEARCH_ENGINE, …). */
  env?: Record<string, string>;
  /** serve: wait for the demo key (a first start on an empty Redis). Default: true for start. */
  key?: boolean;
  /** BENCH_CPU_PROF: the profiles' subfolder. */
  profile?: string;
}

const childrenOf = (pid: number): number[] => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
};

const nameOf = (pid: number): string => {
  if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('redis-server')) return 'redis-server';
  const queues = /KCS_WORKER_QUEUES=([^\0]*)/.exec(readFileSync(`/proc/${pid}/environ`, 'utf8'))?.[1];
  return queues ? `worker (${queues.replaceAll(',', '+')})` : `child ${pid}`;
};

/** Starts `kcs <command>` and resolves once it serves (/readyz 200) or, a worker, once its workers started. */
export async function startKcs(undo: Undo, command: 'start' | 'serve' | 'worker' = 'start', options: KcsOptions = {}): Promise<Kcs> {
  const dataDir = mkdtempSync(join(tmpdir(), `kcs-bench-${command}-`));
  undo(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = command === 'worker' ? 0 : await freePort();
  const target = options.redis ? redisEnv(options.redis) : {};
  // BENCH_CPU_PROF: the workers of `kcs start` inherit the node options, so every process of the tree writes a profile.
  const nodeArgs = ['--import', 'tsx', ...cpuProfileArgs(options.profile ?? command), ...(command === 'worker' ? WORKER_NODE_OPTIONS : [])];
  const child = spawn(process.execPath, [...nodeArgs, 'src/cli.ts', command], {
    env: {
      ...process.env, PORT: String(port), KCS_DATA_DIR: dataDir, LOG_LEVEL: command === 'worker' ? 'info' : 'warn',
      REDIS_URL: '', REDIS_CLUSTER_NODES: '', ...target, ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await Promise.race([exited, delay(20_000).then(() => child.kill('SIGKILL'))]);
  };
  undo(stop);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const deadline = Date.now() + 60_000;
  const until = async (what: string, done: () => Promise<boolean> | boolean) => {
    while (!(await done())) {
      if (child.exitCode !== null) throw new Error(`kcs ${command} exited (${child.exitCode}) before ${what}:\n${out}`);
      if (Date.now() > deadline) throw new Error(`kcs ${command}: not ${what} within 60 s`);
      await delay(100);
    }
  };
  const pid = child.pid!;
  // The server's children: redis-server and the workers (not a short-lived helper such as chrt).
  const pids = () => Object.fromEntries([[`kcs ${command === 'start' ? 'serve' : command}`, pid], ...childrenOf(pid).map((p) => [nameOf(p), p]).filter(([name]) => !String(name).startsWith('child '))]);
  let listening = 0;
  let readyMs = 0;
  if (command === 'worker') {
    await until('its workers started', () => out.includes('"workers started"'));
  } else {
    const ready = () => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => ((listening ||= performance.now()), r.status === 200), () => false);
    await until('ready', async () => (await ready()) && (command === 'serve' || childrenOf(pid).length >= 2));
    readyMs = performance.now() - listening;
    if (options.key ?? command === 'start') await until('showing the demo key', () => /\bkcs_[A-Za-z0-9_-]+/.test(out));
  }
  // The workers still load and compile their modules (and the model) for a second or two after the
  // server answers: a measurement started meanwhile would count that work.
  await waitIdle(pids(), { quietMs: 500, limitMs: 30_000 });
  return { port, host: `demo.localhost:${port}`, key: /\b(kcs_[A-Za-z0-9_-]+)/.exec(out)?.[1] ?? '', pid, readyMs, pids, stop };
}
