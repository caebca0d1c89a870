// The OAuth 2.1 authorization server over HTTP (DESIGN §5): discovery (RFC 8414, RFC 9728),
// registration (RFC 7591), the authorization endpoint with its consent page, the token endpoint,
// revocation (RFC 7009), the admin routes for clients, and the bearer resolver of access tokens.
// These endpoints read their own input and answer errors in the RFC shape {error, error_description}.
import { Type } from '@sinclair/typebox';
import { OAuthError, PENDING_TTL_MS, type AuthorizeOutcome } from '../domain/oauth/records.js';
import type { OAuthService } from '../domain/oauth/service.js';
import { SCOPES } from '../schemas/scopes.js';
import type { Principal } from '../domain/types.js';
import type { Tenant } from '../schemas/records.js';
import { HttpError } from '../http/errors.js';
import { defineRoute, json, noContent, type IncomingRequest, type Reply, type Route } from '../http/route.js';
import {
  AUTH_METHODS,
  AuthorizationServerMetadata,
  AuthorizeQuery,
  ClientIdParams,
  ClientRegistrationRequest,
  ClientRegistrationResponse,
  ConsentForm,
  GRANT_TYPES,
  OAuthClient,
  OAuthErrorBody,
  ProtectedResourceMetadata,
  RevocationRequest,
  TokenRequest,
  TokenResponse,
} from '../schemas/oauth.js';
import { consentPage, cookieValue, csrfCookie, csrfCookieName, errorPage, htmlReply } from './consent.js';
import { actorOf } from './actor.js';
import type { CredentialResolver, Guard } from './guard.js';
import type { OAuthRateLimit } from './oauthRateLimit.js';

const tags = ['oauth'];
const admin = { scopes: ['admin' as const] };
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const FORM = 'application/x-www-form-urlencoded';
const oauthErrors = { description: 'OAuth error', schema: OAuthErrorBody };

const mediaType = (req: IncomingRequest) => (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();

function oauthErrorReply(error: OAuthError): Reply {
  return { status: error.status, body: { error: error.error, error_description: error.description }, headers: { ...NO_STORE, ...error.headers } };
}

/** Runs a handler, answering an OAuthError in the RFC shape. */
async function rfc(run: () => Promise<Reply>): Promise<Reply> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorReply(error);
    throw error;
  }
}

/** Form fields of a token or revocation request (RFC 6749 §3.2: POST, form-encoded). */
function formOf(req: IncomingRequest): URLSearchParams {
  if (req.body.length > 0 && mediaType(req) !== FORM) throw new OAuthError('invalid_request', `Send the parameters as ${FORM}`);
  return new URLSearchParams(req.body.toString('utf8'));
}

/**
 * HTTP Basic client credentials (RFC 6749 §2.3.1: each part form-urlencoded). Other schemes (e.g.
 * a Bearer API key, spec §5.4) are not client authentication here and are ignored.
 */
function basicOf(header: string | undefined): { clientId: string; secret: string } | null {
  const match = /^Basic\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return null;
  const malformed = new OAuthError('invalid_client', 'Malformed Basic credentials', { status: 401, headers: { 'WWW-Authenticate': 'Basic realm="kcs"' } });
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw malformed;
  try {
    const part = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { clientId: part(decoded.slice(0, colon)), secret: part(decoded.slice(colon + 1)) };
  } catch {
    throw malformed;
  }
}

/** Bearer resolver for the Guard: OAuth access tokens of this tenant, for paths within their resource. */
export function oauthResolver(oauth: OAuthService): CredentialResolver {
  return async (tenant, token, req) => {
    if (!token.startsWith('kcs_at_')) return null;
    const record = await oauth.verifyAccessToken(tenant.id, token, req.path);
    if (!record) return null;
    return {
      kind: 'oauth',
      tenantId: tenant.id,
      userId: record.user_id,
      // The grant: stable across refreshes, so the rate limit and the audit log follow one authorization.
      credentialId: record.grant_id,
      scopes: record.scope,
      clientId: record.client_id,
    };
  };
}

export interface OAuthRouteOptions {
  /** KCS_PUBLIC_SCHEME: https marks the consent form's cookie Secure. */
  scheme: string;
  rateLimit: OAuthRateLimit;
}

export function oauthRoutes(oauth: OAuthService, guard: Guard, { scheme, rateLimit }: OAuthRouteOptions): Route[] {
  const secure = scheme === 'https';

  const present = (outcome: AuthorizeOutcome, tenant: Tenant, extra: Record<string, string> = {}): Reply => {
    switch (outcome.kind) {
      case 'error_page':
        return htmlReply(outcome.status, errorPage(outcome.title, outcome.message), extra);
      case 'redirect':
        return { status: 302, headers: { Location: outcome.location, ...NO_STORE, ...extra } };
      case 'consent':
        return htmlReply(outcome.status, consentPage({ tenantName: tenant.name, client: outcome.client, pending: outcome.pending, error: outcome.error }), {
          'Set-Cookie': csrfCookie({ requestId: outcome.pending.id, value: outcome.pending.csrf, secure, maxAgeS: PENDING_TTL_MS / 1000 }),
        });
    }
  };

  const resourceMetadata = (path: '' | '/api' | '/mcp') =>
    defineRoute({
      method: 'GET', path: `/.well-known/oauth-protected-resource${path}`, tags,
      summary: `Protected resource metadata (RFC 9728) of ${path ? `<base>${path}` : 'the tenant base URL'}`,
      auth: 'tenant',
      cors: true,
      responses: { 200: { description: 'Metadata', schema: ProtectedResourceMetadata } },
      handler: ({ tenant, req }) => {
        const base = guard.baseUrl(req);
        return json(200, {
          resource: base + path,
          authorization_servers: [base],
          scopes_supported: [...SCOPES],
          bearer_methods_supported: ['header'],
          resource_name: tenant.name,
        });
      },
    });

  return [
    defineRoute({
      method: 'GET', path: '/.well-known/oauth-authorization-server', tags, summary: 'Authorization server metadata (RFC 8414)',
      description: 'The issuer is the tenant base URL: `<KCS_PUBLIC_SCHEME>://<Host>`.',
      auth: 'tenant',
      cors: true,
      responses: { 200: { description: 'Metadata', schema: AuthorizationServerMetadata } },
      handler: ({ req }) => {
        const base = guard.baseUrl(req);
        return json(200, {
          issuer: base,
          authorization_endpoint: `${base}/oauth/authorize`,
          token_endpoint: `${base}/oauth/token`,
          registration_endpoint: `${base}/oauth/register`,
          revocation_endpoint: `${base}/oauth/revoke`,
          scopes_supported: [...SCOPES],
          response_types_supported: ['code'],
          response_modes_supported: ['query'],
          grant_types_supported: [...GRANT_TYPES],
          token_endpoint_auth_methods_supported: [...AUTH_METHODS],
          revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
          code_challenge_methods_supported: ['S256'],
          authorization_response_iss_parameter_supported: true,
        });
      },
    }),
    resourceMetadata(''),
    resourceMetadata('/api'),
    resourceMetadata('/mcp'),

    defineRoute({
      method: 'POST', path: '/oauth/register', tags, summary: 'Register an OAuth client (RFC 7591)',
      description: 'Needs `Authorization: Bearer <API key with admin scope>` (the initial access token) unless the tenant ' +
        'setting oauth_open_registration is true; a header that is sent is always checked. Unknown keys are ignored.',
      auth: 'tenant',
      cors: true,
      documented: { body: { contentType: 'application/json', schema: ClientRegistrationRequest } },
      responses: {
        201: { description: 'Registered; client_secret only for confidential clients', schema: ClientRegistrationResponse },
        400: { description: 'invalid_redirect_uri or invalid_client_metadata', schema: OAuthErrorBody },
        401: { description: 'invalid_token: no or an invalid API key (and open registration is off)', schema: OAuthErrorBody },
        403: { description: 'insufficient_scope: the key lacks admin', schema: OAuthErrorBody },
      },
      errors: [413, 429],
      handler: ({ tenant, req }) =>
        rfc(async () => {
          let registrant: Principal | null = null;
          if (req.headers.authorization !== undefined) {
            try {
              registrant = await guard.authenticate(tenant, req, { scopes: ['admin'] });
            } catch (error) {
              if (error instanceof HttpError && (error.status === 401 || error.status === 403)) {
                const code = error.status === 401 ? 'invalid_token' : 'insufficient_scope';
                throw new OAuthError(code, String(error.detail), { status: error.status, headers: error.headers });
              }
              throw error;
            }
          } else if (!tenant.settings.oauth_open_registration) {
            throw new OAuthError('invalid_token', 'Registration needs an API key with the admin scope (Authorization: Bearer …); ' +
              'this tenant does not allow open registration', { status: 401, headers: { 'WWW-Authenticate': 'Bearer realm="kcs"' } });
          }
          const type = mediaType(req);
          if (type !== 'application/json' && !(type.startsWith('application/') && type.endsWith('+json'))) {
            throw new OAuthError('invalid_client_metadata', 'Send the client metadata as application/json');
          }
          let body: unknown;
          try {
            body = JSON.parse(req.body.toString('utf8'));
          } catch {
            throw new OAuthError('invalid_client_metadata', 'The body is not valid JSON');
          }
          return json(201, await oauth.register(tenant, body, { actor: actorOf(registrant, req), scopes: registrant?.scopes ?? null }), NO_STORE);
        }),
    }),

    defineRoute({
      method: 'GET', path: '/oauth/authorize', tags, summary: 'Authorization endpoint: the consent page',
      description: 'Code flow with PKCE S256 only. An unknown client or redirect_uri answers an HTML error page (400), never a ' +
        'redirect; every other error redirects to redirect_uri with error, error_description, state and iss.',
      auth: 'tenant',
      documented: { query: AuthorizeQuery },
      responses: {
        200: { description: 'The consent page (HTML)', contentType: 'text/html' },
        302: { description: 'Error redirect to the client (error, error_description, state, iss)' },
        400: { description: 'Error page (HTML): unknown client or redirect_uri', contentType: 'text/html' },
      },
      handler: async ({ tenant, req }) => present(await oauth.authorization.authorize({ tenant, issuer: guard.baseUrl(req) }, req.query), tenant),
    }),
    defineRoute({
      method: 'POST', path: '/oauth/authorize', tags, summary: "The consent page's answer",
      description: 'Approve (with an API key of the user) redirects with code, state and iss; deny redirects with ' +
        'error=access_denied. A wrong key re-renders the page (401).',
      auth: 'tenant',
      documented: { body: { contentType: FORM, schema: ConsentForm } },
      responses: {
        302: { description: 'Back to the client: code (approve) or error=access_denied (deny), with state and iss' },
        400: { description: 'Error page (HTML): request expired or already answered', contentType: 'text/html' },
        401: { description: 'The page again (HTML): the API key is not valid here', contentType: 'text/html' },
        403: { description: 'Error page (HTML): CSRF check failed; or the page again: the key holds none of the scopes', contentType: 'text/html' },
        429: { description: 'Error page (HTML) with Retry-After: too many answers from this address', contentType: 'text/html' },
      },
      handler: async ({ tenant, req }) => {
        const retryAfterS = await rateLimit.consent(tenant.id, req.remoteAddress);
        if (retryAfterS > 0) {
          return htmlReply(429, errorPage('Too many attempts', `Too many answers from your address. Wait ${retryAfterS} s, then send the form again.`), {
            'Retry-After': String(retryAfterS),
          });
        }
        const base = guard.baseUrl(req);
        const origin = req.headers.origin;
        if (origin !== undefined && origin.toLowerCase() !== base) {
          return htmlReply(403, errorPage('Form check failed', 'The consent form was sent from another site.'));
        }
        if (mediaType(req) !== FORM) return htmlReply(400, errorPage('Invalid request', 'The consent form was not sent as a form.'));
        const form = new URLSearchParams(req.body.toString('utf8'));
        const requestId = form.get('request_id') ?? '';
        const outcome = await oauth.authorization.consent({ tenant, issuer: base }, form, cookieValue(req.headers.cookie, csrfCookieName(requestId)));
        // Once answered, the form's cookie is of no further use.
        return present(outcome, tenant, outcome.kind === 'redirect' ? { 'Set-Cookie': csrfCookie({ requestId, value: '', secure, maxAgeS: 0 }) } : {});
      },
    }),

    defineRoute({
      method: 'POST', path: '/oauth/token', tags, summary: 'Token endpoint',
      description: 'grant_type authorization_code (single use; code_verifier and redirect_uri checked), refresh_token ' +
        '(rotated on every use; a retired one presented again revokes the whole grant) or client_credentials (confidential ' +
        'clients; no refresh token). Client authentication: HTTP Basic, client_id + client_secret form fields, or client_id ' +
        'alone for public clients.',
      auth: 'tenant',
      cors: true,
      documented: { body: { contentType: FORM, schema: TokenRequest } },
      responses: {
        200: { description: 'Tokens (Cache-Control: no-store)', schema: TokenResponse },
        400: oauthErrors,
        401: { description: 'invalid_client (WWW-Authenticate: Basic)', schema: OAuthErrorBody },
        429: { description: 'temporarily_unavailable with Retry-After: too many requests of this client or address', schema: OAuthErrorBody },
      },
      errors: [413],
      handler: ({ tenant, req }) =>
        rfc(async () => {
          const presented = { basic: basicOf(req.headers.authorization), form: formOf(req) };
          const retryAfterS = await rateLimit.token(tenant.id, req.remoteAddress, presented.basic?.clientId ?? presented.form.get('client_id'));
          if (retryAfterS > 0) {
            throw new OAuthError('temporarily_unavailable', `Too many token requests; retry after ${retryAfterS} s`, { status: 429, headers: { 'Retry-After': String(retryAfterS) } });
          }
          const tokens = await oauth.tokens.token({ tenant, issuer: guard.baseUrl(req) }, presented);
          return json(200, tokens, NO_STORE);
        }),
    }),
    defineRoute({
      method: 'POST', path: '/oauth/revoke', tags, summary: 'Revoke a token (RFC 7009)',
      description: 'Always 200 for a well-formed request by an authenticated client, also for unknown tokens and tokens of ' +
        'other clients (nothing happens). Revoking a refresh token revokes its whole grant; an access token only itself.',
      auth: 'tenant',
      cors: true,
      documented: { body: { contentType: FORM, schema: RevocationRequest } },
      responses: {
        200: { description: 'Revoked (or nothing to revoke); empty body' },
        400: oauthErrors,
        401: { description: 'invalid_client (WWW-Authenticate: Basic)', schema: OAuthErrorBody },
      },
      errors: [413],
      handler: ({ tenant, req }) =>
        rfc(async () => {
          await oauth.tokens.revoke(tenant, { basic: basicOf(req.headers.authorization), form: formOf(req) });
          return { status: 200, headers: NO_STORE };
        }),
    }),

    defineRoute({
      method: 'GET', path: '/api/knowledge/oauth/clients', tags: ['oauth-clients'], summary: "List the tenant's OAuth clients",
      auth: admin,
      responses: { 200: { description: 'Clients, oldest first (never a secret)', schema: Type.Array(OAuthClient) } },
      handler: async ({ tenant }) => json(200, await oauth.listClients(tenant.id)),
    }),
    defineRoute({
      method: 'GET', path: '/api/knowledge/oauth/clients/:client_id', tags: ['oauth-clients'], summary: 'Read an OAuth client',
      auth: admin,
      params: ClientIdParams,
      responses: { 200: { description: 'The client', schema: OAuthClient } },
      handler: async ({ tenant, params }) => json(200, await oauth.getClient(tenant.id, params.client_id.toLowerCase())),
    }),
    defineRoute({
      method: 'DELETE', path: '/api/knowledge/oauth/clients/:client_id', tags: ['oauth-clients'], summary: 'Delete an OAuth client',
      description: 'Every access and refresh token issued to the client stops working at once.',
      auth: admin,
      params: ClientIdParams,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ tenant, principal, params, req }) => {
        await oauth.deleteClient(tenant.id, params.client_id.toLowerCase(), actorOf(principal, req));
        return noContent();
      },
    }),
  ];
}
