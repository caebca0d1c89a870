// Products in Redis: each a hash (its document, revision and embedding bookkeeping) with its
// lookup keys and list indexes, written in batched script calls (lua/writeProducts.lua), settled
// or touched without a rewrite where a sync changed nothing, read, paged and deleted.
import { randomUUID } from 'node:crypto';
import { auditArgs, auditKeys, type AuditActor, type AuditArgs } from './audit.js';
import { storedEmbeddingStatusOf, type Page } from './docs.js';
import { CHANGE_STREAM_MAXLEN, keys } from './keys.js';
import { KeyTable } from './keyTable.js';
import { settledOf, writeOutcomesOf, type Settled, type WriteOutcome } from './productAnswers.js';
import type {
  AnswerText, ItemSettlement, ProductFilter, ProductProjection, ProductRecord, ProductText, ProductTouch, ProductWrite, StoredProduct, TouchOutcome,
} from './products.js';
import { readOnlyScript, type Store } from './redis.js';
import type { ReplicaSet } from './replicaSet.js';
import { productTextsCall, touchProductsCall, writeProductsCall, type WriteProductsRow } from './scriptCalls.js';
import { TouchResult, WriteResult } from './scripts.js';

/** Products per script call: large enough to spread the call's cost, small enough to keep each call short. */
const WRITE_BATCH = 100;
/**
 * Items per settleItems call: it only reads and compares, a fraction of a write's work per item.
 * An item's three values stay arguments of their own: packing them as writeProducts' rows are
 * (store/packedRows.ts) does not make an unchanged import faster.
 */
const SETTLE_BATCH = 500;

/** Indexes of `items` grouped by `groupOf` (each group in item order). */
function groupBy<T>(items: T[], groupOf: (item: T, index: number) => string): number[][] {
  const groups = new Map<string, number[]>();
  items.forEach((item, k) => {
    const group = groupOf(item, k);
    const list = groups.get(group);
    if (list) list.push(k);
    else groups.set(group, [k]);
  });
  return [...groups.values()];
}

function memo<V>(map: Map<string, V>, key: string, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

const RECORD_FIELDS = ['doc', 'rev', 'parent_external_id', 'text_hash', 'embedding_status'] as const;

function toText(values: (string | null)[], synced: string | null): ProductText | null {
  const [json, rev, parentExternalId, textHash, embeddingStatus] = values;
  if (json === null || rev === null) return null;
  return { json, rev, parentExternalId: parentExternalId || null, textHash: textHash ?? '', synced, embeddingStatus: storedEmbeddingStatusOf(embeddingStatus) };
}

function toRecord(text: ProductText | null): ProductRecord | null {
  if (!text) return null;
  const { json, ...rest } = text;
  return { doc: JSON.parse(json) as StoredProduct, ...rest };
}

/** The outcome of each write of a writeMany pipeline; `order`: the index in the writes of each answer's product. */
async function writeOutcomes(pipeline: ReturnType<Store['pipeline']>, order: number[]): Promise<WriteOutcome[]> {
  const outcomes: WriteOutcome[] = new Array(order.length);
  let n = 0;
  for (const [error, value] of (await pipeline.exec()) ?? []) {
    if (error) throw error;
    for (const outcome of writeOutcomesOf(value as string[])) outcomes[order[n++]] = outcome;
  }
  return outcomes;
}

export class ProductRepository {
  constructor(
    private readonly redis: Store,
    /** Search fields written with each product (the Redis Query Engine's); null: none. */
    private readonly projection: ProductProjection | null = null,
    /** Replica reads: the replicas that may answer a page's documents (each holds every answered write). */
    private readonly readers: ReplicaSet | null = null,
  ) {}

  idByExternalId(tenantId: string, siteId: string, externalId: string): Promise<string | null> {
    return this.redis.hget(keys.siteExternalIds(tenantId, siteId), externalId);
  }

  /** Product ids for (site, external_id) pairs (null where none): one HMGET per site. */
  async idsByExternalIds(tenantId: string, pairs: { siteId: string; externalId: string }[]): Promise<(string | null)[]> {
    const out: (string | null)[] = new Array(pairs.length).fill(null);
    await Promise.all(
      groupBy(pairs, (p) => p.siteId).map(async (indexes) => {
        const ids = await this.redis.hmget(keys.siteExternalIds(tenantId, pairs[indexes[0]].siteId), ...indexes.map((i) => pairs[i].externalId));
        indexes.forEach((i, k) => (out[i] = ids[k]));
      }),
    );
    return out;
  }

  translationGroup(tenantId: string, externalId: string): Promise<string | null> {
    return this.redis.hget(keys.translationGroups(tenantId), externalId);
  }

  /** The tenant's translation groups of these external_ids (null where none), in one HMGET. */
  async translationGroupsOf(tenantId: string, externalIds: string[]): Promise<(string | null)[]> {
    if (externalIds.length === 0) return [];
    return this.redis.hmget(keys.translationGroups(tenantId), ...externalIds);
  }

  async get(tenantId: string, id: string): Promise<ProductRecord | null> {
    return (await this.getMany(tenantId, [id]))[0];
  }

  /**
   * Records of many products in one round trip (null where missing): auto-pipelined on one server;
   * on a cluster one command each, so that none reads a key as missing while the slot migrates
   * (store/redis.ts openClient).
   */
  async getMany(tenantId: string, ids: string[]): Promise<(ProductRecord | null)[]> {
    return (await this.getTexts(tenantId, ids)).map(toRecord);
  }

  /** Records of many products in one round trip, each document as stored (null where missing). */
  private async getTexts(tenantId: string, ids: string[]): Promise<(ProductText | null)[]> {
    if (ids.length === 0) return [];
    const [records, synced] = await Promise.all([
      Promise.all(ids.map((id) => this.redis.hmget(keys.product(tenantId, id), ...RECORD_FIELDS))),
      this.redis.hmget(keys.productsSynced(tenantId), ...ids),
    ]);
    return ids.map((_, i) => toText(records[i], synced[i]));
  }

  /**
   * What an answer shows of many products, in one command (lua/productTexts.lua): each document as
   * stored, its parent's external_id, embedding status and sync time (null where missing). One
   * script of the tenant's slot: while the slot migrates, the server has it wait (TRYAGAIN) rather
   * than read keys not moved yet as missing.
   */
  async answerTexts(tenantId: string, ids: string[]): Promise<(AnswerText | null)[]> {
    if (ids.length === 0) return [];
    const call = productTextsCall(keys.productsSynced(tenantId), ids.map((id) => keys.product(tenantId, id)), ids);
    const onMaster = () => this.redis.productTexts(...call);
    const flat = this.readers
      ? await this.readers.read(this.readers.masterOf(keys.tenant(tenantId)), (replica) => readOnlyScript(replica, 'productTexts', call) as Promise<(string | null)[]>, onMaster)
      : await onMaster();
    return ids.map((_, i) => {
      const json = flat[i * 4];
      if (json === null) return null;
      return { json, parentExternalId: flat[i * 4 + 1] || null, embeddingStatus: storedEmbeddingStatusOf(flat[i * 4 + 2] || null), synced: flat[i * 4 + 3] || null };
    });
  }

  /** Parent product ids for (site, parent external_id) pairs, resolved now: a parent may arrive after its variants. */
  async parentIds(tenantId: string, pairs: { siteId: string; parentExternalId: string | null }[]): Promise<(string | null)[]> {
    const wanted = pairs.map((p, i) => ({ ...p, i })).filter((p) => p.parentExternalId);
    const out: (string | null)[] = pairs.map(() => null);
    if (wanted.length === 0) return out;
    // One command each, as getMany.
    const results = await Promise.all(wanted.map((p) => this.redis.hget(keys.siteExternalIds(tenantId, p.siteId), p.parentExternalId!)));
    wanted.forEach((p, k) => (out[p.i] = results[k]));
    return out;
  }

  /**
   * Writes in script calls of up to WRITE_BATCH products of one site and job, pipelined; each
   * write is atomic on its own. A product whose stored revision is no longer `previous.rev` (or
   * that exists, on create) is not written (stale).
   */
  writeMany(tenantId: string, synced: string, writes: ProductWrite[]): Promise<WriteOutcome[]> {
    if (writes.length === 0) return Promise.resolve([]);
    // Only the order waits for the answers, not the documents (ProductService.upsertRound).
    const { pipeline, order } = this.writePipeline(tenantId, synced, writes);
    return writeOutcomes(pipeline, order);
  }

  /** The script calls of writeMany, and the index in `writes` of each product they answer for, in answer order. */
  private writePipeline(tenantId: string, synced: string, writes: ProductWrite[]): { pipeline: ReturnType<Store['pipeline']>; order: number[] } {
    const t = tenantId;
    const pipeline = this.redis.pipeline();
    const order: number[] = [];
    // An audited write is a call of its own, so that its event goes with it alone.
    for (const group of groupBy(writes, (w, k) => `${w.doc.site_id} ${w.jobItem?.jobId ?? ''} ${w.audit ? k : ''}`)) {
      const { site_id: siteId, id: firstId } = writes[group[0]].doc;
      const { jobItem: job, audit, previous: firstPrevious } = writes[group[0]];
      for (let start = 0; start < group.length; start += WRITE_BATCH) {
        const table = new KeyTable([
          keys.changes(t), keys.translationGroups(t), keys.products(t), keys.siteProducts(t, siteId), keys.siteExternalIds(t, siteId),
          keys.productsSynced(t), keys.productsItemDigests(t), keys.embeddingCounts(t),
          ...(job ? [keys.jobResults(t, job.jobId), keys.jobCounts(t, job.jobId)] : []),
        ]);
        // New keys of the table: their positions follow one another, as lua/lib/audit.lua needs.
        const auditRefs = audit ? auditKeys(t, 'product', firstId).map((key) => table.ref(key)) : [];
        // The position of each list index's key, worked out once per call.
        const languages = new Map<string, number>();
        const categories = new Map<string, number>();
        const language = (code: string) => memo(languages, code, () => table.ref(keys.productsByLanguage(t, code)));
        const category = (name: string | null) => (name === null ? 0 : memo(categories, name, () => table.ref(keys.productsByCategory(t, name))));
        const rows: WriteProductsRow[] = [];
        for (const k of group.slice(start, start + WRITE_BATCH)) {
          const w = writes[k];
          const { doc, previous } = w;
          const prev = previous?.doc;
          // An update touches only the indexes it moves between: a product keeps its site and created_at.
          const movedLanguage = !prev || prev.language !== doc.language;
          const movedCategory = !prev || prev.category !== doc.category;
          const leave = prev ? [movedLanguage ? language(prev.language) : 0, movedCategory ? category(prev.category) : 0].filter((ref) => ref !== 0) : [];
          order.push(k);
          rows.push({
            productRef: table.ref(keys.product(t, doc.id)), id: doc.id, expectedRev: previous?.rev ?? '',
            externalId: doc.external_id ?? '', previousExternalId: prev?.external_id ?? '',
            // Only a new product claims its translation group; an existing one keeps the group it has.
            claimGroup: !previous && doc.external_id && doc.translation_group_id ? doc.translation_group_id : '',
            createdMs: Date.parse(doc.created_at),
            joinLanguageRef: movedLanguage ? language(doc.language) : 0, joinCategoryRef: movedCategory ? category(doc.category) : 0,
            leaveRefs: leave, jobIndex: w.jobItem?.index ?? '', docJson: JSON.stringify(doc), parentExternalId: w.parentExternalId ?? '',
            embeddingStatus: w.embeddingStatus, textHash: w.textSources ? w.textHash : '',
            textSourcesJson: w.textSources && Object.keys(w.textSources).length > 0 ? JSON.stringify(w.textSources) : '',
            itemDigest: w.itemDigest ?? '',
            searchFields: this.projection
              ? {
                searchRef: table.ref(keys.productSearch(t, doc.id)), vectorsRef: table.ref(keys.productVectors(t, doc.id)), termsRef: table.ref(keys.productTerms(t)),
                fields: this.projection.product(doc, w.parentExternalId),
              }
              : null,
          });
        }
        (pipeline as unknown as Store).writeProducts(...writeProductsCall({
          keyTable: table.keys, maxlen: CHANGE_STREAM_MAXLEN, syncedAt: synced, hasJob: !!job, rows,
          audit: audit ? { ref: auditRefs[0], event: auditArgs(audit, { action: firstPrevious ? 'update' : 'create', entityType: 'product', entityId: firstId }) } : null,
        }));
      }
    }
    return { pipeline, order };
  }

  /**
   * The bulk fast path for a re-sent catalogue, without reading a product: an item whose digest
   * (of its source and exact JSON text) is the one stored when its product was last applied cannot
   * change any stored field, so its sync time is recorded and its job item counted as unchanged.
   */
  async settleMany(tenantId: string, { siteId, jobId, synced, items }: ItemSettlement): Promise<Settled[]> {
    const t = tenantId;
    const pipeline = this.redis.pipeline();
    for (let start = 0; start < items.length; start += SETTLE_BATCH) {
      const batch: (string | number)[] = [];
      for (const item of items.slice(start, start + SETTLE_BATCH)) batch.push(item.externalId, item.itemDigest, item.index);
      (pipeline as unknown as Store).settleItems(
        keys.siteExternalIds(t, siteId), keys.productsSynced(t), keys.productsItemDigests(t), keys.jobResults(t, jobId), keys.jobCounts(t, jobId),
        keys.translationGroups(t), synced, ...batch,
      );
    }
    const out: Settled[] = [];
    for (const [error, value] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      for (const settled of settledOf(value as string[])) out.push(settled);
    }
    return out;
  }

  /**
   * Records syncs that changed nothing (the sync time; the job item counted once) while the
   * record's revision is still the one read, in batched script calls. Returns 'touched', 'differs',
   * or 'done' for a job item that already has a result.
   */
  async touchMany(tenantId: string, synced: string, touches: ProductTouch[]): Promise<TouchOutcome[]> {
    if (touches.length === 0) return [];
    const t = tenantId;
    const pipeline = this.redis.pipeline();
    const order: number[] = [];
    for (const group of groupBy(touches, (touch) => touch.jobItem?.jobId ?? '')) {
      const job = touches[group[0]].jobItem;
      for (let start = 0; start < group.length; start += WRITE_BATCH) {
        const table = new KeyTable([keys.productsSynced(t), keys.productsItemDigests(t), ...(job ? [keys.jobResults(t, job.jobId), keys.jobCounts(t, job.jobId)] : [])]);
        const rows = group.slice(start, start + WRITE_BATCH).map((k) => {
          const { id, expectedRev, itemDigest, jobItem } = touches[k];
          order.push(k);
          return { productRef: table.ref(keys.product(t, id)), id, expectedRev, itemDigest: itemDigest ?? '', jobIndex: jobItem?.index ?? ('' as const) };
        });
        (pipeline as unknown as Store).touchProducts(...touchProductsCall({ keyTable: table.keys, syncedAt: synced, hasJob: !!job, rows }));
      }
    }
    const outcomes: TouchOutcome[] = new Array(touches.length);
    let n = 0;
    for (const [error, value] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      for (const code of value as number[]) outcomes[order[n++]] = code === TouchResult.Touched ? 'touched' : code === TouchResult.Counted ? 'done' : 'differs';
    }
    return outcomes;
  }

  /** actor null: no audit event of its own (a product purged with its deleted site). */
  async delete(tenantId: string, doc: StoredProduct, actor: AuditActor | null): Promise<boolean> {
    const t = tenantId;
    // With an actor (a single delete) its audit event; without (the purge of a site) none.
    const event: ['1' | '0', ...AuditArgs] = actor ? ['1', ...auditArgs(actor, { action: 'delete', entityType: 'product', entityId: doc.id })] : ['0'];
    const result = await this.redis.deleteProduct(
      keys.product(t, doc.id), keys.siteExternalIds(t, doc.site_id), keys.products(t), keys.siteProducts(t, doc.site_id),
      keys.productsByLanguage(t, doc.language), doc.category !== null ? keys.productsByCategory(t, doc.category) : keys.products(t),
      keys.changes(t), keys.productsSynced(t), keys.productsItemDigests(t), ...auditKeys(t, 'product', doc.id), keys.embeddingCounts(t),
      keys.productSearch(t, doc.id), keys.productVectors(t, doc.id), keys.productTerms(t),
      doc.id, doc.external_id ?? '', doc.category !== null ? '1' : '0', CHANGE_STREAM_MAXLEN, ...event,
    );
    return result === WriteResult.Done;
  }

  /** Deletes every product of a (deleted) site, batch by batch, then its lookup keys. Idempotent. */
  async purgeSite(tenantId: string, siteId: string, batch = 500): Promise<number> {
    const index = keys.siteProducts(tenantId, siteId);
    let purged = 0;
    for (;;) {
      const ids = await this.redis.zrange(index, '0', String(batch - 1));
      if (ids.length === 0) break;
      const records = await this.getMany(tenantId, ids);
      await Promise.all(records.map((r, i) => (r ? this.delete(tenantId, r.doc, null) : this.redis.zrem(index, ids[i]))));
      purged += ids.length;
    }
    await this.redis.unlink(index, keys.siteExternalIds(tenantId, siteId));
    await this.redis.srem(keys.sitesPurging(tenantId), siteId);
    return purged;
  }

  /** A page of product ids in (created_at, id) order with the total, for any combination of filters. */
  async page(tenantId: string, filter: ProductFilter, { offset, limit }: Page): Promise<{ ids: string[]; total: number }> {
    const sets: string[] = [];
    if (filter.siteId) sets.push(keys.siteProducts(tenantId, filter.siteId));
    if (filter.language) sets.push(keys.productsByLanguage(tenantId, filter.language));
    if (filter.category !== undefined) sets.push(keys.productsByCategory(tenantId, filter.category));
    const stop = String(offset + limit - 1);
    if (sets.length <= 1) {
      const set = sets[0] ?? keys.products(tenantId);
      const [ids, total] = await Promise.all([this.redis.zrange(set, String(offset), stop), this.redis.zcard(set)]);
      return { ids, total };
    }
    // Several filters: intersect into a short-lived key of the tenant's slot; scores stay created ms.
    const tmp = `${keys.products(tenantId)}:tmp:${randomUUID()}`;
    const weights = sets.map((_, i) => (i === 0 ? '1' : '0'));
    const results = (await this.redis
      .multi()
      .zinterstore(tmp, sets.length, ...sets, 'WEIGHTS', ...weights)
      .zrange(tmp, String(offset), stop)
      .del(tmp)
      .exec()) ?? [];
    return { ids: results[1][1] as string[], total: results[0][1] as number };
  }
}
