// `kcs start` as the README's `npm start` runs it (embedded redis-server, the workers forked beside
// the server, every default), in a data directory of its own, for the benchmarks that measure the
// defaults. The first start prints the demo tenant's API key: the benchmark reads it there.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { runningEmbeddedRedis } from '../../src/store/embeddedRedis.js';
import type { Undo } from './harness.js';
import { waitIdle } from './proc.js';

export interface KcsStart {
  port: number;
  host: string;
  key: string;
  /** The processes of the tree: kcs (serve), each worker by its queues, redis-server. */
  pids(): Record<string, number>;
  /** The URL of its embedded redis-server. */
  redisUrl(): Promise<string>;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

const childrenOf = (pid: number): number[] => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
};

const nameOf = (pid: number): string => {
  const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  if (command.includes('redis-server')) return 'redis-server';
  const queues = /KCS_WORKER_QUEUES=([^\0]*)/.exec(readFileSync(`/proc/${pid}/environ`, 'utf8'))?.[1];
  return queues ? `worker (${queues.replaceAll(',', '+')})` : `child ${pid}`;
};

/** nodeArgs: options for node in every process of the tree (the workers inherit them), e.g. --cpu-prof. */
export async function startKcs(undo: Undo, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<KcsStart> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kcs-bench-start-'));
  undo(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', ...nodeArgs, 'src/cli.ts', 'start'], {
    env: { ...process.env, PORT: String(port), KCS_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await Promise.race([new Promise((resolve) => child.once('exit', resolve)), delay(20_000).then(() => child.kill('SIGKILL'))]);
  };
  undo(stop);
  let out = '';
  const key = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /\b(kcs_[A-Za-z0-9_-]+)/.exec(out);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`kcs start exited (${code}) before it printed the demo key:\n${out}`)));
  });
  const host = `demo.localhost:${port}`;
  for (const deadline = Date.now() + 60_000; ; await delay(200)) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0);
    if (ready === 200 && childrenOf(child.pid!).length >= 2) break;
    if (Date.now() > deadline) throw new Error('kcs start was not ready within 60 s');
  }
  // The server's children: redis-server and the workers (not a short-lived helper such as chrt).
  const pids = () => Object.fromEntries([['kcs serve', child.pid!], ...childrenOf(child.pid!).map((pid) => [nameOf(pid), pid]).filter(([name]) => !String(name).startsWith('child '))]);
  await settled(pids());
  const redisUrl = async () => {
    const url = await runningEmbeddedRedis(dataDir);
    if (!url) throw new Error(`no embedded redis-server answers for ${dataDir}`);
    return url;
  };
  return { port, host, key, pids, redisUrl, stop };
}

/**
 * Waits until the tree is idle (under a tenth of a core for half a second): the workers still load
 * and compile their modules (and the model) for a second or two after the server answers, and a
 * measurement started meanwhile would count that work.
 */
async function settled(pids: Record<string, number>): Promise<void> {
  await waitIdle(pids, { quietMs: 500, limitMs: 30_000 });
}
