import { Type } from '@sinclair/typebox';
import { parseIfMatch, type Caller, type KnowledgeEntryService } from '../domain/knowledgeEntries.js';
import type { Principal } from '../domain/types.js';
import type { Tenant } from '../schemas/records.js';
import { defineRoute, json, noContent, type IncomingRequest, type Route } from '../http/route.js';
import { Entry, EntryCreate, EntryGetQuery, EntryIdParams, EntryListQuery, EntryUpdate, PersonalEntryCreate } from '../schemas/knowledgeEntries.js';

const BASE = '/api/knowledge/knowledge-entries';
const tags = ['knowledge-entries'];
const read = { scopes: ['knowledge:read' as const] };
const write = { scopes: ['knowledge:write' as const] };

/**
 * The caller of a knowledge route. X-Audit-Source names the audit channel (default api);
 * X-Client-Id comes from the OAuth token only, never from the header.
 */
export function callerOf(tenant: Tenant, principal: Principal, req: IncomingRequest): Caller {
  return {
    tenantId: tenant.id,
    userId: principal.userId,
    scopes: principal.scopes,
    credentialId: principal.credentialId,
    clientId: principal.clientId,
    source: req.headers['x-audit-source']?.trim() || 'api',
  };
}

export function knowledgeEntryRoutes(knowledge: KnowledgeEntryService): Route[] {
  return [
    defineRoute({
      method: 'POST', path: BASE, tags, summary: 'Create a knowledge entry',
      description: 'visibility personal is refused here (422; use /personal); a visibility above the caller\'s ceiling is a 403; ' +
        'category_id must exist (422). metadata is normalised against the schema of the entry type.',
      auth: write,
      body: EntryCreate,
      responses: { 201: { description: 'Created', schema: Entry } },
      handler: async ({ tenant, principal, body, req }) => json(201, await knowledge.create(callerOf(tenant, principal, req), body, false)),
    }),
    defineRoute({
      method: 'POST', path: `${BASE}/personal`, tags, summary: 'Create a personal knowledge entry (owned by the caller)',
      description: 'Forces visibility personal and the caller as owner; only the owner can ever read, change or delete it.',
      auth: write,
      body: PersonalEntryCreate,
      responses: { 201: { description: 'Created', schema: Entry } },
      handler: async ({ tenant, principal, body, req }) =>
        json(201, await knowledge.create(callerOf(tenant, principal, req), { ...body, visibility: 'personal' }, true)),
    }),
    defineRoute({
      method: 'GET', path: BASE, tags, summary: 'List knowledge entries',
      description: 'Only entries up to the caller\'s visibility ceiling, plus its own personal entries; expired memory entries ' +
        'only with include_expired=true. Ordered by (created_at, id); X-Total-Count holds the total.',
      auth: read,
      query: EntryListQuery,
      responses: { 200: { description: 'A page of entries', schema: Type.Array(Entry) } },
      handler: async ({ tenant, principal, query, req }) => {
        const { items, total } = await knowledge.list(callerOf(tenant, principal, req), query);
        return json(200, items, { 'X-Total-Count': String(total) });
      },
    }),
    defineRoute({
      method: 'GET', path: `${BASE}/:entry_id`, tags, summary: 'Get a knowledge entry',
      description: 'An entry above the caller\'s ceiling, someone else\'s personal entry, or an expired memory (without ' +
        'include_expired=true) is a 404.',
      auth: read,
      params: EntryIdParams,
      query: EntryGetQuery,
      responses: { 200: { description: 'The entry', schema: Entry } },
      handler: async ({ tenant, principal, params, query, req }) =>
        json(200, await knowledge.get(callerOf(tenant, principal, req), params.entry_id, query.include_expired)),
    }),
    defineRoute({
      method: 'PUT', path: `${BASE}/:entry_id`, tags, summary: 'Update a knowledge entry (partial)',
      description: 'Only provided fields change; the version grows by one when a stored field changes. If-Match: <version> ' +
        'makes the update conditional (412 when stale). A type key is a 422 (type is immutable).',
      auth: write,
      params: EntryIdParams,
      body: EntryUpdate,
      responses: { 200: { description: 'The entry', schema: Entry } },
      errors: [409, 412],
      handler: async ({ tenant, principal, params, body, req }) =>
        json(200, await knowledge.update(callerOf(tenant, principal, req), params.entry_id, { changes: body, ifMatch: parseIfMatch(req.headers['if-match']) })),
    }),
    defineRoute({
      method: 'DELETE', path: `${BASE}/:entry_id`, tags, summary: 'Delete a knowledge entry permanently',
      auth: write,
      params: EntryIdParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [409, 412],
      handler: async ({ tenant, principal, params, req }) => {
        await knowledge.delete(callerOf(tenant, principal, req), params.entry_id, parseIfMatch(req.headers['if-match']));
        return noContent();
      },
    }),
  ];
}
