// A private master with replicas (Debian's redis-server, or a given build with a module: the Query
// Engine's) on free loopback ports, each in its own temp dir: for replica reads on one server.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface ReplicatedNode {
  port: number;
  process: ChildProcess;
}

export interface ReplicatedRedis {
  url: string;
  master: ReplicatedNode;
  replicas: ReplicatedNode[];
  /** A short-lived connection to a node, for a command of the test's own. */
  ask<T>(node: ReplicatedNode, run: (c: Redis) => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

export interface ReplicatedRedisOptions {
  replicas?: number;
  /** The redis-server binary (default: the one on PATH). */
  server?: string;
  /** A module every node loads (the search module). */
  module?: string;
}

const freePort = () =>
  new Promise<number>((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
  });

async function ask<T>(port: number, run: (c: Redis) => Promise<T>): Promise<T> {
  const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  c.on('error', () => undefined);
  try {
    await c.connect();
    return await run(c);
  } finally {
    c.disconnect();
  }
}

async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`replicated redis: timed out waiting for ${what}`);
}

/** A redis-server in `dir` on a free port (a replica of `replicaOf`, when given), once it answers. */
async function startNode(dir: string, options: ReplicatedRedisOptions, replicaOf: number | null): Promise<ReplicatedNode> {
  const port = await freePort();
  const nodeDir = join(dir, String(port));
  mkdirSync(nodeDir);
  const proc = spawn(options.server ?? 'redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', nodeDir, '--save', '', '--appendonly', 'no',
    '--logfile', join(nodeDir, 'redis.log'),
    ...(options.module ? ['--loadmodule', options.module] : []),
    ...(replicaOf === null ? [] : ['--replicaof', '127.0.0.1', String(replicaOf)]),
  ], { stdio: 'ignore' });
  const node = { port, process: proc };
  try {
    await until(`node ${port}`, () => ask(port, (c) => c.info('server').then((i) => i.includes(`process_id:${proc.pid}\r`))));
  } catch (error) {
    proc.kill('SIGKILL');
    throw error;
  }
  return node;
}

/** Replicas of the server at `masterPort` (loopback), once it lists them all online; `stop` kills them. */
export async function startReplicas(masterPort: number, options: ReplicatedRedisOptions = {}): Promise<{ replicas: ReplicatedNode[]; stop(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'kcs-replicas-'));
  const replicas: ReplicatedNode[] = [];
  const stop = () => {
    for (const n of replicas) n.process.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < (options.replicas ?? 2); i++) replicas.push(await startNode(dir, options, masterPort));
    const online = (info: string) => replicas.every((r) => info.includes(`port=${r.port},state=online`));
    await until('the replicas online', () => ask(masterPort, async (c) => online(await c.info('replication'))), 120_000);
    return { replicas, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

export async function startReplicatedRedis(options: ReplicatedRedisOptions = {}): Promise<ReplicatedRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'kcs-replicated-'));
  let master: ReplicatedNode | null = null;
  try {
    master = await startNode(dir, options, null);
    const { replicas, stop } = await startReplicas(master.port, options);
    const m = master;
    return {
      url: `redis://127.0.0.1:${m.port}`,
      master: m,
      replicas,
      ask: (node, run) => ask(node.port, run),
      async stop() {
        stop();
        m.process.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    master?.process.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
