// A tenant's synonym sets: one hash of set id → JSON, and a version counter every change bumps,
// so that a serve process knows with one GET whether its copy is current (domain/synonyms.ts).
import type { Static } from '@sinclair/typebox';
import type { SynonymSet } from '../schemas/synonyms.js';
import { auditArgs, auditKeys, type AuditActor } from './audit.js';
import { appendAudit } from './auditLog.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';
import { WriteResult } from './scripts.js';

export type StoredSynonymSet = Static<typeof SynonymSet>;

export class SynonymRepository {
  constructor(private readonly redis: Store) {}

  async all(tenantId: string): Promise<StoredSynonymSet[]> {
    const raw = await this.redis.hvals(keys.synonyms(tenantId));
    return raw.map((json) => JSON.parse(json) as StoredSynonymSet);
  }

  async get(tenantId: string, id: string): Promise<StoredSynonymSet | null> {
    const raw = await this.redis.hget(keys.synonyms(tenantId), id);
    return raw === null ? null : (JSON.parse(raw) as StoredSynonymSet);
  }

  /** The version of the tenant's sets (0: never changed). */
  async version(tenantId: string): Promise<number> {
    return Number((await this.redis.get(keys.synonymsVersion(tenantId))) ?? 0);
  }

  /** Creates or replaces a set (its audit event says which); 'created' or 'replaced'. */
  async put(tenantId: string, set: StoredSynonymSet, actor: AuditActor): Promise<'created' | 'replaced'> {
    const result = await this.redis.putSynonymSet(
      keys.synonyms(tenantId), keys.synonymsVersion(tenantId), ...auditKeys(tenantId, 'synonym_set', set.id),
      set.id, JSON.stringify(set), ...auditArgs(actor, { action: 'create', entityType: 'synonym_set', entityId: set.id }),
    );
    return result === 1 ? 'created' : 'replaced';
  }

  /** Creates new sets (an import) in one step, an audit event each, the version bumped once. */
  async createMany(tenantId: string, sets: StoredSynonymSet[], actor: AuditActor): Promise<void> {
    if (sets.length === 0) return;
    let multi = this.redis.multi().hset(keys.synonyms(tenantId), ...sets.flatMap((s) => [s.id, JSON.stringify(s)]));
    for (const set of sets) multi = appendAudit(multi, tenantId, { actor, event: { action: 'create', entityType: 'synonym_set', entityId: set.id } });
    await multi.incr(keys.synonymsVersion(tenantId)).exec();
  }

  async delete(tenantId: string, id: string, actor: AuditActor): Promise<boolean> {
    const result = await this.redis.deleteSynonymSet(
      keys.synonyms(tenantId), keys.synonymsVersion(tenantId), ...auditKeys(tenantId, 'synonym_set', id),
      id, ...auditArgs(actor, { action: 'delete', entityType: 'synonym_set', entityId: id }),
    );
    return result === WriteResult.Done;
  }
}
