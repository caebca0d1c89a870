// A private 6-node Redis Cluster (3 masters, one replica each) from Debian's redis-server (or a
// given build, with a module: the Query Engine's, queryEngineCluster below) on free loopback ports,
// each node in its own temp dir; used by the cluster suites and bench:ingest.
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
  /** The live nodes that are masters now. */
  masters(): Promise<ClusterNode[]>;
  /** Deletes every key (FLUSHALL on each master; the replicas follow) and every search index. */
  flush(): Promise<void>;
  /**
   * Moves a slot to another master as `redis-cli --cluster reshard` does: IMPORTING on the target,
   * MIGRATING on the source, MIGRATE of its keys `batch` at a time (`between` runs after each
   * batch), then the slot assigned to the target on every master.
   */
  migrateSlot(slot: number, to: ClusterNode, options?: { batch?: number; between?: () => Promise<void> }): Promise<void>;
  /** Waits until every slot has a master that answers and all live nodes agree (`cluster_state:ok`). */
  waitHealthy(ms?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface RedisClusterOptions {
  /** How long a master may be silent before its replica takes over (default 3000 ms). */
  nodeTimeoutMs?: number;
  /** The redis-server binary (default: the one on PATH). */
  server?: string;
  /** A module every node loads (the search module). */
  module?: string;
}

/**
 * The Query Engine build to run clusters of: KCS_TEST_QE_REDIS_SERVER (a redis-server binary) and
 * KCS_TEST_QE_MODULE (RediSearch built as a module, e.g. redisearch.so); null without them.
 */
export function queryEngineBuild(): { server: string; module: string } | null {
  const server = process.env.KCS_TEST_QE_REDIS_SERVER;
  const module = process.env.KCS_TEST_QE_MODULE;
  return server && module ? { server, module } : null;
}

export const SKIP_WITHOUT_QUERY_ENGINE_BUILD =
  'no Query Engine build for a cluster: set KCS_TEST_QE_REDIS_SERVER (redis-server) and KCS_TEST_QE_MODULE (redisearch.so) to run these (npm run test:rqe-cluster)';

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

function startNode(port: number, dir: string, options: RedisClusterOptions): ClusterNode {
  const nodeDir = join(dir, String(port));
  mkdirSync(nodeDir);
  const proc = spawn(options.server ?? 'redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', nodeDir,
    // A module that connects to the other nodes reads their addresses from the cluster's map.
    ...(options.module ? ['--loadmodule', options.module, '--cluster-announce-ip', '127.0.0.1'] : []),
    '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
    '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 3000),
    // Replicas take over without waiting for an old master's data age; a failover in the tests is a kill.
    '--cluster-replica-validity-factor', '0',
    '--appendonly', 'no', '--save', '', '--logfile', join(nodeDir, 'redis.log'),
  ], { stdio: 'ignore' });
  return { port, process: proc };
}

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'kcs-cluster-'));
  const nodes: ClusterNode[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      // A port probed free may be taken before the node binds it (other test files start servers
      // too): a node that exits at once is started again on another port.
      for (let attempt = 1; ; attempt++) {
        const node = startNode(await freeClusterPort(), dir, options);
        nodes.push(node);
        // Our process answers (not another server that took the port), or it has exited.
        const ours = (c: Redis) => c.info('server').then((info) => info.includes(`process_id:${node.process.pid}\r`));
        await until(`node ${node.port}`, 10_000, async () => node.process.exitCode !== null || (await ask(node.port, ours)));
        if (node.process.exitCode === null) break;
        nodes.pop();
        if (attempt === 3) throw new Error('redis cluster: a node exited at start three times');
      }
    }
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
    async masters() {
      const roles = await Promise.all(live().map((n) => ask(n.port, (c) => c.role()).then((r) => String(r[0]), () => null)));
      return live().filter((_, i) => roles[i] === 'master');
    },
    async flush() {
      for (const node of live()) {
        await ask(node.port, async (c) => {
          if (String(await c.role().then((r) => r[0])) !== 'master') return;
          await c.flushall();
          // The search module keeps its indexes across FLUSHALL; one left over would index the next file's keys.
          if (options.module) for (const index of (await c.call('FT._LIST')) as string[]) await c.call('FT.DROPINDEX', index).catch(() => undefined);
        });
      }
    },
    async migrateSlot(slot, to, { batch = 10, between } = {}) {
      const from = await cluster.masterOf(slot);
      if (from === to) return;
      const [fromId, toId] = await Promise.all([from, to].map((n) => ask(n.port, (c) => c.cluster('MYID') as Promise<string>)));
      await ask(to.port, (c) => c.cluster('SETSLOT', slot, 'IMPORTING', fromId));
      await ask(from.port, (c) => c.cluster('SETSLOT', slot, 'MIGRATING', toId));
      for (;;) {
        const keys = (await ask(from.port, (c) => c.cluster('GETKEYSINSLOT', slot, batch))) as string[];
        if (keys.length === 0) break;
        await ask(from.port, (c) => c.migrate('127.0.0.1', to.port, '', 0, 10_000, 'KEYS', ...keys));
        await between?.();
      }
      // The target first, then the source, then the others (as redis-cli does).
      for (const node of [to, from, ...live().filter((n) => n !== to && n !== from)]) {
        await ask(node.port, async (c) => {
          if (String(await c.role().then((r) => r[0])) === 'master') await c.cluster('SETSLOT', slot, 'NODE', toId);
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
