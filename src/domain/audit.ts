// Reading the tenant's audit log (each write appends its event atomically, see store/audit.ts).
import type { AuditEntityType } from '../store/audit.js';
import type { AuditRepository } from '../store/auditLog.js';

const orNull = (value: string | undefined) => (value ? value : null);

export class AuditLog {
  constructor(private readonly repo: AuditRepository) {}

  /** Newest first; `filter` by entity type, entity id or both; `before`: an event id (exclusive). */
  async events(tenantId: string, filter: { type?: AuditEntityType; id?: string }, page: { before: string | null; limit: number }) {
    const raw = await this.repo.read(tenantId, filter, page);
    return raw.map(({ id, fields }) => ({
      id,
      at: new Date(Number(id.split('-')[0])).toISOString(),
      action: fields.action as 'create' | 'update' | 'delete',
      entity_type: fields.entity_type,
      entity_id: fields.entity_id,
      version: fields.version ? Number(fields.version) : null,
      user_id: orNull(fields.user_id),
      credential_id: orNull(fields.credential_id),
      client_id: orNull(fields.client_id),
      audit_source: fields.audit_source,
      ...(fields.details ? { details: JSON.parse(fields.details) as Record<string, unknown> } : {}),
    }));
  }
}
