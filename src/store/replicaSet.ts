// The replicas that may answer searches in place of their master (KCS_SEARCH_READS=replicas): on one
// server, the replicas its `INFO replication` lists; on a Redis Cluster, those of each master. Each
// poll reads the INFO replication of every master and of each of its replicas. A replica serves
// reads only while it holds every write that this or any other kcs process has answered:
//
// - Writes wait for every replica their master lists (store/replicaAck.ts asks `replicasOf`), so
//   a write confirmed in time is on each of them.
// - A write whose wait timed out is answered anyway, a whole wait timeout after it reached the
//   master. A replica serves only while the offset it has applied reaches its master's offset of
//   the poll before. A poll waits a sixth of a wait timeout for its answers and the next starts a
//   sixth later, so the poll before the last one a process finished began less than a wait timeout
//   ago: a replica still without such a write is out of service in every process before the write
//   is answered. In the process that saw the shortfall, the master's replicas stop at once, until
//   a poll finds them past it.
// - A replica first seen serves only after a whole wait timeout, so that every process counts it
//   in its waits first.
// A replica that fails a read is out until a later poll finds it well; one promoted, or whose link
// to its master is down, is out. Searches then go to the master.
import calculateSlot from 'cluster-key-slot';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisClient } from './redis.js';

export interface ReplicaSetOptions {
  /** The wait timeout of answered writes (KCS_WAIT_TIMEOUT_MS): the polls are timed by it. */
  waitTimeoutMs: number;
  /** Told of a poll that failed (the master's replicas stay out until one succeeds). */
  onError?: (error: Error, master: string) => void;
}

/** A replica of a master, as its INFO replication lists it. */
export interface ListedReplica {
  host: string;
  port: number;
  online: boolean;
}

export interface Replication {
  role: string;
  /** A master's replication offset; on a replica, the offset it has applied (-1: its link to the master is down). */
  offset: number;
  /** A master's replicas. */
  replicas: ListedReplica[];
}

interface Replica {
  key: string;
  connection: Redis;
  /** When this process first saw it listed (ms). */
  since: number;
  /** Whether the last poll found it holding what its master held a poll earlier. */
  current: boolean;
  /** A read failed on it: out until the next poll. */
  failed: boolean;
}

interface Master {
  replicas: Map<string, Replica>;
  /** The master's offset at the last poll. */
  offset: number;
  /** A wait fell short: the replicas serve again once past this offset (null: not suspended; -1: read it at the next poll). */
  suspendedUntil: number | null;
  /** Round-robin over its serving replicas, a turn per pass of the event loop. */
  turn: number;
  turning: boolean;
}

/** The fields of `INFO replication` kcs reads. */
export function parseReplication(info: string): Replication {
  const fields = new Map(info.split(/\r?\n/).map((line) => {
    const at = line.indexOf(':');
    return [line.slice(0, at), line.slice(at + 1)] as const;
  }));
  const replicas: ListedReplica[] = [];
  for (const [name, value] of fields) {
    if (!/^slave\d+$/.test(name)) continue;
    const parts = new Map(value.split(',').map((kv) => kv.split('=') as [string, string]));
    replicas.push({ host: parts.get('ip') ?? '', port: Number(parts.get('port')), online: parts.get('state') === 'online' });
  }
  const role = fields.get('role') ?? '';
  const offset = role === 'slave'
    ? (fields.get('master_link_status') === 'up' ? Number(fields.get('slave_repl_offset') ?? -1) : -1)
    : Number(fields.get('master_repl_offset') ?? 0);
  return { role, offset, replicas };
}

/** The promise's value, or a failure after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Errors of a replica rather than of the command: it is taken out of reads until a later poll. */
const REPLICA_TROUBLE = /^(LOADING|MOVED|ASK|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY|NOSCRIPT)|unknown index|no such index/i;

const nodeKeyOf = (node: Redis): string => `${node.options.host}:${node.options.port}`;

export class ReplicaSet {
  private readonly masters = new Map<string, Master>();
  private readonly pollMs: number;
  private readonly ageMs: number;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly redis: RedisClient,
    private readonly options: ReplicaSetOptions,
  ) {
    this.pollMs = Math.max(10, Math.min(250, Math.floor(options.waitTimeoutMs / 6)));
    this.ageMs = options.waitTimeoutMs;
  }

  /** Reads the masters' replicas once, then again every poll. */
  static async open(redis: RedisClient, options: ReplicaSetOptions): Promise<ReplicaSet> {
    const set = new ReplicaSet(redis, options);
    await set.poll();
    set.schedule();
    return set;
  }

  /** The master's key as the index router names it: its "host:port" on a cluster, 'server' on one server. */
  static masterKeyOf(redis: RedisClient, node: RedisClient): string {
    return redis instanceof Cluster ? nodeKeyOf(node as Redis) : 'server';
  }

  /** A connection to a replica of the master that may answer a read now (null: none; read the master). */
  reader(master: string): Redis | null {
    const m = this.masters.get(master);
    if (!m || m.suspendedUntil !== null) return null;
    const now = Date.now();
    const serving = [...m.replicas.values()].filter((r) => r.current && !r.failed && now - r.since >= this.ageMs && r.connection.status === 'ready');
    if (serving.length === 0) return null;
    // The reads of one pass go to one replica, in one write (auto-pipelining): spread a call at a
    // time, a search's commands cost both sides a write and a read more each.
    if (!m.turning) {
      m.turning = true;
      setImmediate(() => {
        m.turn++;
        m.turning = false;
      });
    }
    return serving[m.turn % serving.length].connection;
  }

  /** The master holding a key, as `reader` names it. */
  masterOf(key: string): string {
    return this.redis instanceof Cluster ? (this.redis.slots[calculateSlot(key)]?.[0] ?? 'unknown') : 'server';
  }

  /**
   * A read on a replica of the master where one may answer, else (none, `onReplica` answers
   * undefined, or the replica fails it) `onMaster`. A replica that fails other than by refusing
   * the command itself is taken out until a later poll.
   */
  async read<T>(master: string, onReplica: (replica: Redis) => Promise<T | undefined>, onMaster: () => Promise<T>): Promise<T> {
    const replica = this.reader(master);
    if (replica) {
      try {
        const answer = await onReplica(replica);
        if (answer !== undefined) return answer;
      } catch (error) {
        if (!(error instanceof Error) || error.name !== 'ReplyError' || REPLICA_TROUBLE.test(error.message)) this.failed(replica);
      }
    }
    return onMaster();
  }

  /** The replicas the master lists: a write waits for all of them. */
  replicasOf(master: string): number {
    return this.masters.get(master)?.replicas.size ?? 0;
  }

  /** A write to the master was answered before all its replicas confirmed it: they stop serving until past it. */
  shortfall(master: string): void {
    const m = this.masters.get(master);
    if (m) m.suspendedUntil = -1;
  }

  /** A read failed on this replica connection: it is out until a later poll finds it well. */
  failed(connection: Redis): void {
    for (const m of this.masters.values()) {
      for (const r of m.replicas.values()) if (r.connection === connection) r.failed = true;
    }
  }

  /** Waits for the poll under way (tests read the set after a change they made). */
  async settled(): Promise<void> {
    await this.polling;
    await (this.polling = this.poll());
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const m of this.masters.values()) for (const r of m.replicas.values()) r.connection.disconnect();
    this.masters.clear();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.polling = this.poll().finally(() => this.schedule());
    }, this.pollMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    const masters = this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis];
    const seen = new Set<string>();
    await Promise.all(masters.map(async (node) => {
      const key = ReplicaSet.masterKeyOf(this.redis, node);
      seen.add(key);
      const known = [...(this.masters.get(key)?.replicas.values() ?? [])];
      try {
        // A node that does not answer within a poll (a stopped process) counts as failed: the next poll comes on time.
        const [info, applied] = await Promise.all([
          within(node.info('replication'), this.pollMs),
          Promise.all(known.map((r) => within(r.connection.info('replication'), this.pollMs).then((i) => {
            const replica = parseReplication(i);
            return replica.role === 'slave' ? replica.offset : -1;
          }, () => -1))),
        ]);
        this.update(key, node as Redis, parseReplication(info), new Map(known.map((r, i) => [r.key, applied[i]])));
      } catch (error) {
        this.drop(key);
        this.options.onError?.(error as Error, key);
      }
    }));
    for (const key of this.masters.keys()) if (!seen.has(key)) this.drop(key);
  }

  /** `applied`: the offset each replica known before this poll has applied (-1: unknown, or not its master's replica now). */
  private update(key: string, node: Redis, replication: Replication, applied: Map<string, number>): void {
    if (this.closed) return;
    if (replication.role !== 'master') return this.drop(key);
    let m = this.masters.get(key);
    if (!m) this.masters.set(key, (m = { replicas: new Map(), offset: replication.offset, suspendedUntil: null, turn: 0, turning: false }));
    const listed = new Set<string>();
    for (const r of replication.replicas) {
      if (!r.online) continue;
      const rKey = `${r.host}:${r.port}`;
      listed.add(rKey);
      let replica = m.replicas.get(rKey);
      if (!replica) m.replicas.set(rKey, (replica = { key: rKey, connection: this.connect(node, r), since: Date.now(), current: false, failed: false }));
      // Everything the master held at the poll before (m.offset) is applied there.
      const offset = applied.get(rKey) ?? -1;
      replica.current = offset >= 0 && offset >= m.offset;
      replica.failed = false;
    }
    for (const [rKey, replica] of m.replicas) {
      if (listed.has(rKey)) continue;
      replica.connection.disconnect();
      m.replicas.delete(rKey);
    }
    if (m.suspendedUntil === -1) m.suspendedUntil = replication.offset;
    else if (m.suspendedUntil !== null && [...m.replicas.keys()].every((rKey) => (applied.get(rKey) ?? -1) >= m.suspendedUntil!)) m.suspendedUntil = null;
    m.offset = replication.offset;
  }

  private drop(key: string): void {
    const m = this.masters.get(key);
    if (!m) return;
    for (const r of m.replicas.values()) r.connection.disconnect();
    this.masters.delete(key);
  }

  /** A connection to a replica, with the master connection's credentials and TLS; it fails fast rather than queue. */
  private connect(master: Redis, r: ListedReplica): Redis {
    const { host: _h, port: _p, connectionName: _n, ...options } = master.options as RedisOptions;
    const connection = new Redis({
      ...options,
      host: r.host,
      port: r.port,
      connectionName: 'kcs-replica-reads',
      // A cluster's replica answers reads of its master's slots only after READONLY.
      readOnly: this.redis instanceof Cluster,
      lazyConnect: false,
      // Reads only: a redirection fails the read, which then goes to the master (no pipeline is resent elsewhere).
      enableAutoPipelining: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    connection.on('error', () => undefined); // a failed read sends the search to the master
    return connection;
  }
}
