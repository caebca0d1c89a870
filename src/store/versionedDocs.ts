// A tenant's collection of small JSON documents that every search reads (synonym sets, search
// rules): one hash of id → JSON, and a version counter every change bumps, so that a serve process
// knows with one GET whether its copy is current (domain/tenantDocs.ts).
import type { AuditEntityType } from './audit.js';
import { auditArgs, auditKeys, type AuditActor } from './audit.js';
import { appendAudit } from './auditLog.js';
import type { Store } from './redis.js';
import { WriteResult } from './scripts.js';

/** Where a collection lives, and what its audit events name. */
export interface VersionedPlace {
  docs: (tenantId: string) => string;
  version: (tenantId: string) => string;
  entityType: AuditEntityType;
}

export class VersionedDocs<T extends { id: string }> {
  constructor(
    private readonly redis: Store,
    private readonly place: VersionedPlace,
  ) {}

  async all(tenantId: string): Promise<T[]> {
    const raw = await this.redis.hvals(this.place.docs(tenantId));
    return raw.map((json) => JSON.parse(json) as T);
  }

  async get(tenantId: string, id: string): Promise<T | null> {
    const raw = await this.redis.hget(this.place.docs(tenantId), id);
    return raw === null ? null : (JSON.parse(raw) as T);
  }

  /** The version of the tenant's documents (0: never changed). */
  async version(tenantId: string): Promise<number> {
    return Number((await this.redis.get(this.place.version(tenantId))) ?? 0);
  }

  /** Creates or replaces a document (its audit event says which); 'created' or 'replaced'. */
  async put(tenantId: string, doc: T, actor: AuditActor): Promise<'created' | 'replaced'> {
    const { entityType } = this.place;
    const result = await this.redis.putVersionedDoc(
      this.place.docs(tenantId), this.place.version(tenantId), ...auditKeys(tenantId, entityType, doc.id),
      doc.id, JSON.stringify(doc), ...auditArgs(actor, { action: 'create', entityType, entityId: doc.id }),
    );
    return result === 1 ? 'created' : 'replaced';
  }

  /** Creates new documents (an import) in one step, an audit event each, the version bumped once. */
  async createMany(tenantId: string, docs: T[], actor: AuditActor): Promise<void> {
    if (docs.length === 0) return;
    const { entityType } = this.place;
    let multi = this.redis.multi().hset(this.place.docs(tenantId), ...docs.flatMap((d) => [d.id, JSON.stringify(d)]));
    for (const doc of docs) multi = appendAudit(multi, tenantId, { actor, event: { action: 'create', entityType, entityId: doc.id } });
    await multi.incr(this.place.version(tenantId)).exec();
  }

  async delete(tenantId: string, id: string, actor: AuditActor): Promise<boolean> {
    const { entityType } = this.place;
    const result = await this.redis.deleteVersionedDoc(
      this.place.docs(tenantId), this.place.version(tenantId), ...auditKeys(tenantId, entityType, id),
      id, ...auditArgs(actor, { action: 'delete', entityType, entityId: id }),
    );
    return result === WriteResult.Done;
  }
}
