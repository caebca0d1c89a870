// A private 6-node Redis Cluster (3 masters, one replica each) from Debian's redis-server on free
// loopback ports, each node in its own temp dir; used by the cluster suites and bench:ingest.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { RedisTarget } from '../../src/config.js';

export interface ClusterNode {
  port: number;
  process: ChildProcess;
}

export interface RedisCluster {
  target: RedisTarget & { kind: 'cluster' };
  nodes: ClusterNode[];
  /** The node that is master of a slot now. */
  masterOf(slot: number): Promise<ClusterNode>;
  /** Deletes every key (FLUSHALL on each master; the replicas follow). */
  flush(): Promise<void>;
  /** Waits until every slot has a master that answers and all live nodes agree (`cluster_state:ok`). */
  waitHealthy(ms?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface RedisClusterOptions {
  /** How long a master may be silent before its replica takes over (default 3000 ms). */
  nodeTimeoutMs?: number;
}

/** A port whose cluster bus port (port + 10000) is free as well. */
async function freeClusterPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await portFree(port)) && (await portFree(port + 10_000))) return port;
  }
}

const portFree = (port: number) =>
  new Promise<boolean>((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });

const client = (port: number) => {
  const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  c.on('error', () => undefined);
  return c;
};

async function ask<T>(port: number, run: (c: Redis) => Promise<T>): Promise<T> {
  const c = client(port);
  try {
    await c.connect();
    return await run(c);
  } finally {
    c.disconnect();
  }
}

async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`redis cluster: timed out waiting for ${what}`);
}

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'kcs-cluster-'));
  const nodes: ClusterNode[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      const port = await freeClusterPort();
      const nodeDir = join(dir, String(port));
      mkdirSync(nodeDir);
      const proc = spawn('redis-server', [
        '--port', String(port), '--bind', '127.0.0.1', '--dir', nodeDir,
        '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
        '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 3000),
        // Replicas take over without waiting for an old master's data age; a failover in the tests is a kill.
        '--cluster-replica-validity-factor', '0',
        '--appendonly', 'no', '--save', '', '--logfile', join(nodeDir, 'redis.log'),
      ], { stdio: 'ignore' });
      nodes.push({ port, process: proc });
    }
    for (const node of nodes) await until(`node ${node.port}`, 10_000, () => ask(node.port, async (c) => (await c.ping()) === 'PONG'));
    const create = spawnSync('redis-cli', [
      '--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes',
    ], { encoding: 'utf8', timeout: 60_000 });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${create.stdout}\n${create.stderr}`);
  } catch (error) {
    for (const n of nodes) n.process.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const live = () => nodes.filter((n) => n.process.exitCode === null && n.process.signalCode === null);
  const cluster: RedisCluster = {
    target: { kind: 'cluster', nodes: nodes.map((n) => ({ host: '127.0.0.1', port: n.port })), tls: false },
    nodes,
    async masterOf(slot) {
      for (const node of live()) {
        const slots = (await ask(node.port, (c) => c.cluster('SLOTS'))) as unknown as [number, number, [string, number]][];
        const range = slots.find(([from, to]) => slot >= from && slot <= to);
        if (range) return nodes.find((n) => n.port === range[2][1])!;
      }
      throw new Error(`no master for slot ${slot}`);
    },
    async flush() {
      for (const node of live()) {
        await ask(node.port, async (c) => {
          if (String(await c.role().then((r) => r[0])) === 'master') await c.flushall();
        });
      }
    },
    async waitHealthy(ms = 30_000) {
      await until('cluster_state:ok on every live node', ms, async () => {
        for (const node of live()) {
          const info = await ask(node.port, (c) => c.cluster('INFO'));
          if (!String(info).includes('cluster_state:ok')) return false;
        }
        return true;
      });
    },
    async stop() {
      await Promise.all(live().map((n) => {
        const exited = new Promise((done) => n.process.once('exit', done));
        n.process.kill('SIGKILL');
        return exited;
      }));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.waitHealthy();
  // And every master's replica known to the cluster (clients learn the replicas from CLUSTER SLOTS).
  // Every node is asked: a client reads the map from whichever node it reaches first, and a node
  // lists a replica only once it has heard (by gossip) that the replica has synced.
  await until('a replica for every master, as every node sees it', 30_000, async () => {
    for (const node of nodes) {
      const slots = (await ask(node.port, (c) => c.cluster('SLOTS'))) as unknown as unknown[][];
      if (slots.length === 0 || !slots.every((range) => range.length >= 4)) return false;
    }
    return true;
  });
  return cluster;
}
