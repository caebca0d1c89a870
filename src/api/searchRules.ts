// Search rules over HTTP (admin scope, DESIGN §6 merchandising): create or replace by id, read,
// list, delete. Product searches apply them from the next search in this process, within a second
// in every other (domain/tenantDocs.ts).
import { Type } from '@sinclair/typebox';
import type { SearchRuleService } from '../domain/searchRules.js';
import { defineRoute, json, noContent, type Route } from '../http/route.js';
import { SearchRule, SearchRuleIdParams, SearchRuleListQuery, SearchRuleWrite } from '../schemas/searchRules.js';
import { actorOf } from './actor.js';

const admin = { scopes: ['admin' as const] };
const tags = ['search-rules'];
const PATH = '/api/knowledge/search-rules';

export function searchRuleRoutes(rules: SearchRuleService): Route[] {
  return [
    defineRoute({
      method: 'GET', path: PATH, tags, summary: 'List search rules',
      description: 'Oldest first; site_id (UUID or slug) narrows the list to the rules of that site, query to the rules a search of it ' +
        'meets (in the order they apply; dates and enabled aside). X-Total-Count holds the total.',
      auth: admin,
      query: SearchRuleListQuery,
      responses: { 200: { description: 'Search rules', schema: Type.Array(SearchRule) } },
      errors: [404],
      handler: async ({ tenant, query }) => {
        const { items, total } = await rules.list(tenant.id, { siteId: query.site_id, query: query.query }, { offset: query.offset ?? 0, limit: query.limit ?? 50 });
        return json(200, items, { 'X-Total-Count': String(total) });
      },
    }),
    defineRoute({
      method: 'GET', path: `${PATH}/:id`, tags, summary: 'Read a search rule',
      auth: admin,
      params: SearchRuleIdParams,
      responses: { 200: { description: 'The rule', schema: SearchRule } },
      errors: [404],
      handler: async ({ tenant, params }) => json(200, await rules.get(tenant.id, params.id)),
    }),
    defineRoute({
      method: 'PUT', path: `${PATH}/:id`, tags, summary: 'Create or replace a search rule',
      description: 'For a query (match exact: the same words; contains: these words in a row within the query; case, diacritics and ' +
        'punctuation ignored) on a site (site_id UUID or slug; none: every search): pin products at positions (1 is the first hit; ' +
        'shown whatever the mode, sort and filters), hide products, add filters (both the search\'s and the rule\'s hold), only ' +
        'between active_from and active_until when given. A pinned product must exist (on the rule\'s site) → else 422 ' +
        'product_unknown at its place; a product is pinned once, at one position, and not also hidden. Several rules may apply to ' +
        'one search: exact ones first, then contains by length of phrase; a product hidden by one is not shown though another pins ' +
        `it. At most 10,000 rules a tenant. 201 when created, 200 when replaced.`,
      auth: admin,
      params: SearchRuleIdParams,
      body: SearchRuleWrite,
      responses: { 200: { description: 'Replaced', schema: SearchRule }, 201: { description: 'Created', schema: SearchRule } },
      handler: async ({ tenant, principal, params, body, req }) => {
        const { rule, created } = await rules.put(tenant.id, params.id, body, actorOf(principal, req));
        return json(created ? 201 : 200, rule);
      },
    }),
    defineRoute({
      method: 'DELETE', path: `${PATH}/:id`, tags, summary: 'Delete a search rule',
      auth: admin,
      params: SearchRuleIdParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [404],
      handler: async ({ tenant, principal, params, req }) => {
        await rules.delete(tenant.id, params.id, actorOf(principal, req));
        return noContent();
      },
    }),
  ];
}
