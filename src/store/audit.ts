// The tenant's audit log (DESIGN §2): every write appends one event, in the same atomic step as the
// write. An event goes to three streams under one stream id: the tenant's, its entity type's and its
// entity's, so each filter reads one stream. A Lua write appends it with lua/lib/audit.lua (its
// ARGV holding `auditArgs`); a MULTI write with `appendAudit`, which runs the same code.
import type { ChainableCommander } from 'ioredis';
import type { AUDIT_ENTITY_TYPES } from '../schemas/knowledgeEntries.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';
import { WriteResult } from './scripts.js';

/** Who wrote: the user and credential, the OAuth client (from the token, never a header), the channel. */
export interface AuditActor {
  userId: string | null;
  credentialId: string | null;
  clientId: string | null;
  source: string;
}

/** Writes of the service itself and of operator tools (`kcs admin`, the first-start bootstrap). */
export const SYSTEM_ACTOR: AuditActor = { userId: null, credentialId: null, clientId: null, source: 'system' };

export type AuditEntityType = (typeof AUDIT_ENTITY_TYPES)[number];

export interface AuditEvent {
  action: 'create' | 'update' | 'delete';
  entityType: AuditEntityType;
  entityId: string;
  /** Counts and the like of a write that is not one document (a bulk job). */
  details?: Record<string, unknown>;
}

/** One audited write: who wrote, and what. */
export interface AuditEntry {
  actor: AuditActor;
  event: AuditEvent;
}

/** Stream lengths kept (approximate trimming): the tenant's, an entity type's, one entity's. */
const AUDIT_MAXLEN = { tenant: 1_000_000, type: 100_000, entity: 1000 };

/** The three streams an event of this entity goes to, in the order lua/lib/audit.lua expects. */
/** The three streams an event goes to: the tenant's, its entity type's, its entity's. */
export type AuditKeys = [tenant: string, entityType: string, entity: string];
/** An event as script arguments (auditArgs). */
export type AuditArgs = (string | number)[];

export const auditKeys = (tenantId: string, entityType: AuditEntityType, entityId: string): AuditKeys => [
  keys.audit(tenantId), keys.auditOfType(tenantId, entityType), keys.auditOf(tenantId, entityId),
];

/**
 * An event as script arguments: the three stream lengths, the number of field/value pairs, the
 * pairs. A script adds the `version` it wrote (see lua/lib/audit.lua).
 */
export function auditArgs(actor: AuditActor, event: AuditEvent): AuditArgs {
  const fields = [
    'action', event.action, 'entity_type', event.entityType, 'entity_id', event.entityId,
    'user_id', actor.userId ?? '', 'credential_id', actor.credentialId ?? '', 'client_id', actor.clientId ?? '', 'audit_source', actor.source,
    ...(event.details ? ['details', JSON.stringify(event.details)] : []),
  ];
  return [AUDIT_MAXLEN.tenant, AUDIT_MAXLEN.type, AUDIT_MAXLEN.entity, fields.length / 2, ...fields];
}

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
