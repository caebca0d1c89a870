import { Type } from '@sinclair/typebox';
import type { ProductService, UpsertOutcome } from '../domain/products.js';
import type { SiteService } from '../domain/sites.js';
import { defineRoute, json, noContent, type IncomingRequest, type Route } from '../http/route.js';
import { actorOf } from './actor.js';
import { Product, ProductCreate, ProductDeleteQuery, ProductIdParams, ProductListQuery, SiteQuery } from '../schemas/products.js';

const BASE = '/api/knowledge/products';
const tags = ['products'];

/** source: the X-Audit-Source of a gateway when given, else the channel. */
export const sourceOf = (req: IncomingRequest, channel: 'api' | 'bulk') => req.headers['x-audit-source']?.trim() || channel;

export function productRoutes(products: ProductService, sites: SiteService): Route[] {
  const answer = async (tenantId: string, outcome: UpsertOutcome) =>
    json(outcome.result === 'created' ? 201 : 200, await products.get(tenantId, outcome.id), { 'X-Upsert-Result': outcome.result });

  return [
    defineRoute({
      method: 'POST', path: BASE, tags, summary: 'Upsert a product by external_id',
      description: 'With an external_id that exists in the site the product is replaced (200), else created (201); ' +
        'X-Upsert-Result says created, updated or unchanged. A sync_hash equal to the stored one updates only the volatile ' +
        'fields (prices, price_on_request, currency, availability, rating_average, rating_count, image_url, additional_images, ' +
        'product_url) and last_synced_at, without re-embedding. Without a sync_hash the embedding texts are hashed and the ' +
        'product is re-embedded only when they change.',
      auth: { scopes: ['catalog:write'] },
      query: SiteQuery,
      body: ProductCreate,
      responses: { 201: { description: 'Created', schema: Product }, 200: { description: 'Updated or unchanged', schema: Product } },
      errors: [409],
      handler: async ({ tenant, principal, query, body, req }) => {
        const siteId = await sites.resolveId(tenant.id, query.site_id);
        return answer(tenant.id, await products.upsert(tenant.id, { siteId, input: body, source: sourceOf(req, 'api'), actor: actorOf(principal, req) }));
      },
    }),
    defineRoute({
      method: 'GET', path: BASE, tags, summary: 'List products',
      description: 'Filters site_id (UUID or slug; unknown → 404), language, category; ordered by (created_at, id); X-Total-Count holds the total.',
      auth: { scopes: ['catalog:read'] },
      query: ProductListQuery,
      responses: { 200: { description: 'A page of products', schema: Type.Array(Product) } },
      handler: async ({ tenant, query }) => {
        const siteId = query.site_id !== undefined ? await sites.resolveId(tenant.id, query.site_id) : undefined;
        const { items, total } = await products.list(
          tenant.id,
          { siteId, language: query.language, category: query.category },
          { offset: query.offset ?? 0, limit: query.limit ?? 50 },
        );
        return json(200, items, { 'X-Total-Count': String(total) });
      },
    }),
    defineRoute({
      method: 'DELETE', path: BASE, tags, summary: 'Delete a product by site and external_id (for connectors)',
      auth: { scopes: ['catalog:write'] },
      query: ProductDeleteQuery,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ tenant, principal, query, req }) => {
        const siteId = await sites.resolveId(tenant.id, query.site_id);
        await products.deleteByExternalId(tenant.id, { siteId, externalId: query.external_id }, actorOf(principal, req));
        return noContent();
      },
    }),
    defineRoute({
      method: 'GET', path: `${BASE}/:product_id`, tags, summary: 'Get a product',
      auth: { scopes: ['catalog:read'] },
      params: ProductIdParams,
      responses: { 200: { description: 'The product', schema: Product } },
      handler: async ({ tenant, params }) => json(200, await products.get(tenant.id, params.product_id)),
    }),
    defineRoute({
      method: 'PUT', path: `${BASE}/:product_id`, tags, summary: 'Replace a product',
      description: 'A full replace with a ProductCreate body; the same delta rules as the upsert apply. A new external_id ' +
        'that another product of the site has is a 409.',
      auth: { scopes: ['catalog:write'] },
      params: ProductIdParams,
      body: ProductCreate,
      responses: { 200: { description: 'The product', schema: Product } },
      errors: [409],
      handler: async ({ tenant, principal, params, body, req }) => {
        const outcome = await products.replace(tenant.id, params.product_id.toLowerCase(), { input: body, source: sourceOf(req, 'api'), actor: actorOf(principal, req) });
        return json(200, await products.get(tenant.id, outcome.id), { 'X-Upsert-Result': outcome.result });
      },
    }),
    defineRoute({
      method: 'DELETE', path: `${BASE}/:product_id`, tags, summary: 'Delete a product',
      auth: { scopes: ['catalog:write'] },
      params: ProductIdParams,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ tenant, principal, params, req }) => {
        await products.delete(tenant.id, params.product_id, actorOf(principal, req));
        return noContent();
      },
    }),
  ];
}
