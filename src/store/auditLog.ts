// The tenant's audit log (DESIGN §2): events appended in a MULTI or with an audited delete, and
// read back newest first. The event itself, and its form as script arguments, is store/audit.ts.
import type { ChainableCommander } from 'ioredis';
import { auditArgs, auditKeys, type AuditEntityType, type AuditEntry } from './audit.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';
import { WriteResult } from './scripts.js';

/** Queues the event in a MULTI, so that it is written with the MULTI's other commands or not at all. */
export function appendAudit(multi: ChainableCommander, tenantId: string, { actor, event }: AuditEntry): ChainableCommander {
  return (multi as unknown as Store).appendAudit(...auditKeys(tenantId, event.entityType, event.entityId), ...auditArgs(actor, event)) as unknown as ChainableCommander;
}

/** Deletes a document key and its entry in a list index, with the event, when the document exists (lua/deleteAudited-5.lua). */
export async function deleteAudited(
  redis: Store, doc: { key: string; index: string; tenantId: string }, { actor, event }: AuditEntry,
): Promise<boolean> {
  const result = await redis.deleteAudited(
    doc.key, doc.index, ...auditKeys(doc.tenantId, event.entityType, event.entityId), event.entityId, ...auditArgs(actor, event),
  );
  return result === WriteResult.Done;
}

export interface RawAuditEvent {
  id: string;
  fields: Record<string, string>;
}

export class AuditRepository {
  constructor(private readonly redis: Store) {}

  /**
   * Events newest first, older than `before` when given: of one entity (its id is a UUID, so its
   * stream holds that entity's events only), of one entity type, or of the tenant.
   */
  async read(
    tenantId: string, filter: { type?: AuditEntityType; id?: string }, { before, limit }: { before: string | null; limit: number },
  ): Promise<RawAuditEvent[]> {
    const key = filter.id ? keys.auditOf(tenantId, filter.id) : filter.type ? keys.auditOfType(tenantId, filter.type) : keys.audit(tenantId);
    const raw = await this.redis.xrevrange(key, before ? `(${before}` : '+', '-', 'COUNT', limit);
    const events = raw.map(([id, fields]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) f[fields[i]] = fields[i + 1];
      return { id, fields: f };
    });
    return filter.id && filter.type ? events.filter((e) => e.fields.entity_type === filter.type) : events;
  }
}
