import { Type } from '@sinclair/typebox';
import type { CategoryService } from '../domain/categories.js';
import { defineRoute, json, noContent, type Route } from '../http/route.js';
import { actorOf } from './actor.js';
import { Category, CategoryCreate, CategoryIdParams, CategoryListQuery, CategoryTreeNode, CategoryUpdate } from '../schemas/categories.js';

const BASE = '/api/knowledge/categories';
const tags = ['categories'];

export function categoryRoutes(categories: CategoryService): Route[] {
  return [
    defineRoute({
      method: 'GET', path: BASE, tags, summary: 'List categories',
      description: 'All categories, or the direct children of parent_id, ordered by (sort_order, created_at, id). ' +
        'tree=true nests children under `children` (below parent_id when given, else from the top level).',
      auth: { scopes: ['catalog:read'] },
      query: CategoryListQuery,
      responses: { 200: { description: 'Categories', schema: Type.Union([Type.Array(Category), Type.Array(CategoryTreeNode)]) } },
      errors: [404],
      handler: async ({ tenant, query }) =>
        json(200, query.tree ? await categories.tree(tenant.id, query.parent_id) : await categories.list(tenant.id, query.parent_id)),
    }),
    defineRoute({
      method: 'POST', path: BASE, tags, summary: 'Create a category',
      description: 'parent_id must name an existing category of the tenant (422 otherwise).',
      auth: { scopes: ['catalog:write'] },
      body: CategoryCreate,
      responses: { 201: { description: 'Created', schema: Category } },
      handler: async ({ tenant, principal, body, req }) => json(201, await categories.create(tenant.id, body, actorOf(principal, req))),
    }),
    defineRoute({
      method: 'GET', path: `${BASE}/:category_id`, tags, summary: 'Get a category',
      auth: { scopes: ['catalog:read'] },
      params: CategoryIdParams,
      responses: { 200: { description: 'The category', schema: Category } },
      handler: async ({ tenant, params }) => json(200, await categories.get(tenant.id, params.category_id)),
    }),
    defineRoute({
      method: 'PUT', path: `${BASE}/:category_id`, tags, summary: 'Update a category (partial)',
      description: 'Only provided fields change. parent_id: null moves it to the top level; a parent that does not exist ' +
        'or lies below the category itself is a 422.',
      auth: { scopes: ['catalog:write'] },
      params: CategoryIdParams,
      body: CategoryUpdate,
      responses: { 200: { description: 'The updated category', schema: Category } },
      errors: [409],
      handler: async ({ tenant, principal, params, body, req }) =>
        json(200, await categories.update(tenant.id, params.category_id, { changes: body, actor: actorOf(principal, req) })),
    }),
    defineRoute({
      method: 'DELETE', path: `${BASE}/:category_id`, tags, summary: 'Delete a category',
      description: 'A category that still has child categories or knowledge entries is a 409.',
      auth: { scopes: ['catalog:write'] },
      params: CategoryIdParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [409],
      handler: async ({ tenant, principal, params, req }) => {
        await categories.delete(tenant.id, params.category_id, actorOf(principal, req));
        return noContent();
      },
    }),
  ];
}
