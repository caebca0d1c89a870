// A tenant's collection of small JSON documents that every search reads (synonym sets, search
// rules): one hash of id → JSON, and a version counter every change bumps, so that a serve process
// knows with one GET whether its copy is current (domain/tenantDocs.ts). A collection has caps: a
// number of documents and, where documents differ in size (a synonym set's entries), a weight in
// all, kept per document in a hash beside them. The scripts that write check the caps in the same
// step, so concurrent writes cannot pass them together.
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AuditEntityType, AuditEvent } from './audit.js';
import { auditArgs, auditKeys, type AuditActor } from './audit.js';
import type { Store } from './redis.js';
import { WriteResult } from './scripts.js';

/** Where a collection lives, and what its audit events name. */
export interface VersionedPlace {
  docs: (tenantId: string) => string;
  version: (tenantId: string) => string;
  /** id → weight, and '*total' → their sum (collections with a weight cap). */
  weights: (tenantId: string) => string;
  entityType: AuditEntityType;
}

/** What a tenant may keep of a collection. */
export interface VersionedCaps<T> {
  docs: number;
  /** A document's weight and the most in all; none: documents are only counted. */
  weight?: { of: (doc: T) => number; max: number };
}

/** The outcome of a write that may pass a cap. */
export type CappedWrite<R> = { ok: R } | { over: 'docs' | 'weight' };

/** Documents per call: a slice of an import, a page of a read. */
export const SLICE = 1000;
const WEIGHT_TOTAL = '*total';
/** A staged copy left by a process that died before its swap goes by itself. */
const STAGED_TTL_MS = 15 * 60_000;
/** Swaps tried before an import gives up on a collection that keeps changing. */
const SWAP_ATTEMPTS = 3;

export class VersionedChangedError extends Error {
  constructor() {
    super('The collection kept changing while the import was written: send it again');
  }
}

export class VersionedDocs<T extends { id: string }> {
  constructor(
    private readonly redis: Store,
    private readonly place: VersionedPlace,
    readonly caps: VersionedCaps<T>,
  ) {}

  /**
   * Every document, read a page at a time and parsed between turns of the event loop, so that a
   * large collection holds up no other request. The pages are read while the version stays: a
   * change meanwhile starts the read again.
   */
  async all(tenantId: string): Promise<T[]> {
    for (;;) {
      const version = await this.version(tenantId);
      const docs = new Map<string, T>();
      let cursor = '0';
      do {
        const [next, flat] = await this.redis.hscan(this.place.docs(tenantId), cursor, 'COUNT', SLICE);
        // HSCAN may answer a field twice; the map keeps one.
        for (let i = 0; i < flat.length; i += 2) docs.set(flat[i], JSON.parse(flat[i + 1]) as T);
        cursor = next;
        if (cursor !== '0') await nextTurn();
      } while (cursor !== '0');
      if ((await this.version(tenantId)) === version) return [...docs.values()];
    }
  }

  async get(tenantId: string, id: string): Promise<T | null> {
    const raw = await this.redis.hget(this.place.docs(tenantId), id);
    return raw === null ? null : (JSON.parse(raw) as T);
  }

  /** The version of the tenant's documents (0: never changed). */
  async version(tenantId: string): Promise<number> {
    return Number((await this.redis.get(this.place.version(tenantId))) ?? 0);
  }

  /** How many documents the tenant keeps, and their weight in all. */
  async usage(tenantId: string): Promise<{ docs: number; weight: number }> {
    const [docs, weight] = await Promise.all([this.redis.hlen(this.place.docs(tenantId)), this.redis.hget(this.place.weights(tenantId), WEIGHT_TOTAL)]);
    return { docs, weight: Number(weight ?? 0) };
  }

  /** Creates or replaces a document (its audit event says which) within the caps. */
  async put(tenantId: string, doc: T, actor: AuditActor): Promise<CappedWrite<'created' | 'replaced'>> {
    const { entityType } = this.place;
    const { weight } = this.caps;
    const result = await this.redis.putVersionedDoc(
      this.place.docs(tenantId), this.place.version(tenantId), this.place.weights(tenantId), ...auditKeys(tenantId, entityType, doc.id),
      doc.id, JSON.stringify(doc), this.caps.docs, weight ? weight.of(doc) : '', weight?.max ?? '',
      ...auditArgs(actor, { action: 'create', entityType, entityId: doc.id }),
    );
    if (result < 0) return { over: result === -1 ? 'docs' : 'weight' };
    return { ok: result === 1 ? 'created' : 'replaced' };
  }

  /**
   * Adds new documents (an import) all or nothing, within the caps, with one audit event for
   * them all. Up to a slice they go in one script call. More are staged beside the collection a
   * slice per call (the collection as it is, then the new documents) and the copy takes its place
   * in one step (lua/swapVersionedDocs-8.lua): no call is long, so other tenants' requests are
   * served meanwhile. A change to the collection during the copy starts it again (a
   * VersionedChangedError after a few tries).
   */
  async addMany(tenantId: string, docs: T[], actor: AuditActor, event: AuditEvent): Promise<CappedWrite<number>> {
    if (docs.length === 0) return { ok: 0 };
    const weights = docs.map((d) => (this.caps.weight ? this.caps.weight.of(d) : null));
    const added = weights.reduce((sum: number, w) => sum + (w ?? 0), 0);
    const usage = await this.usage(tenantId);
    const over = this.over(usage.docs + docs.length, usage.weight + added);
    if (over) return { over };
    if (docs.length <= SLICE) return this.addSlice(tenantId, docs, weights, actor, event);
    for (let attempt = 0; attempt < SWAP_ATTEMPTS; attempt++) {
      const result = await this.stageAndSwap(tenantId, docs, weights, added, actor, event);
      if (result !== 'changed') return result;
    }
    throw new VersionedChangedError();
  }

  async delete(tenantId: string, id: string, actor: AuditActor): Promise<boolean> {
    const { entityType } = this.place;
    const result = await this.redis.deleteVersionedDoc(
      this.place.docs(tenantId), this.place.version(tenantId), this.place.weights(tenantId), ...auditKeys(tenantId, entityType, id),
      id, ...auditArgs(actor, { action: 'delete', entityType, entityId: id }),
    );
    return result === WriteResult.Done;
  }

  private over(docs: number, weight: number): 'docs' | 'weight' | null {
    if (docs > this.caps.docs) return 'docs';
    if (this.caps.weight && weight > this.caps.weight.max) return 'weight';
    return null;
  }

  private async addSlice(tenantId: string, docs: T[], weights: (number | null)[], actor: AuditActor, event: AuditEvent): Promise<CappedWrite<number>> {
    const rows = docs.flatMap((d, i) => [d.id, JSON.stringify(d), weights[i] ?? '']);
    const result = await this.redis.addVersionedDocs(
      this.place.docs(tenantId), this.place.version(tenantId), this.place.weights(tenantId), ...auditKeys(tenantId, event.entityType, event.entityId),
      this.caps.docs, this.caps.weight?.max ?? '', docs.length, ...rows, ...auditArgs(actor, event),
    );
    return result < 0 ? { over: result === -1 ? 'docs' : 'weight' } : { ok: docs.length };
  }

  private async stageAndSwap(
    tenantId: string, docs: T[], weights: (number | null)[], added: number, actor: AuditActor, event: AuditEvent,
  ): Promise<CappedWrite<number> | 'changed'> {
    const [docsKey, weightsKey] = [this.place.docs(tenantId), this.place.weights(tenantId)];
    const stage = randomUUID();
    const [stagedDocs, stagedWeights] = [`${docsKey}:staged:${stage}`, `${weightsKey}:staged:${stage}`];
    const version = await this.version(tenantId);
    const write = async (key: string, flat: string[]) => {
      if (flat.length > 0) await this.redis.multi().hset(key, ...flat).pexpire(key, STAGED_TTL_MS).exec();
    };
    try {
      // The collection as it is (its weights without their total, which the swap writes)…
      let weightTotal = added;
      for (const [from, to] of [[docsKey, stagedDocs], [weightsKey, stagedWeights]]) {
        let cursor = '0';
        do {
          const [next, flat] = await this.redis.hscan(from, cursor, 'COUNT', SLICE);
          const kept: string[] = [];
          for (let i = 0; i < flat.length; i += 2) {
            if (flat[i] === WEIGHT_TOTAL) continue;
            kept.push(flat[i], flat[i + 1]);
            if (from === weightsKey) weightTotal += Number(flat[i + 1]);
          }
          await write(to, kept);
          cursor = next;
        } while (cursor !== '0');
      }
      // …then the new documents.
      for (let at = 0; at < docs.length; at += SLICE) {
        const slice = docs.slice(at, at + SLICE);
        await write(stagedDocs, slice.flatMap((d) => [d.id, JSON.stringify(d)]));
        if (this.caps.weight) await write(stagedWeights, slice.flatMap((d, i) => [d.id, String(weights[at + i])]));
      }
      const result = await this.redis.swapVersionedDocs(
        docsKey, this.place.version(tenantId), weightsKey, stagedDocs, stagedWeights, ...auditKeys(tenantId, event.entityType, event.entityId),
        version, this.caps.docs, this.caps.weight ? weightTotal : '', this.caps.weight?.max ?? '', ...auditArgs(actor, event),
      );
      if (result === 0) return 'changed';
      return result < 0 ? { over: result === -1 ? 'docs' : 'weight' } : { ok: docs.length };
    } catch (error) {
      await this.redis.unlink(stagedDocs, stagedWeights).catch(() => undefined);
      throw error;
    }
  }
}
