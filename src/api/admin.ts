// Tenant administration over HTTP (admin scope): settings, users, API keys (DESIGN §2).
import { Type } from '@sinclair/typebox';
import type { ApiKeyService } from '../domain/apiKeys.js';
import type { TenantService, UserService } from '../domain/tenants.js';
import { defineRoute, json, noContent, type Route } from '../http/route.js';
import { Pagination } from '../schemas/common.js';
import { TenantSettings, TenantSettingsUpdate } from '../schemas/tenants.js';
import { ApiKey, ApiKeyCreate, ApiKeyCreated, KeyIdParams, User, UserCreate } from '../schemas/users.js';
import { AuditEvent, AuditQuery } from '../schemas/knowledgeEntries.js';
import type { AuditLog } from '../domain/audit.js';
import { HttpError } from '../http/errors.js';
import { actorOf } from './actor.js';

const admin = { scopes: ['admin' as const] };

export interface AdminDeps {
  tenants: TenantService;
  users: UserService;
  apiKeys: ApiKeyService;
  audit: AuditLog;
}

export function adminRoutes({ tenants, users, apiKeys, audit }: AdminDeps): Route[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/knowledge/audit', tags: ['audit'], summary: 'The audit log, newest first',
      description: 'Every write (sites, categories, products, bulk jobs, settings, users, API keys, OAuth clients, knowledge ' +
        'entries) with its user, credential, OAuth client id and X-Audit-Source. Filter by entity_type (its last 100000 ' +
        'events), entity_id (its last 1000) or both; page with before=<event id>.',
      auth: admin,
      query: AuditQuery,
      responses: { 200: { description: 'Events', schema: Type.Array(AuditEvent) } },
      handler: async ({ tenant, query }) =>
        json(200, await audit.events(
          tenant.id,
          { type: query.entity_type, id: query.entity_id?.toLowerCase() },
          { before: query.before ?? null, limit: query.limit ?? 50 },
        )),
    }),
    defineRoute({
      method: 'GET', path: '/api/knowledge/settings', tags: ['settings'], summary: "Read the tenant's settings",
      auth: admin,
      responses: { 200: { description: 'Settings', schema: TenantSettings } },
      handler: ({ tenant }) => json(200, tenant.settings),
    }),
    defineRoute({
      method: 'PUT', path: '/api/knowledge/settings', tags: ['settings'], summary: "Change the tenant's settings (partial)",
      description: 'Changes reach every serve process within one second.',
      auth: admin,
      body: TenantSettingsUpdate,
      responses: { 200: { description: 'The new settings', schema: TenantSettings } },
      handler: async ({ tenant, principal, body, req }) => json(200, (await tenants.updateSettings(tenant, body, actorOf(principal, req))).settings),
    }),
    defineRoute({
      method: 'GET', path: '/api/knowledge/users', tags: ['users'], summary: 'List users',
      auth: admin,
      query: Type.Object({ limit: Type.Optional(Pagination.limit), offset: Type.Optional(Pagination.offset) }),
      responses: { 200: { description: 'Users, oldest first; X-Total-Count holds the total', schema: Type.Array(User) } },
      handler: async ({ tenant, query }) => {
        const { items, total } = await users.list(tenant.id, { offset: query.offset ?? 0, limit: query.limit ?? 50 });
        return json(200, items, { 'X-Total-Count': String(total) });
      },
    }),
    defineRoute({
      method: 'POST', path: '/api/knowledge/users', tags: ['users'], summary: 'Create a user',
      auth: admin,
      body: UserCreate,
      responses: { 201: { description: 'Created', schema: User } },
      errors: [409],
      handler: async ({ tenant, principal, body, req }) => json(201, await users.create(tenant.id, body, actorOf(principal, req))),
    }),
    defineRoute({
      method: 'GET', path: '/api/knowledge/api-keys', tags: ['api-keys'], summary: "List the tenant's live API keys (no secrets)",
      auth: admin,
      responses: { 200: { description: 'Keys, oldest first', schema: Type.Array(ApiKey) } },
      handler: async ({ tenant }) => json(200, await apiKeys.list(tenant.id)),
    }),
    defineRoute({
      method: 'POST', path: '/api/knowledge/api-keys', tags: ['api-keys'], summary: 'Create an API key',
      description: 'The answer carries `key`, the secret, this once; only its SHA-256 digest is stored. The key is the ' +
        "caller's own (user_id, when given, must be the caller) and holds only scopes the caller holds after X-Scopes; " +
        'otherwise 403. `kcs admin key create` mints keys for any user. allowed_origins (scheme://host[:port], stored lower ' +
        'case without a default port) limits browser use: a request with another Origin is a 403; the storefront routes answer ' +
        'the listed origins with CORS headers.',
      auth: admin,
      body: ApiKeyCreate,
      responses: { 201: { description: 'Created', schema: ApiKeyCreated } },
      handler: async ({ tenant, principal, body, req }) => {
        // A key of another user would read that user's personal entries: never minted over the API.
        if (body.user_id && body.user_id.toLowerCase() !== principal.userId) {
          throw new HttpError(403, 'An API key created here belongs to the caller; keys for other users are created with `kcs admin key create`');
        }
        const input = {
          userId: principal.userId, name: body.name, scopes: body.scopes, expiresAt: body.expires_at, allowedOrigins: body.allowed_origins,
          ceiling: principal.scopes,
        };
        return json(201, await apiKeys.create(tenant.id, input, actorOf(principal, req)));
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/api/knowledge/api-keys/:key_id', tags: ['api-keys'], summary: 'Revoke an API key',
      description: 'The key is refused (401) from the next request on.',
      auth: admin,
      params: KeyIdParams,
      responses: { 204: { description: 'Revoked' } },
      handler: async ({ tenant, principal, params, req }) => {
        await apiKeys.revoke(tenant.id, params.key_id.toLowerCase(), actorOf(principal, req));
        return noContent();
      },
    }),
  ];
}
