// Where a tenant's FT commands go. On one server: that server. On a Redis Cluster: the master that
// owns the tenant's slot, where its documents and so its indexes are. The search module declares
// an FT command's index name as its key, but a cluster client knows no key positions for FT
// commands and would send them to any node: kcs computes the slot of the tenant's hash tag and
// picks the master from the client's slot map itself.
//
// A MOVED answer means the slot map is stale (a failover, a finished migration): it is read again.
// An ASK answer means the tenant's slot is being migrated: the master it goes to holds only the
// documents moved so far, so no search can be answered until it ends (UnavailableError: 503).
//
// With replica reads (store/replicaSet.ts), a search's FT commands go to a replica of that master
// that holds every answered write and whose copy of the index has read its documents; where none
// does, or the replica fails the command, to the master.
import calculateSlot from 'cluster-key-slot';
import { Cluster, type Redis } from 'ioredis';
import { keys } from '../../store/keys.js';
import type { RedisClient, Store } from '../../store/redis.js';
import type { ReplicaSet } from '../../store/replicaSet.js';
import { UnavailableError } from '../../store/unavailableError.js';
import { parseInfoReply } from './replies.js';

export type Args = (string | Buffer | number)[];

/** Redirections followed for one command before giving up (each one reads the slot map again). */
const MAX_MOVED = 3;

const redirect = (error: unknown, kind: 'MOVED' | 'ASK'): string | null =>
  error instanceof Error ? (new RegExp(`^${kind} \\d+ (\\S+)`).exec(error.message)?.[1] ?? null) : null;

const nodeKeyOf = (node: Redis): string => `${node.options.host}:${node.options.port}`;

export class IndexRouter {
  private readonly cluster: Cluster | null;
  /** Per replica connection, the indexes found done reading there. */
  private readonly readOn = new WeakMap<Redis, Set<string>>();

  constructor(
    private readonly redis: Store,
    private readonly replicas: ReplicaSet | null = null,
  ) {
    this.cluster = redis instanceof Cluster ? redis : null;
  }

  get clustered(): boolean {
    return this.cluster !== null;
  }

  /** The node key ("host:port") of the master of the tenant's slot, as the slot map says now ('server' on one server). */
  nodeKey(tenantId: string): string {
    if (!this.cluster) return 'server';
    const key = this.cluster.slots[slotOf(tenantId)]?.[0];
    if (!key) throw new UnavailableError(`no master is known for the slot of tenant ${tenantId}`);
    return key;
  }

  /** The connection to the master of the tenant's slot (the server itself on one server). */
  node(tenantId: string): RedisClient {
    return this.cluster ? this.nodeAt(this.nodeKey(tenantId)) : this.redis;
  }

  /** The slots a master owns as the slot map says now (null on one server: all of them). */
  slotsOf(node: RedisClient): Set<number> | null {
    if (!this.cluster) return null;
    const key = nodeKeyOf(node as Redis);
    const owned = new Set<number>();
    this.cluster.slots.forEach((nodes, slot) => nodes?.[0] === key && owned.add(slot));
    return owned;
  }

  /** Every master (the server itself on one server). */
  masters(): RedisClient[] {
    return this.cluster ? this.cluster.nodes('master') : [this.redis];
  }

  /**
   * An FT command about one of the tenant's indexes, on the master of its slot. `followMoved`: a
   * MOVED answer reads the slot map again and sends the command there; else it fails with an
   * UnavailableError (`moved`), so that the caller checks the indexes on the new master first.
   */
  async call(tenantId: string, args: Args, { followMoved = true } = {}): Promise<unknown> {
    if (!this.cluster) return this.redis.call(String(args[0]), ...args.slice(1));
    for (let redirections = 0; ; redirections++) {
      const node = this.node(tenantId);
      try {
        return await node.call(String(args[0]), ...args.slice(1));
      } catch (error) {
        const importing = redirect(error, 'ASK');
        if (importing) throw new UnavailableError(`the slot of tenant ${tenantId} is migrating to ${importing}`, { migratingTo: importing });
        if (!redirect(error, 'MOVED')) throw error;
        await this.refresh();
        if (!followMoved) throw new UnavailableError(`the slot of tenant ${tenantId} has moved`, { moved: true });
        if (redirections >= MAX_MOVED) throw error;
      }
    }
  }

  /**
   * A read-only FT command on one of the tenant's indexes: on a replica of its master where one may
   * answer (replica reads), else as `call` without following MOVED.
   */
  async read(tenantId: string, index: string, args: Args): Promise<unknown> {
    const onMaster = () => this.call(tenantId, args, { followMoved: false });
    if (!this.replicas) return onMaster();
    return this.replicas.read(this.nodeKey(tenantId), async (replica) => ((await this.indexReadOn(replica, index)) ? replica.call(String(args[0]), ...args.slice(1)) : undefined), onMaster);
  }

  /** A read of the tenant's keys: on a replica of its master where one may answer (replica reads), else through the app's client. */
  readKeys<T>(tenantId: string, read: (c: RedisClient) => Promise<T>): Promise<T> {
    if (!this.replicas) return read(this.redis);
    return this.replicas.read(this.nodeKey(tenantId), read, () => read(this.redis));
  }

  /** Whether the replica's copy of the index has read every document (its own scan of a new index may still run). */
  private async indexReadOn(replica: Redis, index: string): Promise<boolean> {
    let done = this.readOn.get(replica);
    if (done?.has(index)) return true;
    if (Number(parseInfoReply(await replica.call('FT.INFO', index)).get('indexing') ?? 0) !== 0) return false;
    if (!done) this.readOn.set(replica, (done = new Set()));
    done.add(index);
    return true;
  }

  /** A command on the master a migration moves a slot to (ASKING first: it does not own the slot yet). */
  async callImporting(nodeKey: string, args: Args): Promise<unknown> {
    const node = this.nodeAt(nodeKey);
    // One pipeline: ASKING holds for the next command on the connection, and nothing may come between.
    const [asking, reply] = (await node.pipeline().asking().call(String(args[0]), ...args.slice(1)).exec()) ?? [];
    if (asking?.[0]) throw asking[0];
    if (reply?.[0]) throw reply[0];
    return reply?.[1];
  }

  /** Reads the slot map again. */
  refresh(): Promise<void> {
    const cluster = this.cluster;
    if (!cluster) return Promise.resolve();
    return new Promise((done) => cluster.refreshSlotsCache(() => done()));
  }

  private nodeAt(nodeKey: string): Redis {
    const node = this.cluster!.nodes('all').find((n) => nodeKeyOf(n) === nodeKey);
    if (!node) {
      void this.refresh();
      throw new UnavailableError(`no connection to cluster node ${nodeKey} yet`);
    }
    return node;
  }
}

/** The slot of every key of a tenant. */
export const slotOf = (tenantId: string): number => calculateSlot(keys.tenant(tenantId));
