// Follows the stored documents of every tenant for a search engine: a full read at start (or when
// a tenant is first searched), then the tenant change streams. Each batch of changed documents is
// read in its current state and handed to the engine's sink, so applying a change twice is
// harmless and the order of stream entries within a batch does not matter.
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import type { Logger } from '../../log.js';
import { keys } from '../../store/keys.js';
import { allEntryIds } from '../../store/knowledgeEntries.js';
import type { Store } from '../../store/redis.js';
import { readHashesCall } from '../../store/scriptCalls.js';
import { vectorField } from '../../store/vectors.js';
import type { DocumentRef, EngineProgress } from '../engine.js';
import type { ServingModels } from '../servingModels.js';

/** Raw vectors of a document (float32 bytes), only those of the model its tenant is served with. */
export interface RawVectors {
  content?: Buffer;
  anchor?: Buffer;
}

/**
 * A document as read: its stored JSON unparsed (null: gone), parsed by the sink one document at a
 * time, so that a batch's parsed documents are not all alive at once.
 */
export type ChangedDoc =
  | { kind: 'product'; id: string; json: Buffer | null; parentExternalId: string | null; vectors: RawVectors }
  | { kind: 'entry'; id: string; json: Buffer | null; vectors: RawVectors };

/** Where a follower puts what it reads: the built-in engine's replica (the Redis Query Engine indexes the hashes themselves). */
export interface FollowerSink {
  apply(tenantId: string, docs: ChangedDoc[]): Promise<void> | void;
  /** A deleted site: its products go (their hashes are purged later by a maintenance job). */
  dropSite(tenantId: string, siteId: string): Promise<void> | void;
  /** The tenant is read again in full: what is applied goes aside, and search serves what it had until endReload. */
  beginReload(tenantId: string): void;
  /** The full read ended: its documents replace the tenant's (`ok`), or the tenant is forgotten (it is read again on next use). */
  endReload(tenantId: string, ok: boolean): void;
}

export interface ChangeFollowerOptions {
  /** Where what is read goes. */
  sink: FollowerSink;
  /** Which model's vectors each tenant is read with. */
  models: ServingModels;
}

/** The vectors search uses: a product's description vector, an entry's content vector, and the anchor. */
const CONTENT_VECTOR = { product: 'description', entry: 'content' } as const;
/** What a replica reads of a product's own hash (its vectors are in another). */
const PRODUCT_FIELDS = ['doc', 'parent_external_id', 'rev'];
/** Revisions applied by refresh and not yet passed by the tail, per tenant, at most (then forgotten). */
const MAX_REFRESHED = 10_000;
const LOAD_BATCH = 500;
/**
 * How long one blocking read of the change streams waits at most (one server). A tenant joining
 * the tail wakes it (wakeTail), so an idle process reads once in this long, whatever its number
 * of tenants: at 250 ms, 100 idle tenants cost the serve process ~10 ms of CPU a second.
 */
const TAIL_WAIT_MS = 10_000;
/** Cluster: the longest pause between reads while no changes come. */
const TAIL_BLOCK_MS = 250;
const TAIL_COUNT = 1000;
/** The wake stream outlives a process that stopped without removing it by this long at most. */
const WAKE_TTL_S = 3600;
/** On a cluster (reads without blocking): the pause after a read that found changes, growing to TAIL_BLOCK_MS while none come. */
const CLUSTER_POLL_MIN_MS = 20;

/** An XREAD reply: per stream, its entries (id, flat field/value list). */
type StreamReply = [string, [string, string[]][]][];

/** A tenant being followed: the stream position applied so far, and what refresh applied ahead of it. */
interface TenantState {
  position: string;
  /** The model whose vectors are read (null: none). */
  model: string | null;
  /** `<kind>:<id>` → revision refresh applied: the tail skips the change entries up to it. */
  refreshed: Map<string, number>;
}

export class ChangeFollower {
  /** Tenant → its state (once its initial read is done). */
  private readonly tenants = new Map<string, Promise<TenantState>>();
  /** Tenant → the model of the vectors its search serves, once a full read of it is done. */
  private readonly served = new Map<string, string | null>();
  /** Hash fields read per model and kind: the document, (products) the parent external_id, the vectors of the model, rev. */
  private readonly fields = new Map<string, { productVectors: string[]; entry: string[] }>();
  private tailer: Store | null = null;
  /** Cluster: the current pause between reads. */
  private pollMs = CLUSTER_POLL_MIN_MS;
  private closed = false;
  private tailing: Promise<void> | null = null;
  /** One server: the stream a joining tenant writes to, read with the change streams (and the last entry read of it). */
  private wake: { key: string; position: string } | null = null;
  /** Ends the wait of a tail that follows no tenant yet. */
  private joined: (() => void) | null = null;

  private readonly sink: FollowerSink;
  private readonly models: ServingModels;

  constructor(
    private readonly redis: Store,
    private readonly log: Logger,
    { sink, models }: ChangeFollowerOptions,
  ) {
    this.sink = sink;
    this.models = models;
  }

  /** Reads every tenant, then follows the change streams. */
  async start(onProgress?: (p: EngineProgress) => void): Promise<void> {
    const tenantIds = await this.redis.hvals(keys.tenantSlugs);
    const progress: EngineProgress = { tenants: tenantIds.length, tenantsLoaded: 0, documents: 0 };
    for (const tenantId of tenantIds) {
      const base = progress.documents;
      await this.tenant(tenantId, (n) => onProgress?.({ ...progress, documents: (progress.documents = base + n) }));
      progress.tenantsLoaded++;
      onProgress?.(progress);
    }
    if (!(this.redis instanceof Cluster)) {
      // Blocking reads get a connection of their own, connected before its first read: like the
      // app's client it refuses commands until ready.
      this.tailer = (this.redis as Exclude<Store, Cluster>).duplicate() as Store;
      await this.tailer.connect();
      this.wake = { key: keys.followerWake(randomUUID()), position: '0-0' };
    }
    this.tailing = this.tail();
  }

  /** Resolves once the tenant's documents have been read (reading them on first use; not again while a re-read runs). */
  async ensure(tenantId: string): Promise<void> {
    if (!this.served.has(tenantId)) await this.tenant(tenantId);
  }

  /** The model of the vectors the tenant is searched with now (null: none); the tenant must be ensured. */
  servedModel(tenantId: string): string | null {
    return this.served.get(tenantId) ?? null;
  }

  /** Applies documents just written by this process (read-your-writes). */
  async refresh(tenantId: string, changed: DocumentRef[]): Promise<void> {
    // A tenant not read yet reads these documents when it is.
    if (!this.tenants.has(tenantId)) return;
    const state = await this.tenants.get(tenantId)!;
    const revisions = await this.apply(tenantId, changed, state.model);
    if (state.refreshed.size + revisions.size > MAX_REFRESHED) state.refreshed.clear();
    for (const [key, rev] of revisions) state.refreshed.set(key, rev);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.joined?.();
    this.tailer?.disconnect();
    await this.tailing?.catch(() => undefined);
    if (this.wake) await this.redis.del(this.wake.key).catch(() => undefined);
  }

  private tenant(tenantId: string, onLoaded?: (documents: number) => void): Promise<TenantState> {
    let state = this.tenants.get(tenantId);
    if (!state) {
      state = this.load(tenantId, onLoaded);
      this.tenants.set(tenantId, state);
      state.then(() => this.wakeTail(), () => this.tenants.delete(tenantId));
    }
    return state;
  }

  /**
   * A tenant was read: the tail's blocking read ends, so that the next one follows it too. (Once
   * the wake stream's entry is written, a read already waiting returns, and one about to start
   * finds it unread.) Not needed before the tail starts, which follows every tenant read by then.
   */
  private wakeTail(): void {
    this.joined?.();
    if (!this.wake || !this.tailing) return;
    this.redis.multi().xadd(this.wake.key, 'MAXLEN', '1', '*', 'joined', '1').expire(this.wake.key, WAKE_TTL_S).exec()
      .catch((error: Error) => this.log.warn({ err: error.message }, 'could not wake the change stream tail; the tenant joins it within 10 s'));
  }

  private async load(tenantId: string, onLoaded?: (documents: number) => void): Promise<TenantState> {
    // The stream position first: changes made while reading are applied again by the tail (a
    // change of the tenant's model among them reads it again).
    const last = await this.redis.xrevrange(keys.changes(tenantId), '+', '-', 'COUNT', 1);
    const position = last[0]?.[0] ?? '0-0';
    const { modelId: model } = await this.models.of(tenantId);
    const productIds = await this.redis.zrange(keys.products(tenantId), '0', '-1');
    const entryIds = await allEntryIds(this.redis, tenantId);
    const refs: DocumentRef[] = [
      ...productIds.map((id) => ({ kind: 'product' as const, id })),
      ...entryIds.map((id) => ({ kind: 'entry' as const, id })),
    ];
    for (let i = 0; i < refs.length; i += LOAD_BATCH) {
      await this.apply(tenantId, refs.slice(i, i + LOAD_BATCH), model);
      onLoaded?.(Math.min(i + LOAD_BATCH, refs.length));
    }
    this.log.info({ tenantId, products: productIds.length, entries: entryIds.length, model }, 'search documents read');
    this.served.set(tenantId, model);
    return { position, model, refreshed: new Map() };
  }

  /**
   * True when the stream was trimmed past what this process applied (it fell more than the
   * stream's length behind): the missed changes are gone and the tenant must be read again.
   */
  private async trimmedPast(tenantId: string, position: string): Promise<boolean> {
    if (position === '0-0') return false;
    const first = await this.redis.xrange(keys.changes(tenantId), '-', '+', 'COUNT', 1);
    return first.length > 0 && streamIdBefore(position, first[0][0]);
  }

  /** Reads the tenant again in full, searched as before meanwhile; its writes wait for the new state. */
  private async reread(tenantId: string): Promise<void> {
    this.sink.beginReload(tenantId);
    const state = this.load(tenantId);
    this.tenants.set(tenantId, state);
    try {
      await state;
      this.sink.endReload(tenantId, true);
    } catch (error) {
      this.tenants.delete(tenantId);
      this.served.delete(tenantId);
      this.sink.endReload(tenantId, false);
      throw error;
    }
  }

  /**
   * Reads the documents' current state and hands it to the sink (null documents are gone); the
   * revisions of the documents it found, by `<kind>:<id>`.
   */
  private async apply(tenantId: string, refs: DocumentRef[], model: string | null): Promise<Map<string, number>> {
    const docs: ChangedDoc[] = [];
    const revisions = new Map<string, number>();
    for (const kind of ['product', 'entry'] as const) {
      const ids = [...new Set(refs.filter((r) => r.kind === kind).map((r) => r.id))];
      if (ids.length === 0) continue;
      // A product's vectors are in a hash of their own; an entry's after its doc.
      const { productVectors: vectorFields, entry } = this.fieldsOf(model);
      const docFields = kind === 'product' ? PRODUCT_FIELDS : entry;
      const hashKeys = ids.map((id) => (kind === 'product' ? keys.product(tenantId, id) : keys.entry(tenantId, id)));
      const [flat, flatVectors] = await Promise.all([
        this.redis.readHashesBuffer(...readHashesCall(hashKeys, docFields)),
        kind === 'product' && vectorFields.length > 0 ? this.redis.readHashesBuffer(...readHashesCall(ids.map((id) => keys.productVectors(tenantId, id)), vectorFields)) : [],
      ]);
      ids.forEach((id, i) => {
        const v = flat.slice(i * docFields.length, (i + 1) * docFields.length);
        const rev = v[docFields.length - 1];
        if (rev) revisions.set(`${kind}:${id}`, Number(rev));
        if (kind === 'product') {
          const vectors = vectorsAt(flatVectors.slice(i * 2, i * 2 + 2), 0, model);
          docs.push({ kind, id, json: v[0], parentExternalId: v[1]?.toString() || null, vectors });
        } else {
          docs.push({ kind, id, json: v[0], vectors: vectorsAt(v, 1, model) });
        }
      });
    }
    if (docs.length > 0) await this.sink.apply(tenantId, docs);
    return revisions;
  }

  private fieldsOf(model: string | null): { productVectors: string[]; entry: string[] } {
    let fields = this.fields.get(model ?? '');
    if (!fields) {
      const vectors = (kind: DocumentRef['kind']) => (model ? [vectorField(model, CONTENT_VECTOR[kind]), vectorField(model, 'anchor')] : []);
      fields = { productVectors: vectors('product'), entry: ['doc', ...vectors('entry'), 'rev'] };
      this.fields.set(model ?? '', fields);
    }
    return fields;
  }

  /** Follows every read tenant's change stream. */
  private async tail(): Promise<void> {
    while (!this.closed) {
      const states = await Promise.all([...this.tenants].map(async ([tenantId, s]) => ({ tenantId, state: await s.catch(() => null) })));
      const live = states.filter((s): s is { tenantId: string; state: TenantState } => s.state !== null);
      if (live.length === 0) {
        // Until a tenant is read (wakeTail).
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, TAIL_WAIT_MS);
          this.joined = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.joined = null;
        continue;
      }
      let reply: StreamReply;
      try {
        reply = await this.readChanges(live);
      } catch (error) {
        if (this.closed) return;
        this.log.warn({ err: (error as Error).message }, 'change stream read failed; retrying');
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      for (const [streamKey, entries] of reply) {
        const { tenantId, state } = live.find((l) => keys.changes(l.tenantId) === streamKey)!;
        const refs: DocumentRef[] = [];
        try {
          if (entries.length === TAIL_COUNT && (await this.trimmedPast(tenantId, state.position))) {
            this.log.warn({ tenantId }, 'change stream trimmed past this process; reading the tenant again');
            await this.reread(tenantId);
            continue;
          }
          const changes = entries.map(([, fields]) => fieldsOf(fields));
          // A re-embed finished: the tenant is read again with its new model's vectors.
          const model = changes.find((c) => c.op === 'model')?.model;
          if (model !== undefined && model !== state.model) {
            this.log.info({ tenantId, from: state.model, to: model }, 'the tenant\'s vectors are of another model now; reading it again');
            await this.reread(tenantId);
            continue;
          }
          for (const change of changes) {
            if (change.kind === 'product' || change.kind === 'entry') {
              for (const doc of documentsOf(change)) if (!appliedByRefresh(state, change.op, doc)) refs.push(doc.ref);
            }
            else if (change.kind === 'site' && change.op === 'delete') await this.sink.dropSite(tenantId, change.id);
          }
          // A batch write's entry names up to 100 products: read them in batches, as at start.
          for (let i = 0; i < refs.length; i += LOAD_BATCH) await this.apply(tenantId, refs.slice(i, i + LOAD_BATCH), state.model);
          state.position = entries[entries.length - 1][0];
        } catch (error) {
          this.log.warn({ err: (error as Error).message, tenantId }, 'applying changes failed; retrying');
        }
      }
    }
  }

  /**
   * The next entries of the streams. One server: one blocking XREAD over all of them. A cluster
   * refuses a read across slots and can block on one slot's streams only, so each tenant's stream
   * is read without blocking (the reads of one node share a round trip), pausing between rounds:
   * 20 ms after one with changes, doubling up to TAIL_BLOCK_MS while there are none.
   */
  private async readChanges(live: { tenantId: string; state: TenantState }[]): Promise<StreamReply> {
    if (this.tailer && this.wake) {
      const wake = this.wake;
      const reply = ((await this.tailer.xread(
        'COUNT', TAIL_COUNT, 'BLOCK', TAIL_WAIT_MS,
        'STREAMS', ...live.map((l) => keys.changes(l.tenantId)), wake.key, ...live.map((l) => l.state.position), wake.position,
      )) ?? []) as StreamReply;
      // The wake stream's entries only end the wait.
      const woken = reply.find(([key]) => key === wake.key)?.[1];
      if (woken?.length) wake.position = woken[woken.length - 1][0];
      return reply.filter(([key]) => key !== wake.key);
    }
    const replies = await Promise.all(
      live.map((l) => this.redis.xread('COUNT', TAIL_COUNT, 'STREAMS', keys.changes(l.tenantId), l.state.position)),
    );
    const reply = replies.flatMap((r) => (r ?? []) as StreamReply);
    this.pollMs = reply.length > 0 ? CLUSTER_POLL_MIN_MS : Math.min(TAIL_BLOCK_MS, this.pollMs * 2);
    await new Promise((r) => setTimeout(r, this.pollMs));
    return reply;
  }
}

/** A changed document with the revision the change wrote (undefined where the entry carries none). */
interface ChangedRef {
  ref: DocumentRef;
  rev?: number;
}

/** The documents of a change entry: one (`id`, `rev`), or a batch write's (`ids`, `revs`, comma-separated). */
function documentsOf(change: Record<string, string>): ChangedRef[] {
  const kind = change.kind as DocumentRef['kind'];
  if (change.ids === undefined) return [{ ref: { kind, id: change.id }, rev: change.rev ? Number(change.rev) : undefined }];
  const revs = change.revs?.split(',');
  return change.ids.split(',').map((id, i) => ({ ref: { kind, id }, rev: revs?.[i] ? Number(revs[i]) : undefined }));
}

/** Whether refresh already applied this change (or a later one of the document); forgets it once passed. */
function appliedByRefresh(state: TenantState, op: string, { ref, rev }: ChangedRef): boolean {
  if (op !== 'upsert' || rev === undefined) return false;
  const key = `${ref.kind}:${ref.id}`;
  const applied = state.refreshed.get(key);
  if (applied === undefined) return false;
  if (rev >= applied) state.refreshed.delete(key);
  return rev <= applied;
}

/** The model's content and anchor vectors, read at position `at` of a document's values. */
function vectorsAt(values: (Buffer | null)[], at: number, model: string | null): RawVectors {
  if (!model) return {};
  const [content, anchor] = [values[at], values[at + 1]];
  return { content: content?.length ? content : undefined, anchor: anchor?.length ? anchor : undefined };
}

/** Stream ids compare by milliseconds, then sequence. */
function streamIdBefore(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am < bm || (am === bm && as < bs);
}

function fieldsOf(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]] = flat[i + 1];
  return out;
}
