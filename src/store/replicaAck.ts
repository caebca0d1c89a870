// Acknowledged writes survive the loss of a master: before a write is answered, WAIT until the
// master's replicas have it (Redis replication is asynchronous; without this a failover can lose
// the writes of the last few milliseconds). Durability costs one round trip per answered write.
import calculateSlot from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import type { RedisClient } from './redis.js';

export interface ReplicaAckOptions {
  /** Replicas that must have a write before it is answered (capped at those the slot has); 0: off. */
  replicas: number;
  /** How long to wait for them; a write still not replicated then is answered anyway (and reported). */
  timeoutMs: number;
  /** Told when fewer replicas than wanted confirmed in time. */
  onShortfall?: (event: { key: string; wanted: number; acknowledged: number }) => void;
}

export class ReplicaAck {
  constructor(
    private readonly redis: RedisClient,
    private readonly options: ReplicaAckOptions,
  ) {}

  get enabled(): boolean {
    return this.options.replicas > 0;
  }

  /**
   * Waits until the replicas of the node holding `key` have every write this client sent it. WAIT
   * counts the writes of the connection it is sent on: a pipeline with a command on `key` sends it
   * over the connection to that key's master, the one the writes went over.
   */
  async confirm(key: string): Promise<void> {
    const wanted = Math.min(this.options.replicas, this.replicasOf(key));
    if (wanted <= 0) return;
    const replies = await this.redis.pipeline().exists(key).call('WAIT', wanted, this.options.timeoutMs).exec();
    const [error, acknowledged] = replies?.[1] ?? [new Error('WAIT got no reply'), 0];
    if (error) throw error;
    if ((acknowledged as number) < wanted) this.options.onShortfall?.({ key, wanted, acknowledged: acknowledged as number });
  }

  /** The replicas the client knows for the key's slot (a cluster's slot map); on one server, as configured. */
  private replicasOf(key: string): number {
    if (!(this.redis instanceof Cluster)) return this.options.replicas;
    const nodes = this.redis.slots[calculateSlot(key)];
    return nodes ? nodes.length - 1 : 0;
  }
}
