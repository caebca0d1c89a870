// An audit event (DESIGN §2): who wrote what, and the form every write hands it on in. Every write
// appends one event, in the same atomic step as the write. An event goes to three streams under one
// stream id: the tenant's, its entity type's and its entity's, so each filter reads one stream. A
// Lua write appends it with lua/lib/audit.lua (its ARGV holding `auditArgs`); a MULTI write with
// `appendAudit` (store/auditLog.ts), which runs the same code.
import type { AUDIT_ENTITY_TYPES } from '../schemas/knowledgeEntries.js';
import { keys } from './keys.js';

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

/** The three streams an event goes to: the tenant's, its entity type's, its entity's (the order lua/lib/audit.lua expects). */
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
