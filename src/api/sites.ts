import { Type } from '@sinclair/typebox';
import type { SiteService } from '../domain/sites.js';
import { defineRoute, json, noContent, type Route } from '../http/route.js';
import { actorOf } from './actor.js';
import { Site, SiteCreate, SiteIdParams, SiteUpdate } from '../schemas/sites.js';

const BASE = '/api/knowledge/sites';
const tags = ['sites'];

export function siteRoutes(sites: SiteService): Route[] {
  return [
    defineRoute({
      method: 'POST', path: BASE, tags, summary: 'Create a site',
      description: 'The first site of a tenant becomes its default; is_default: true moves the default here.',
      auth: { scopes: ['catalog:write'] },
      body: SiteCreate,
      responses: { 201: { description: 'Created', schema: Site } },
      errors: [409],
      handler: async ({ tenant, principal, body, req }) => json(201, await sites.create(tenant.id, body, actorOf(principal, req))),
    }),
    defineRoute({
      method: 'GET', path: BASE, tags, summary: 'List all sites of the tenant',
      description: 'Ordered by creation time.',
      auth: { scopes: ['catalog:read'] },
      responses: { 200: { description: 'All sites', schema: Type.Array(Site) } },
      handler: async ({ tenant }) => json(200, await sites.list(tenant.id)),
    }),
    defineRoute({
      method: 'GET', path: `${BASE}/:site_id`, tags, summary: 'Get a site by UUID or slug',
      auth: { scopes: ['catalog:read'] },
      params: SiteIdParams,
      responses: { 200: { description: 'The site', schema: Site } },
      handler: async ({ tenant, params }) => json(200, await sites.get(tenant.id, params.site_id)),
    }),
    defineRoute({
      method: 'PUT', path: `${BASE}/:site_id`, tags, summary: 'Update a site (partial)',
      description: 'Only provided fields change; config is replaced, not merged; slug and language are ignored. ' +
        'null for name, site_type, config or is_default means no change. is_default: false on the default site is a 409.',
      auth: { scopes: ['catalog:write'] },
      params: SiteIdParams,
      body: SiteUpdate,
      responses: { 200: { description: 'The updated site', schema: Site } },
      errors: [409],
      handler: async ({ tenant, principal, params, body, req }) => json(200, await sites.update(tenant.id, params.site_id, { changes: body, actor: actorOf(principal, req) })),
    }),
    defineRoute({
      method: 'DELETE', path: `${BASE}/:site_id`, tags, summary: 'Delete a site and, in the background, its products',
      description: 'The site is gone from reads at once. Deleting the default site makes the oldest remaining site the default.',
      auth: { scopes: ['catalog:write'] },
      params: SiteIdParams,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ tenant, principal, params, req }) => {
        await sites.delete(tenant.id, params.site_id, actorOf(principal, req));
        return noContent();
      },
    }),
  ];
}
