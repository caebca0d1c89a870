// Who is calling: the tenant and the credential's scopes (the console shows what they allow).
import { defineRoute, json, type Route } from '../http/route.js';
import { BEYOND_SEARCH, SCOPES } from '../schemas/scopes.js';
import { Whoami, type WhoamiView } from '../schemas/whoami.js';

export function whoamiRoutes(): Route[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/knowledge/whoami', tags: ['whoami'], summary: 'The tenant and the calling credential',
      description: 'Any valid API key or OAuth access token but a search-only key; its scopes as granted (the console hides what ' +
        'they do not allow).',
      auth: { anyOf: BEYOND_SEARCH },
      responses: { 200: { description: 'The caller', schema: Whoami } },
      handler: ({ tenant, principal }) => {
        const view: WhoamiView = {
          tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name },
          credential: principal.kind,
          credential_id: principal.credentialId,
          user_id: principal.userId,
          client_id: principal.clientId,
          scopes: SCOPES.filter((s) => principal.scopes.has(s)),
        };
        return json(200, view);
      },
    }),
  ];
}
