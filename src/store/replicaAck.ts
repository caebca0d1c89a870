// Acknowledged writes survive the loss of a master: before a write is answered, WAIT until the
// master's replicas have it (Redis replication is asynchronous; without this a failover can lose
// the writes of the last few milliseconds).
//
// WAIT blocks the connection it is sent on, and counts the writes sent on that connection. So it
// runs on a connection of its own, after a small write there: every write another connection
// finished before lies below that write in the master's replication stream, and is covered. The
// callers that arrive while a round runs share the next one (a group commit per master).
import calculateSlot from 'cluster-key-slot';
import { Cluster, type Redis } from 'ioredis';
import { replicaAckMarkerKey } from './keys.js';
import type { RedisClient } from './redis.js';
import type { ReplicaSet } from './replicaSet.js';

export interface ReplicaAckOptions {
  /** Replicas that must have a write before it is answered (capped at those the slot has); 0: off. */
  replicas: number;
  /** How long to wait for them; a write still not replicated then is answered anyway (and reported). */
  timeoutMs: number;
  /** Told when fewer replicas than wanted confirmed in time. */
  onShortfall?: (event: { key: string; wanted: number; acknowledged: number }) => void;
  /** Replica reads: every replica of the master must have a write (and those that lack one stop serving). */
  readers?: ReplicaSet;
}

/** How long the marker written before each WAIT lives (it only moves the replication offset). */
const MARKER_TTL_MS = 10_000;

interface Round {
  promise: Promise<void>;
  /** A key on the master, whose hash tag the marker shares. */
  key: string;
  start: () => void;
}

export class ReplicaAck {
  /** Per master (its node key, or `server`): the round running, and the one its latecomers wait for. */
  private readonly running = new Map<string, Round>();
  private readonly waiting = new Map<string, Round>();

  private constructor(
    private readonly source: RedisClient,
    private readonly connection: RedisClient,
    private readonly options: ReplicaAckOptions,
  ) {}

  /** A connection of its own beside `redis` (the one whose writes it confirms). */
  static async open(redis: RedisClient, options: ReplicaAckOptions): Promise<ReplicaAck> {
    // (The two duplicate()s have signatures TypeScript cannot call through the union.)
    const connection = (redis as Redis).duplicate() as RedisClient;
    connection.on('error', () => undefined); // the app's own client reports outages
    // A duplicate of a lazy client waits to be connected; one of an eager client connects by itself.
    if (connection.status === 'wait') await connection.connect();
    else if (connection.status !== 'ready') await new Promise((ready) => connection.once('ready', ready));
    return new ReplicaAck(redis, connection, options);
  }

  /** Waits until the replicas of the master holding `key` have every write finished before the call. */
  async confirm(key: string): Promise<void> {
    if (this.wanted(key) <= 0) return;
    const node = this.masterOf(key);
    // A round already running may have written its marker before this caller's writes: wait for the next.
    let round = this.running.has(node) ? this.waiting.get(node) : undefined;
    if (!round) {
      round = this.round(node, key);
      if (this.running.has(node)) this.waiting.set(node, round);
      else round.start();
    }
    await round.promise;
  }

  close(): void {
    this.connection.disconnect();
  }

  private round(node: string, key: string): Round {
    let start!: () => void;
    const promise = new Promise<void>((resolve, reject) => {
      start = () => {
        this.running.set(node, round);
        this.waitForReplicas(key).then(resolve, reject).finally(() => {
          this.running.delete(node);
          const next = this.waiting.get(node);
          this.waiting.delete(node);
          next?.start();
        });
      };
    });
    const round: Round = { promise, key, start };
    return round;
  }

  private async waitForReplicas(key: string, retried = false): Promise<void> {
    const wanted = this.wanted(key);
    const replies = await this.connection.pipeline().set(replicaAckMarkerKey(key), '1', 'PX', MARKER_TTL_MS).call('WAIT', wanted, this.options.timeoutMs).exec();
    const error = replies?.find(([failed]) => failed)?.[0];
    if (error) {
      // A failover moved the slot: this connection's slot map is stale (a pipeline's MOVED does not
      // refresh it), so every later round would fail the same way. Read the map again, retry once.
      if (!retried && this.connection instanceof Cluster && /^(MOVED|ASK) /.test(error.message)) {
        const cluster = this.connection;
        await new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve()));
        return this.waitForReplicas(key, true);
      }
      throw error;
    }
    const acknowledged = Number(replies?.[1]?.[1] ?? 0);
    if (acknowledged < wanted) {
      this.options.readers?.shortfall(this.masterOf(key));
      this.options.onShortfall?.({ key, wanted, acknowledged });
    }
  }

  private wanted(key: string): number {
    const configured = Math.min(this.options.replicas, this.replicasOf(key));
    return this.options.readers ? Math.max(configured, this.options.readers.replicasOf(this.masterOf(key))) : configured;
  }

  /** The replicas the client knows for the key's slot (a cluster's slot map); on one server, as configured. */
  private replicasOf(key: string): number {
    if (!(this.source instanceof Cluster)) return this.options.replicas;
    const nodes = this.source.slots[calculateSlot(key)];
    return nodes ? nodes.length - 1 : 0;
  }

  private masterOf(key: string): string {
    return this.source instanceof Cluster ? (this.source.slots[calculateSlot(key)]?.[0] ?? 'unknown') : 'server';
  }
}
