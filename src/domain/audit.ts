// Reading the tenant's audit log (written atomically with each entry write, see store/lua/writeEntry.lua).
import type { EntryRepository } from '../store/knowledge.js';

const orNull = (value: string | undefined) => (value ? value : null);

export class AuditLog {
  constructor(private readonly repo: EntryRepository) {}

  async events(tenantId: string, entity: { type: string; id: string } | null, before: string | null, limit: number) {
    const raw = await this.repo.audit(tenantId, entity, before, limit);
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
    }));
  }
}
