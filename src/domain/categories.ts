import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { CategoryCreate, CategoryUpdate } from '../schemas/categories.js';
import { SYSTEM_ACTOR, type AuditActor } from '../store/audit.js';
import type { CategoryRepository, CategoryWriteResult, StoredCategory } from '../store/categories.js';
import { ConflictError, InvalidError, NotFoundError } from './errors.js';

export type CategoryNode = StoredCategory & { children: CategoryNode[] };

const MAX_CAS_ATTEMPTS = 16;
const byOrder = (a: StoredCategory, b: StoredCategory) =>
  a.sort_order - b.sort_order || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);

/** Turns a refused write into the error the caller sees. */
function refuse(result: Exclude<CategoryWriteResult, 'ok' | 'stale'>): never {
  switch (result) {
    case 'missing':
      throw new NotFoundError('Category not found');
    case 'no_parent':
      throw InvalidError.at(['parent_id'], 'Parent category not found');
    case 'cycle':
      throw InvalidError.at(['parent_id'], 'A category cannot be moved below itself or its descendants');
    case 'has_children':
      throw new ConflictError('The category has child categories; move or delete them first');
    case 'has_entries':
      throw new ConflictError('The category still has knowledge entries; move or delete them first');
  }
}

export class CategoryService {
  constructor(private readonly repo: CategoryRepository) {}

  async create(tenantId: string, input: Static<typeof CategoryCreate>, actor: AuditActor = SYSTEM_ACTOR): Promise<StoredCategory> {
    const now = new Date().toISOString();
    const category: StoredCategory = {
      id: randomUUID(),
      tenant_id: tenantId,
      name: input.name,
      description: input.description ?? null,
      parent_id: input.parent_id?.toLowerCase() ?? null,
      sort_order: input.sort_order ?? 0,
      created_at: now,
      updated_at: now,
    };
    const result = await this.repo.create(category, actor);
    if (result !== 'ok') refuse(result as Exclude<CategoryWriteResult, 'ok' | 'stale'>);
    return category;
  }

  async get(tenantId: string, id: string): Promise<StoredCategory> {
    return (await this.load(tenantId, id)).category;
  }

  async exists(tenantId: string, id: string): Promise<boolean> {
    return (await this.repo.getRaw(tenantId, id.toLowerCase())) !== null;
  }

  /** All categories, or the direct children of one, in (sort_order, created_at, id) order. */
  async list(tenantId: string, parentId?: string): Promise<StoredCategory[]> {
    if (parentId !== undefined) {
      await this.load(tenantId, parentId);
      return (await this.repo.children(tenantId, parentId.toLowerCase())).sort(byOrder);
    }
    return (await this.repo.list(tenantId)).sort(byOrder);
  }

  /** The categories nested under `children`; below `parentId` when given, else from the top level. */
  async tree(tenantId: string, parentId?: string): Promise<CategoryNode[]> {
    const all = (await this.repo.list(tenantId)).sort(byOrder);
    const nodes = new Map<string, CategoryNode>(all.map((c) => [c.id, { ...c, children: [] }]));
    const roots: CategoryNode[] = [];
    for (const node of nodes.values()) {
      const parent = node.parent_id ? nodes.get(node.parent_id) : undefined;
      if (parent) parent.children.push(node);
      else roots.push(node);
    }
    if (parentId === undefined) return roots;
    const start = nodes.get(parentId.toLowerCase());
    if (!start) throw new NotFoundError('Category not found');
    return start.children;
  }

  async update(
    tenantId: string, id: string, { changes, actor = SYSTEM_ACTOR }: { changes: Static<typeof CategoryUpdate>; actor?: AuditActor },
  ): Promise<StoredCategory> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const { category, raw } = await this.load(tenantId, id);
      const next: StoredCategory = {
        ...category,
        name: changes.name ?? category.name,
        description: changes.description !== undefined ? changes.description : category.description,
        parent_id: changes.parent_id !== undefined ? (changes.parent_id?.toLowerCase() ?? null) : category.parent_id,
        sort_order: changes.sort_order ?? category.sort_order,
        updated_at: new Date().toISOString(),
      };
      if (next.parent_id === category.id) refuse('cycle');
      const result = await this.repo.replace({ doc: category, raw }, next, actor);
      if (result === 'ok') return next;
      if (result !== 'stale') refuse(result);
    }
    throw new ConflictError('The category is being changed concurrently; retry');
  }

  async delete(tenantId: string, id: string, actor: AuditActor = SYSTEM_ACTOR): Promise<void> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const { category, raw } = await this.load(tenantId, id);
      const result = await this.repo.delete(category, raw, actor);
      if (result === 'ok') return;
      if (result !== 'stale') refuse(result);
    }
    throw new ConflictError('The category is being changed concurrently; retry');
  }

  private async load(tenantId: string, id: string) {
    const raw = await this.repo.getRaw(tenantId, id.toLowerCase());
    if (raw === null) throw new NotFoundError('Category not found');
    return { category: JSON.parse(raw) as StoredCategory, raw };
  }
}
