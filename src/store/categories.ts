import { auditArgs, auditKeys, type AuditActor } from './audit.js';
import { listDocs } from './docs.js';
import { CHANGE_STREAM_MAXLEN, keys } from './keys.js';
import type { Store } from './redis.js';
import { WriteResult } from './scripts.js';

export interface StoredCategory {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  parent_id: string | null;
  sort_order: number;
  created_at: string;
  updated_at: string;
}

export type CategoryWriteResult = 'ok' | 'missing' | 'no_parent' | 'stale' | 'cycle' | 'has_children' | 'has_entries';

const RESULTS: Record<WriteResult, CategoryWriteResult> = {
  [WriteResult.Done]: 'ok', [WriteResult.Missing]: 'missing', [WriteResult.Refused]: 'no_parent', [WriteResult.Changed]: 'stale',
  [WriteResult.Cycle]: 'cycle', [WriteResult.HasEntries]: 'has_entries',
};

export class CategoryRepository {
  constructor(private readonly redis: Store) {}

  async create(category: StoredCategory, actor: AuditActor): Promise<CategoryWriteResult> {
    const t = category.tenant_id;
    const parent = category.parent_id;
    const result = await this.redis.createCategory(
      keys.category(t, category.id), keys.categories(t), keys.categoryParents(t),
      keys.category(t, parent ?? category.id), keys.categoryChildren(t, parent), keys.changes(t), ...auditKeys(t, 'category', category.id),
      category.id, JSON.stringify(category), Date.parse(category.created_at), parent ?? '', CHANGE_STREAM_MAXLEN,
      ...auditArgs(actor, { action: 'create', entityType: 'category', entityId: category.id }),
    );
    return RESULTS[result];
  }

  async replace(previous: { doc: StoredCategory; raw: string }, next: StoredCategory, actor: AuditActor): Promise<CategoryWriteResult> {
    const t = next.tenant_id;
    const result = await this.redis.updateCategory(
      keys.category(t, next.id), keys.categoryParents(t), keys.categoryChildren(t, previous.doc.parent_id),
      keys.categoryChildren(t, next.parent_id), keys.category(t, next.parent_id ?? next.id), keys.changes(t), ...auditKeys(t, 'category', next.id),
      next.id, previous.raw, JSON.stringify(next), next.parent_id ?? '', CHANGE_STREAM_MAXLEN,
      ...auditArgs(actor, { action: 'update', entityType: 'category', entityId: next.id }),
    );
    return RESULTS[result];
  }

  async delete(category: StoredCategory, expectedRaw: string, actor: AuditActor): Promise<CategoryWriteResult> {
    const t = category.tenant_id;
    const result = await this.redis.deleteCategory(
      keys.category(t, category.id), keys.categories(t), keys.categoryParents(t), keys.categoryChildren(t, category.id),
      keys.categoryChildren(t, category.parent_id), keys.categoryEntries(t, category.id), keys.changes(t), ...auditKeys(t, 'category', category.id),
      category.id, expectedRaw, CHANGE_STREAM_MAXLEN, ...auditArgs(actor, { action: 'delete', entityType: 'category', entityId: category.id }),
    );
    // The delete script refuses a category with children (create/update refuse a missing parent).
    return result === WriteResult.Refused ? 'has_children' : RESULTS[result];
  }

  getRaw(tenantId: string, id: string): Promise<string | null> {
    return this.redis.get(keys.category(tenantId, id));
  }

  async list(tenantId: string): Promise<StoredCategory[]> {
    return (await listDocs<StoredCategory>(this.redis, { indexKey: keys.categories(tenantId), docKey: (id) => keys.category(tenantId, id) })).items;
  }

  async children(tenantId: string, parentId: string): Promise<StoredCategory[]> {
    const ids = await this.redis.smembers(keys.categoryChildren(tenantId, parentId));
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(ids.map((id) => keys.category(tenantId, id)));
    return raws.filter((raw): raw is string => raw !== null).map((raw) => JSON.parse(raw) as StoredCategory);
  }
}
