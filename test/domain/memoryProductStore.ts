// An in-memory ProductStore with the semantics of store/products.ts and its scripts, for unit
// tests of the product rules: revisions checked on write (a stale write is refused), one product
// per external_id and site, touches that only hold while the revision is the one expected, bulk
// items settled by their item digest, a job item counted once. `beforeWrite` lets a test change the store between a
// round's read and its write (a concurrent writer).
import type { ProductStore } from '../../src/domain/products.js';
import type { AnswerText, ItemSettlement, ProductRecord, ProductTouch, ProductWrite, Settled, TouchOutcome, WriteOutcome } from '../../src/store/products.js';

interface Row extends ProductRecord {
  itemDigest: string | null;
}

export class MemoryProductStore implements ProductStore {
  readonly rows = new Map<string, Row>();
  /** site id + external_id → product id. */
  private readonly externalIds = new Map<string, string>();
  private readonly groups = new Map<string, string>();
  /** Job item results: `<job id> <index>` → its first result. */
  readonly jobResults = new Map<string, string>();
  writes = 0;
  beforeWrite: (() => void) | null = null;

  async idByExternalId(_tenantId: string, siteId: string, externalId: string): Promise<string | null> {
    return this.externalIds.get(`${siteId} ${externalId}`) ?? null;
  }

  async idsByExternalIds(tenantId: string, pairs: { siteId: string; externalId: string }[]): Promise<(string | null)[]> {
    return Promise.all(pairs.map((p) => this.idByExternalId(tenantId, p.siteId, p.externalId)));
  }

  async translationGroupsOf(_tenantId: string, externalIds: string[]): Promise<(string | null)[]> {
    return externalIds.map((e) => this.groups.get(e) ?? null);
  }

  async get(_tenantId: string, id: string): Promise<ProductRecord | null> {
    const row = this.rows.get(id);
    return row ? structuredClone({ doc: row.doc, rev: row.rev, parentExternalId: row.parentExternalId, textHash: row.textHash, synced: row.synced, embeddingStatus: row.embeddingStatus }) : null;
  }

  async getMany(tenantId: string, ids: string[]): Promise<(ProductRecord | null)[]> {
    return Promise.all(ids.map((id) => this.get(tenantId, id)));
  }

  async answerTexts(tenantId: string, ids: string[]): Promise<(AnswerText | null)[]> {
    return (await this.getMany(tenantId, ids)).map((r) => {
      if (!r) return null;
      const { doc, ...rest } = r;
      return { ...rest, json: JSON.stringify(doc) };
    });
  }

  async parentIds(tenantId: string, pairs: { siteId: string; parentExternalId: string | null }[]): Promise<(string | null)[]> {
    return Promise.all(pairs.map((p) => (p.parentExternalId ? this.idByExternalId(tenantId, p.siteId, p.parentExternalId) : null)));
  }

  async writeMany(_tenantId: string, synced: string, writes: ProductWrite[]): Promise<WriteOutcome[]> {
    this.beforeWrite?.();
    this.beforeWrite = null;
    return writes.map((w) => {
      const current = this.rows.get(w.doc.id);
      if ((w.previous === null) !== (current === undefined) || (current && current.rev !== w.previous?.rev)) return { kind: 'stale' };
      const siteKey = (e: string) => `${w.doc.site_id} ${e}`;
      const owner = w.doc.external_id ? this.externalIds.get(siteKey(w.doc.external_id)) : undefined;
      if (owner && owner !== w.doc.id) return { kind: 'external_id_taken', ownerId: owner };
      if (w.previous?.doc.external_id && w.previous.doc.external_id !== w.doc.external_id) this.externalIds.delete(siteKey(w.previous.doc.external_id));
      if (w.doc.external_id) {
        this.externalIds.set(siteKey(w.doc.external_id), w.doc.id);
        if (!w.previous && w.doc.translation_group_id && !this.groups.has(w.doc.external_id)) this.groups.set(w.doc.external_id, w.doc.translation_group_id);
      }
      this.rows.set(w.doc.id, {
        doc: structuredClone(w.doc), rev: String(Number(current?.rev ?? 0) + 1), parentExternalId: w.parentExternalId,
        textHash: w.textSources ? w.textHash : (current?.textHash ?? ''), synced, embeddingStatus: w.embeddingStatus, itemDigest: w.itemDigest ?? null,
      });
      this.writes++;
      if (w.jobItem) this.count(w.jobItem, w.previous ? 'updated' : 'created');
      return { kind: 'ok' };
    });
  }

  async touchMany(_tenantId: string, synced: string, touches: ProductTouch[]): Promise<TouchOutcome[]> {
    return touches.map((t) => {
      const row = this.rows.get(t.id);
      if (t.jobItem && this.jobResults.has(`${t.jobItem.jobId} ${t.jobItem.index}`)) return 'done';
      if (!row || row.rev !== t.expectedRev) return 'differs';
      row.synced = synced;
      if (t.itemDigest) row.itemDigest = t.itemDigest;
      if (t.jobItem) this.count(t.jobItem, 'unchanged');
      return 'touched';
    });
  }

  async settleMany(_tenantId: string, { siteId, jobId, synced, items }: ItemSettlement): Promise<Settled[]> {
    return items.map((item) => {
      const id = this.externalIds.get(`${siteId} ${item.externalId}`);
      if (id === undefined) return { result: 'unsettled', id: null, group: this.groups.get(item.externalId) ?? null };
      const row = this.rows.get(id);
      if (!row) return { result: 'unsettled', id };
      const jobItem = { jobId, index: item.index };
      if (this.jobResults.has(`${jobId} ${item.index}`)) return { result: 'done', id };
      if (row.itemDigest !== item.itemDigest) return { result: 'unsettled', id };
      row.synced = synced;
      this.count(jobItem, 'unchanged');
      return { result: 'unchanged', id };
    });
  }

  async delete(): Promise<boolean> {
    throw new Error('not used by these tests');
  }

  async page(): Promise<{ ids: string[]; total: number }> {
    throw new Error('not used by these tests');
  }

  private count(item: { jobId: string; index: number }, result: string): void {
    const key = `${item.jobId} ${item.index}`;
    if (!this.jobResults.has(key)) this.jobResults.set(key, result);
  }
}
