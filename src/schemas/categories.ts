import { Type } from '@sinclair/typebox';
import { DateTime, MAX_INT, Nullable, Uuid } from './common.js';

export const CategoryCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Nullable(Type.String())),
    parent_id: Type.Optional(Nullable(Uuid())),
    sort_order: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_INT, default: 0 })),
  },
  { $id: 'CategoryCreate' },
);

/** Partial: only provided fields change. null for name or sort_order means "no change"; null parent_id moves to the top level. */
export const CategoryUpdate = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    description: Type.Optional(Nullable(Type.String())),
    parent_id: Type.Optional(Nullable(Uuid())),
    sort_order: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_INT }))),
  },
  { $id: 'CategoryUpdate' },
);

export const Category = Type.Object(
  {
    id: Uuid(),
    tenant_id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    parent_id: Nullable(Uuid()),
    sort_order: Type.Integer({ minimum: 0 }),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { $id: 'Category' },
);

export const CategoryTreeNode = Type.Recursive(
  (Self) => Type.Composite([Category, Type.Object({ children: Type.Array(Self) })]),
  { $id: 'CategoryTreeNode' },
);

export const CategoryListQuery = Type.Object({
  parent_id: Type.Optional(Uuid({ description: 'Only the direct children of this category' })),
  tree: Type.Optional(Type.Boolean({ default: false, description: 'Nest children under `children`, top-level categories first' })),
});

export const CategoryIdParams = Type.Object({ category_id: Uuid() });
