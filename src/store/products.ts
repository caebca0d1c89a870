import { randomUUID } from 'node:crypto';
import { CHANGE_STREAM_MAXLEN, keys } from './keys.js';
import type { Store } from './redis.js';

/** A product's stored fields (the response less what is derived at read time). */
export interface StoredProduct {
  id: string;
  tenant_id: string;
  site_id: string;
  external_id: string | null;
  title: string;
  description: string | null;
  short_description: string | null;
  sku: string | null;
  gtin: string | null;
  brand: string | null;
  category: string | null;
  attributes: Record<string, unknown>;
  properties: Record<string, unknown>;
  price_current: string | null;
  price_msrp: string | null;
  price_special: string | null;
  price_on_request: boolean;
  currency: string;
  image_url: string | null;
  product_url: string | null;
  availability: string | null;
  additional_images: string[];
  rating_average: string | null;
  rating_count: number;
  language: string;
  translation_group_id: string | null;
  is_variant: boolean;
  is_parent: boolean;
  search_keywords: string[];
  has_similarity_anchor: boolean;
  source: string;
  sync_hash: string | null;
  created_at: string;
  updated_at: string;
}

/** The texts a product is embedded from; anchor is null without a similarity_text. */
export interface ProductTexts {
  description: string;
  properties: string;
  attributes: string;
  anchor: string | null;
}

/** What an upsert needs of the stored product. */
export interface ProductRecord {
  doc: StoredProduct;
  rev: string;
  parentExternalId: string | null;
  thash: string;
  synced: string | null;
  embeddingStatus: string;
}

export interface ProductWrite {
  doc: StoredProduct;
  parentExternalId: string | null;
  /** null: the texts did not change and are left as stored. */
  texts: ProductTexts | null;
  thash: string;
  embeddingStatus: string;
  synced: string;
  /** null: create. */
  previous: ProductRecord | null;
  /** A bulk item: its job and index, so the result is counted once whatever the retries. */
  jobItem?: { jobId: string; index: number };
}

export type WriteOutcome =
  | { kind: 'ok' }
  | { kind: 'stale' }
  | { kind: 'external_id_taken'; ownerId: string }
  | { kind: 'translation_group'; groupId: string };

const RECORD_FIELDS = ['doc', 'rev', 'pext', 'thash', 'synced', 'estatus'] as const;

function toRecord(values: (string | null)[]): ProductRecord | null {
  const [doc, rev, pext, thash, synced, estatus] = values;
  if (doc === null || rev === null) return null;
  return { doc: JSON.parse(doc) as StoredProduct, rev, parentExternalId: pext || null, thash: thash ?? '', synced, embeddingStatus: estatus ?? 'pending' };
}

export interface ProductFilter {
  siteId?: string;
  language?: string;
  category?: string;
}

export class ProductRepository {
  constructor(private readonly redis: Store) {}

  idByExternalId(tenantId: string, siteId: string, externalId: string): Promise<string | null> {
    return this.redis.hget(keys.siteExternalIds(tenantId, siteId), externalId);
  }

  /** Product ids for (site, external_id) pairs (null where none): one HMGET per site. */
  async idsByExternalIds(tenantId: string, pairs: { siteId: string; externalId: string }[]): Promise<(string | null)[]> {
    const out: (string | null)[] = new Array(pairs.length).fill(null);
    const bySite = new Map<string, number[]>();
    pairs.forEach((p, i) => {
      const indexes = bySite.get(p.siteId);
      if (indexes) indexes.push(i);
      else bySite.set(p.siteId, [i]);
    });
    await Promise.all(
      [...bySite].map(async ([siteId, indexes]) => {
        const ids = await this.redis.hmget(keys.siteExternalIds(tenantId, siteId), ...indexes.map((i) => pairs[i].externalId));
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
    return toRecord(await this.redis.hmget(keys.product(tenantId, id), ...RECORD_FIELDS));
  }

  /** Records of many products in one round trip (null where missing). */
  async getMany(tenantId: string, ids: string[]): Promise<(ProductRecord | null)[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hmget(keys.product(tenantId, id), ...RECORD_FIELDS);
    const results = (await pipeline.exec()) ?? [];
    return results.map(([error, values]) => {
      if (error) throw error;
      return toRecord(values as (string | null)[]);
    });
  }

  /** Parent product ids for (site, parent external_id) pairs, resolved now: a parent may arrive after its variants. */
  async parentIds(tenantId: string, pairs: { siteId: string; parentExternalId: string | null }[]): Promise<(string | null)[]> {
    const wanted = pairs.map((p, i) => ({ ...p, i })).filter((p) => p.parentExternalId);
    const out: (string | null)[] = pairs.map(() => null);
    if (wanted.length === 0) return out;
    const pipeline = this.redis.pipeline();
    for (const p of wanted) pipeline.hget(keys.siteExternalIds(tenantId, p.siteId), p.parentExternalId!);
    const results = (await pipeline.exec()) ?? [];
    wanted.forEach((p, k) => (out[p.i] = (results[k][1] as string | null) ?? null));
    return out;
  }

  write(tenantId: string, w: ProductWrite): Promise<WriteOutcome> {
    return this.writeMany(tenantId, [w]).then((r) => r[0]);
  }

  /** Writes in one pipeline; each write is atomic on its own. */
  async writeMany(tenantId: string, writes: ProductWrite[]): Promise<WriteOutcome[]> {
    const pipeline = this.redis.pipeline();
    for (const w of writes) {
      const t = tenantId;
      const doc = w.doc;
      const prev = w.previous?.doc;
      const job = w.jobItem;
      (pipeline as unknown as Store).writeProduct(
        keys.product(t, doc.id), keys.siteExternalIds(t, doc.site_id), keys.translationGroups(t), keys.products(t),
        keys.siteProducts(t, doc.site_id), keys.productsByLanguage(t, doc.language),
        doc.category !== null ? keys.productsByCategory(t, doc.category) : keys.products(t),
        keys.productsByLanguage(t, prev?.language ?? doc.language),
        prev?.category != null ? keys.productsByCategory(t, prev.category) : keys.products(t),
        keys.changes(t),
        job ? keys.jobResults(t, job.jobId) : keys.products(t), job ? keys.jobCounts(t, job.jobId) : keys.products(t),
        doc.id, w.previous?.rev ?? '', doc.external_id ?? '', prev?.external_id ?? '',
        // Only a new product claims its translation group; an existing one keeps the group it has.
        !w.previous && doc.external_id && doc.translation_group_id ? doc.translation_group_id : '',
        Date.parse(doc.created_at), CHANGE_STREAM_MAXLEN,
        doc.category !== null ? '1' : '0', prev?.category != null ? '1' : '0',
        job ? String(job.index) : '', w.previous ? 'updated' : 'created',
        'doc', JSON.stringify(doc), 'site', doc.site_id, 'pext', w.parentExternalId ?? '', 'synced', w.synced,
        'estatus', w.embeddingStatus, ...(w.texts ? ['texts', JSON.stringify(w.texts), 'thash', w.thash] : []),
      );
    }
    const results = (await pipeline.exec()) ?? [];
    return results.map(([error, value]) => {
      if (error) throw error;
      const [code, detail] = value as [number, string];
      if (code === 1) return { kind: 'ok' };
      if (code === -1) return { kind: 'external_id_taken', ownerId: detail };
      if (code === -3) return { kind: 'translation_group', groupId: detail };
      return { kind: 'stale' };
    });
  }

  /** Records syncs that changed nothing, in one pipeline; false where the product changed meanwhile. */
  async touchMany(tenantId: string, touches: { record: ProductRecord; synced: string; jobItem?: { jobId: string; index: number } }[]): Promise<boolean[]> {
    if (touches.length === 0) return [];
    const t = tenantId;
    const pipeline = this.redis.pipeline();
    for (const { record, synced, jobItem } of touches) {
      (pipeline as unknown as Store).touchProduct(
        keys.product(t, record.doc.id),
        jobItem ? keys.jobResults(t, jobItem.jobId) : keys.products(t),
        jobItem ? keys.jobCounts(t, jobItem.jobId) : keys.products(t),
        record.rev, synced, jobItem ? String(jobItem.index) : '',
      );
    }
    const results = (await pipeline.exec()) ?? [];
    return results.map(([error, value]) => {
      if (error) throw error;
      return value === 1;
    });
  }

  /** Records a sync that changed nothing; false when the product changed meanwhile. */
  async touch(tenantId: string, record: ProductRecord, synced: string, jobItem?: { jobId: string; index: number }): Promise<boolean> {
    const [ok] = await this.touchMany(tenantId, [{ record, synced, jobItem }]);
    return ok;
  }

  async delete(tenantId: string, doc: StoredProduct): Promise<boolean> {
    const t = tenantId;
    const result = await this.redis.deleteProduct(
      keys.product(t, doc.id), keys.siteExternalIds(t, doc.site_id), keys.products(t), keys.siteProducts(t, doc.site_id),
      keys.productsByLanguage(t, doc.language), doc.category !== null ? keys.productsByCategory(t, doc.category) : keys.products(t),
      keys.changes(t),
      doc.id, doc.external_id ?? '', doc.category !== null ? '1' : '0', CHANGE_STREAM_MAXLEN,
    );
    return result === 1;
  }

  /** Deletes every product of a (deleted) site, batch by batch, then its lookup keys. Idempotent. */
  async purgeSite(tenantId: string, siteId: string, batch = 500): Promise<number> {
    const index = keys.siteProducts(tenantId, siteId);
    let purged = 0;
    for (;;) {
      const ids = await this.redis.zrange(index, '0', String(batch - 1));
      if (ids.length === 0) break;
      const records = await this.getMany(tenantId, ids);
      await Promise.all(records.map((r, i) => (r ? this.delete(tenantId, r.doc) : this.redis.zrem(index, ids[i]))));
      purged += ids.length;
    }
    await this.redis.unlink(index, keys.siteExternalIds(tenantId, siteId));
    return purged;
  }

  /** A page of product ids in (created_at, id) order with the total, for any combination of filters. */
  async page(tenantId: string, filter: ProductFilter, offset: number, limit: number): Promise<{ ids: string[]; total: number }> {
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
