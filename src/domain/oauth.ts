// The OAuth 2.1 authorization server of a tenant (DESIGN §5): client registration (RFC 7591), the
// authorization code flow with PKCE S256 and a consent step, the token endpoint (authorization_code,
// refresh_token with rotation and reuse detection, client_credentials), revocation (RFC 7009), and
// the bearer check of access tokens. The issuer is the tenant's base URL; the HTTP layer passes it in.
//
// Every code and token is opaque and random, stored only as its SHA-256 with a TTL. Access and
// refresh tokens name their grant (`kcs_at_<grant id>_<secret>`): a grant is one authorization (one
// consent, or one client_credentials request) and every token issued under it is valid only while
// the grant exists, so revoking a grant (reuse, revocation of a refresh token, client deletion)
// stops all its tokens at once.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { OAuthLifetimes } from '../config.js';
import { isUuid } from '../schemas/common.js';
import { SYSTEM_ACTOR, type AuditActor } from '../store/audit.js';
import type { IssueResult, NewTokens, OAuthRepository } from '../store/oauth.js';
import type { ApiKeyService } from './apiKeys.js';
import { NotFoundError } from './errors.js';
import { SCOPES, isScope } from './scopes.js';
import type { Tenant } from './types.js';

export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];
export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];
/** Paths below the tenant base URL that a token may be bound to (RFC 8707 `resource`): '' = all. */
export const RESOURCE_PATHS = ['', '/api', '/mcp'] as const;
/** Scopes a client gets when it registers without `scope`: everything except `admin`. */
export const DEFAULT_CLIENT_SCOPES = SCOPES.filter((s) => s !== 'admin');
/** How long the consent page waits for the user's answer. */
export const PENDING_TTL_MS = 10 * 60_000;

const MAX_REDIRECT_URIS = 20;
const MAX_URI_LENGTH = 2000;
const MAX_CLIENT_NAME = 200;
const MAX_STATE_LENGTH = 2000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER_RE = /^[A-Za-z0-9._~-]{43,128}$/;
const SECRET_RE = '[A-Za-z0-9_-]{43}';
const TOKEN_RE = new RegExp(`^kcs_(at|rt)_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_${SECRET_RE}$`);
const CODE_RE = new RegExp(`^kcs_ac_${SECRET_RE}$`);

/** An error the OAuth endpoints answer in the RFC shape `{error, error_description}`. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

export interface ClientRecord {
  client_id: string;
  tenant_id: string;
  client_name: string;
  redirect_uris: string[];
  grant_types: GrantType[];
  response_types: string[];
  token_endpoint_auth_method: AuthMethod;
  /** Space-separated, like the wire format. */
  scope: string;
  client_id_issued_at: number;
  client_secret_expires_at: 0;
  /** The user of the admin key that registered the client; null when open registration was used. */
  registered_by_user_id: string | null;
  /** SHA-256 hex of the client secret; null for public clients. */
  secret_digest: string | null;
}

export type PublicClient = Omit<ClientRecord, 'secret_digest'>;

/** The RFC 7591 §3.2.1 answer (spec §2.5); client_secret only for confidential clients. */
export interface Registration {
  client_id: string;
  client_secret?: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: GrantType[];
  response_types: string[];
  token_endpoint_auth_method: AuthMethod;
  scope: string;
  client_secret_expires_at: 0;
}

/** An authorization request waiting for the consent page's answer. */
export interface PendingAuthorization {
  id: string;
  client_id: string;
  redirect_uri: string;
  /** Whether redirect_uri was sent (then the token request must repeat it). */
  redirect_uri_given: boolean;
  state: string | null;
  scope: string[];
  resource: string;
  resource_path: string;
  code_challenge: string;
  /** Echoed by the consent form and its cookie. */
  csrf: string;
}

interface CodeRecord {
  grant_id: string;
  client_id: string;
  user_id: string;
  api_key_id: string;
  redirect_uri: string;
  redirect_uri_given: boolean;
  code_challenge: string;
  scope: string[];
  resource: string;
  resource_path: string;
}

export interface GrantRecord {
  id: string;
  kind: 'authorization_code' | 'client_credentials';
  client_id: string;
  user_id: string;
  /** The API key that approved the consent (authorization_code): revoking the key revokes the grant. */
  api_key_id?: string;
  scope: string[];
  resource: string;
  resource_path: string;
  created_at: string;
}

/** What an access or refresh token carries. */
export interface TokenRecord {
  grant_id: string;
  client_id: string;
  user_id: string;
  scope: string[];
  resource: string;
  resource_path: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

export type AuthorizeOutcome =
  | { kind: 'error_page'; status: number; title: string; message: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'consent'; status: number; pending: PendingAuthorization; client: ClientRecord; error?: string };

/** Client credentials as presented: HTTP Basic (already decoded) and the form fields. */
export interface PresentedClient {
  basic: { clientId: string; secret: string } | null;
  form: URLSearchParams;
}

const digestOf = (value: string) => createHash('sha256').update(value).digest('hex');
const randomSecret = () => randomBytes(32).toString('base64url');

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The S256 code challenge of a verifier (RFC 7636 §4.2). */
export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Scope names in the canonical SCOPES order, without duplicates. */
const canonical = (scopes: Iterable<string>) => {
  const set = new Set(scopes);
  return SCOPES.filter((s) => set.has(s));
};
const splitScope = (value: string) => value.split(' ').filter(Boolean);

/** Parses an access or refresh token: its kind and grant id; null for anything else. */
export function parseToken(token: string): { kind: 'at' | 'rt'; grantId: string } | null {
  const match = TOKEN_RE.exec(token);
  return match ? { kind: match[1] as 'at' | 'rt', grantId: match[2] } : null;
}

/** Whether a request path lies within a token's resource path ('' covers everything). */
export function pathWithin(path: string, resourcePath: string): boolean {
  return resourcePath === '' || path === resourcePath || path.startsWith(`${resourcePath}/`);
}

/**
 * The canonical resource (RFC 8707) for a requested value: the tenant base URL (the issuer) or its
 * /api or /mcp path, with or without a trailing slash; absent means the base URL.
 */
export function resolveResource(issuer: string, requested: string | null): { resource: string; resource_path: string } {
  if (requested === null) return { resource: issuer, resource_path: '' };
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    throw new OAuthError('invalid_target', 'resource must be an absolute URL');
  }
  const base = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  if (
    url.protocol !== base.protocol || url.host !== base.host || url.search || url.hash || requested.includes('#') ||
    url.username || url.password || !(RESOURCE_PATHS as readonly string[]).includes(path)
  ) {
    throw new OAuthError('invalid_target', `resource must be ${issuer}, ${issuer}/api or ${issuer}/mcp`);
  }
  return { resource: issuer + path, resource_path: path };
}

/** A token's resource narrowed by a token request's `resource`: the granted one, or (from the base URL) /api or /mcp. */
function narrowResource(issuer: string, granted: { resource: string; resource_path: string }, requested: string | null) {
  if (requested === null) return { resource: granted.resource, resource_path: granted.resource_path };
  const wanted = resolveResource(issuer, requested);
  if (granted.resource_path !== '' && wanted.resource_path !== granted.resource_path) {
    throw new OAuthError('invalid_target', `resource must lie within the granted resource ${granted.resource}`);
  }
  return wanted;
}

function redirectTo(uri: string, params: Record<string, string | null>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== null) query.set(name, value);
  return `${uri}${uri.includes('?') ? '&' : '?'}${query.toString()}`;
}

// ---- registration (RFC 7591) -------------------------------------------------------------------

const metadataError = (description: string) => new OAuthError('invalid_client_metadata', description);
const redirectError = (description: string) => new OAuthError('invalid_redirect_uri', description);

function stringList(value: unknown, name: string, onError: (d: string) => OAuthError): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw onError(`${name} must be an array of strings`);
  return [...new Set(value as string[])];
}

function checkRedirectUri(uri: string): void {
  if (uri.length === 0 || uri.length > MAX_URI_LENGTH) throw redirectError(`A redirect URI has 1 to ${MAX_URI_LENGTH} characters`);
  if (uri.includes('#')) throw redirectError(`Redirect URI ${uri} must not contain a fragment`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw redirectError(`Redirect URI ${uri} is not an absolute URL`);
  }
  if (uri.trim() !== uri || /\s/.test(uri) || !uri.toLowerCase().startsWith(`${url.protocol}//`)) {
    throw redirectError(`Redirect URI ${uri} is not a well-formed absolute URL`);
  }
  if (url.username || url.password) throw redirectError(`Redirect URI ${uri} must not contain user information`);
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return;
  if (url.protocol === 'http:') {
    throw redirectError(`Redirect URI ${uri} uses http on a host that is not loopback; use https (http only for 127.0.0.1, [::1] or localhost)`);
  }
  throw redirectError(`Redirect URI ${uri} must use https (or http on 127.0.0.1, [::1] or localhost)`);
}

export interface ClientMetadata {
  client_name: string | null;
  redirect_uris: string[];
  grant_types: GrantType[];
  response_types: string[];
  token_endpoint_auth_method: AuthMethod;
  scope: string;
}

/**
 * The registration request's fields (spec §2.5), checked; every other key is ignored (spec §9).
 * `byAdmin`: registered with an admin key (client_credentials needs a user to act for).
 */
export function validateRegistration(body: unknown, byAdmin: boolean): ClientMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw metadataError('The registration body must be a JSON object');
  const input = body as Record<string, unknown>;

  let clientName: string | null = null;
  if (input.client_name !== undefined && input.client_name !== null) {
    if (typeof input.client_name !== 'string' || [...input.client_name].length > MAX_CLIENT_NAME) {
      throw metadataError(`client_name must be a string of at most ${MAX_CLIENT_NAME} characters`);
    }
    clientName = input.client_name.trim() || null;
  }

  const grantTypes = stringList(input.grant_types, 'grant_types', metadataError) ?? ['authorization_code'];
  if (grantTypes.length === 0) throw metadataError('grant_types must name at least one grant type');
  for (const grant of grantTypes) {
    if (!(GRANT_TYPES as readonly string[]).includes(grant)) {
      throw metadataError(`Unsupported grant type '${grant}'; use authorization_code, refresh_token or client_credentials`);
    }
  }
  const usesCode = grantTypes.includes('authorization_code');
  if (grantTypes.includes('refresh_token') && !usesCode) throw metadataError('refresh_token is only issued with the authorization_code grant');

  const responseTypes = stringList(input.response_types, 'response_types', metadataError) ?? (usesCode ? ['code'] : []);
  for (const type of responseTypes) {
    if (type !== 'code') throw metadataError(`Unsupported response type '${type}'; only code is supported`);
  }
  if (usesCode !== responseTypes.includes('code')) {
    throw metadataError('response_types must be ["code"] exactly when grant_types includes authorization_code');
  }

  const method = input.token_endpoint_auth_method ?? 'client_secret_basic';
  if (typeof method !== 'string' || !(AUTH_METHODS as readonly string[]).includes(method)) {
    // Only a string is quoted back: any other JSON value has no safe text (an object's own toString).
    const shown = typeof method === 'string' ? `'${method}'` : `of type ${Array.isArray(method) ? 'array' : typeof method}`;
    throw metadataError(`Unsupported token_endpoint_auth_method ${shown}; use client_secret_basic, client_secret_post or none`);
  }
  if (grantTypes.includes('client_credentials')) {
    if (method === 'none') throw metadataError('client_credentials needs a confidential client (token_endpoint_auth_method other than none)');
    if (!byAdmin) throw metadataError('client_credentials is only for clients registered with an admin key (its tokens act for that key\'s user)');
  }

  let scope: string[] = [...DEFAULT_CLIENT_SCOPES];
  if (input.scope !== undefined && input.scope !== null) {
    if (typeof input.scope !== 'string') throw metadataError('scope must be a space-separated string of scope names');
    const names = splitScope(input.scope);
    for (const name of names) {
      if (!isScope(name)) throw metadataError(`Unknown scope '${name}'; known scopes: ${SCOPES.join(' ')}`);
    }
    if (names.length > 0) scope = canonical(names);
  }

  const redirectUris = stringList(input.redirect_uris, 'redirect_uris', redirectError) ?? [];
  if (usesCode && redirectUris.length === 0) throw redirectError('redirect_uris must name at least one URI for the authorization_code grant');
  if (redirectUris.length > MAX_REDIRECT_URIS) throw redirectError(`At most ${MAX_REDIRECT_URIS} redirect URIs`);
  redirectUris.forEach(checkRedirectUri);

  return {
    client_name: clientName,
    redirect_uris: redirectUris,
    grant_types: grantTypes as GrantType[],
    response_types: responseTypes,
    token_endpoint_auth_method: method as AuthMethod,
    scope: scope.join(' '),
  };
}

export const toPublicClient = ({ secret_digest: _secret, ...rest }: ClientRecord): PublicClient => rest;

// ---- the service -------------------------------------------------------------------------------

export class OAuthService {
  constructor(
    private readonly repo: OAuthRepository,
    private readonly apiKeys: ApiKeyService,
    private readonly lifetimes: OAuthLifetimes,
  ) {}

  // ---- clients ----

  /**
   * `registrant`: who registers (actor.userId null: open registration) and, with an admin key, its
   * effective scopes. client_credentials tokens act for the registrant with the client's scope, so
   * that scope may hold nothing the registrant lacks (403 otherwise).
   */
  async register(tenant: Tenant, body: unknown, registrant: { actor: AuditActor; scopes: Set<string> | null }): Promise<Registration> {
    const registeredBy = registrant.actor.userId;
    const meta = validateRegistration(body, registeredBy !== null);
    const beyond = meta.grant_types.includes('client_credentials') ? splitScope(meta.scope).filter((s) => !registrant.scopes?.has(s)) : [];
    if (beyond.length > 0) {
      throw new OAuthError('insufficient_scope', `A client_credentials client cannot hold scopes its registrant lacks: ${beyond.join(' ')}`, 403);
    }
    const clientId = randomUUID();
    const secret = meta.token_endpoint_auth_method === 'none' ? null : `kcs_cs_${randomSecret()}`;
    const client: ClientRecord = {
      client_id: clientId,
      tenant_id: tenant.id,
      client_name: meta.client_name ?? clientId,
      redirect_uris: meta.redirect_uris,
      grant_types: meta.grant_types,
      response_types: meta.response_types,
      token_endpoint_auth_method: meta.token_endpoint_auth_method,
      scope: meta.scope,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      client_secret_expires_at: 0,
      registered_by_user_id: registeredBy,
      secret_digest: secret ? digestOf(secret) : null,
    };
    await this.repo.createClient(client, registrant.actor);
    return {
      client_id: client.client_id,
      ...(secret ? { client_secret: secret } : {}),
      client_id_issued_at: client.client_id_issued_at,
      client_name: client.client_name,
      redirect_uris: client.redirect_uris,
      grant_types: client.grant_types,
      response_types: client.response_types,
      token_endpoint_auth_method: client.token_endpoint_auth_method,
      scope: client.scope,
      client_secret_expires_at: 0,
    };
  }

  async listClients(tenantId: string): Promise<PublicClient[]> {
    return (await this.repo.listClients(tenantId)).map(toPublicClient);
  }

  async getClient(tenantId: string, clientId: string): Promise<PublicClient> {
    const client = await this.repo.getClient(tenantId, clientId);
    if (!client) throw new NotFoundError('OAuth client not found');
    return toPublicClient(client);
  }

  /** Deletes the client and revokes every token issued to it. */
  async deleteClient(tenantId: string, clientId: string, actor: AuditActor = SYSTEM_ACTOR): Promise<void> {
    if (!(await this.repo.deleteClient(tenantId, clientId, actor))) throw new NotFoundError('OAuth client not found');
  }

  // ---- authorization endpoint ----

  /**
   * GET /oauth/authorize. An unknown client or redirect URI is an error page, never a redirect;
   * once the redirect URI is known to be the client's, every other error goes back to it.
   */
  async authorize(tenant: Tenant, issuer: string, query: URLSearchParams): Promise<AuthorizeOutcome> {
    const repeated: string[] = [];
    const one = (name: string) => {
      const values = query.getAll(name);
      if (values.length > 1) repeated.push(name);
      return values[0] ?? null;
    };
    const page = (title: string, message: string): AuthorizeOutcome => ({ kind: 'error_page', status: 400, title, message });

    const clientId = one('client_id');
    if (!clientId) return page('Missing client_id', 'The application sent no client_id. Start again from the application.');
    const client = isUuid(clientId) ? await this.repo.getClient(tenant.id, clientId.toLowerCase()) : null;
    if (!client) return page('Unknown application', 'No application with this client_id is registered with this service.');
    const redirectParam = one('redirect_uri');
    if (repeated.length > 0) return page('Invalid request', `The parameter ${repeated.join(', ')} was sent more than once.`);
    let redirectUri = redirectParam;
    if (redirectUri === null) {
      if (client.redirect_uris.length !== 1) return page('Missing redirect_uri', 'The application must say where to return (redirect_uri).');
      redirectUri = client.redirect_uris[0];
    }
    if (!client.redirect_uris.includes(redirectUri)) {
      return page('Unregistered redirect URI', 'The address the application asked to return to is not registered for it.');
    }

    const state = one('state');
    const fail = (error: string, description: string): AuthorizeOutcome => ({
      kind: 'redirect',
      location: redirectTo(redirectUri, { error, error_description: description, state: state?.slice(0, MAX_STATE_LENGTH) ?? null, iss: issuer }),
    });
    const responseType = one('response_type');
    const challenge = one('code_challenge');
    const method = one('code_challenge_method');
    const scopeParam = one('scope');
    if (repeated.length > 0) return fail('invalid_request', `Repeated parameter: ${repeated.join(', ')}`);
    if (state !== null && state.length > MAX_STATE_LENGTH) return fail('invalid_request', `state is longer than ${MAX_STATE_LENGTH} characters`);
    if (responseType === null) return fail('invalid_request', 'response_type is required');
    if (responseType !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported');
    if (!client.grant_types.includes('authorization_code')) {
      return fail('unauthorized_client', 'This client is not registered for the authorization_code grant');
    }
    if (challenge === null) return fail('invalid_request', 'PKCE is required: send code_challenge and code_challenge_method=S256');
    if (method !== 'S256') {
      return fail('invalid_request', method === null ? 'code_challenge_method=S256 is required' : 'Only code_challenge_method S256 is supported');
    }
    if (!CHALLENGE_RE.test(challenge)) return fail('invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the code verifier');

    const allowed = splitScope(client.scope);
    let scope = allowed;
    if (scopeParam !== null && scopeParam.trim() !== '') {
      const names = splitScope(scopeParam);
      const unknown = names.filter((s) => !isScope(s));
      if (unknown.length > 0) return fail('invalid_scope', `Unknown scope: ${unknown.join(' ')}`);
      const outside = names.filter((s) => !allowed.includes(s));
      if (outside.length > 0) return fail('invalid_scope', `Scope not registered for this client: ${outside.join(' ')}`);
      scope = canonical(names);
    }

    const resources = query.getAll('resource');
    if (resources.length > 1) return fail('invalid_target', 'Send at most one resource');
    let target;
    try {
      target = resolveResource(issuer, resources[0] ?? null);
    } catch (error) {
      if (error instanceof OAuthError) return fail(error.error, error.description);
      throw error;
    }

    const pending: PendingAuthorization = {
      id: randomUUID(),
      client_id: client.client_id,
      redirect_uri: redirectUri,
      redirect_uri_given: redirectParam !== null,
      state,
      scope,
      ...target,
      code_challenge: challenge,
      csrf: randomSecret(),
    };
    await this.repo.savePending(tenant.id, pending, PENDING_TTL_MS);
    return { kind: 'consent', status: 200, pending, client };
  }

  /**
   * POST /oauth/authorize: the consent page's answer. The form's CSRF token must equal the one
   * stored with the request and the one in the page's cookie. Approving needs an API key of this
   * tenant; the code is granted the requested scopes that key holds.
   */
  async consent(tenant: Tenant, issuer: string, form: URLSearchParams, cookieCsrf: string | null): Promise<AuthorizeOutcome> {
    const expired: AuthorizeOutcome = {
      kind: 'error_page',
      status: 400,
      title: 'Request expired',
      message: 'This authorization request has expired or was already answered. Start again from the application.',
    };
    const requestId = form.get('request_id') ?? '';
    const pending = isUuid(requestId) ? await this.repo.getPending(tenant.id, requestId.toLowerCase()) : null;
    if (!pending) return expired;
    const csrf = form.get('csrf_token') ?? '';
    if (!safeEqual(csrf, pending.csrf) || cookieCsrf === null || !safeEqual(cookieCsrf, pending.csrf)) {
      return {
        kind: 'error_page',
        status: 403,
        title: 'Form check failed',
        message: 'The consent form could not be verified (CSRF check). Start again from the application.',
      };
    }
    const client = await this.repo.getClient(tenant.id, pending.client_id);
    if (!client) return { kind: 'error_page', status: 400, title: 'Unknown application', message: 'This application is no longer registered.' };
    const again = (status: number, error: string): AuthorizeOutcome => ({ kind: 'consent', status, pending, client, error });
    const back = (params: Record<string, string | null>): AuthorizeOutcome => ({
      kind: 'redirect',
      location: redirectTo(pending.redirect_uri, { ...params, state: pending.state, iss: issuer }),
    });

    const decision = form.get('decision');
    if (decision === 'deny') {
      if (!(await this.repo.takePending(tenant.id, pending.id))) return expired;
      return back({ error: 'access_denied', error_description: 'The user denied the request' });
    }
    if (decision !== 'approve') return again(400, 'Choose Approve or Deny.');

    const apiKey = (form.get('api_key') ?? '').trim();
    const key = apiKey ? await this.apiKeys.verify(tenant.id, apiKey) : null;
    if (!key) return again(401, apiKey ? 'That is not a valid API key of this tenant.' : 'Enter one of your API keys to sign in.');
    const scope = pending.scope.filter((s) => key.scopes.includes(s));
    if (scope.length === 0) return again(403, 'This API key holds none of the requested permissions. Use another key, or deny.');
    if (!(await this.repo.takePending(tenant.id, pending.id))) return expired;

    const code = `kcs_ac_${randomSecret()}`;
    const record: CodeRecord = {
      grant_id: randomUUID(),
      client_id: client.client_id,
      user_id: key.user_id,
      api_key_id: key.id,
      redirect_uri: pending.redirect_uri,
      redirect_uri_given: pending.redirect_uri_given,
      code_challenge: pending.code_challenge,
      scope,
      resource: pending.resource,
      resource_path: pending.resource_path,
    };
    await this.repo.saveCode(tenant.id, digestOf(code), record, this.lifetimes.codeTtlS * 1000);
    return back({ code });
  }

  // ---- token endpoint ----

  async token(tenant: Tenant, issuer: string, presented: PresentedClient): Promise<TokenResponse> {
    const form = presented.form;
    const repeated = [...new Set([...form.keys()].filter((k) => form.getAll(k).length > 1 && k !== 'resource'))];
    if (repeated.length > 0) throw new OAuthError('invalid_request', `Repeated parameter: ${repeated.join(', ')}`);
    if (form.getAll('resource').length > 1) throw new OAuthError('invalid_target', 'Send at most one resource');
    const client = await this.authenticateClient(tenant.id, presented);
    const grantType = form.get('grant_type');
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
    if (!(GRANT_TYPES as readonly string[]).includes(grantType)) {
      throw new OAuthError('unsupported_grant_type', `Unsupported grant_type '${grantType}'; use authorization_code, refresh_token or client_credentials`);
    }
    if (!client.grant_types.includes(grantType as GrantType)) {
      throw new OAuthError('unauthorized_client', `This client is not registered for the ${grantType} grant`);
    }
    switch (grantType as GrantType) {
      case 'authorization_code':
        return this.exchangeCode(tenant, issuer, client, form);
      case 'refresh_token':
        return this.refresh(tenant, issuer, client, form);
      case 'client_credentials':
        return this.clientCredentials(tenant, issuer, client, form);
    }
  }

  private async exchangeCode(tenant: Tenant, issuer: string, client: ClientRecord, form: URLSearchParams): Promise<TokenResponse> {
    const code = form.get('code');
    const verifier = form.get('code_verifier');
    const redirectUri = form.get('redirect_uri');
    if (!code) throw new OAuthError('invalid_request', 'code is required');
    const invalid = () => new OAuthError('invalid_grant', 'The authorization code is unknown, expired or already used');
    if (!CODE_RE.test(code)) throw invalid();
    const codeDigest = digestOf(code);
    const stored = await this.repo.getCode<CodeRecord>(tenant.id, codeDigest);
    if (!stored) throw invalid();
    const found = stored.record;
    if (found.client_id !== client.client_id) throw new OAuthError('invalid_grant', 'The authorization code was issued to another client');
    // A code seen again is replayed, whatever else the request says: the script revokes its grant.
    if (!stored.used) {
      if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
      if (!VERIFIER_RE.test(verifier) || !safeEqual(s256(verifier), found.code_challenge)) {
        throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
      }
      if ((found.redirect_uri_given || redirectUri !== null) && redirectUri !== found.redirect_uri) {
        throw new OAuthError('invalid_grant', 'redirect_uri does not match the one of the authorization request');
      }
    }
    const target = stored.used ? found : narrowResource(issuer, found, form.get('resource'));
    const grant: GrantRecord = {
      id: found.grant_id,
      kind: 'authorization_code',
      client_id: client.client_id,
      user_id: found.user_id,
      api_key_id: found.api_key_id,
      scope: found.scope,
      resource: found.resource,
      resource_path: found.resource_path,
      created_at: new Date().toISOString(),
    };
    const issued = this.newTokens(grant, grant.scope, target, client.grant_types.includes('refresh_token'));
    const result = await this.repo.exchangeCode(tenant.id, codeDigest, issued.tokens, Math.max(this.lifetimes.accessTtlS, this.lifetimes.codeTtlS) * 1000);
    this.check(result, 'The authorization code was already used; the tokens issued from it are revoked');
    return issued.response;
  }

  private async refresh(tenant: Tenant, issuer: string, client: ClientRecord, form: URLSearchParams): Promise<TokenResponse> {
    const presented = form.get('refresh_token');
    if (!presented) throw new OAuthError('invalid_request', 'refresh_token is required');
    const invalid = () => new OAuthError('invalid_grant', 'The refresh token is unknown, expired or revoked');
    const parsed = parseToken(presented);
    if (!parsed || parsed.kind !== 'rt') throw invalid();
    const digest = digestOf(presented);
    const found = await this.repo.getRefresh(tenant.id, digest);
    if (!found || found.record.grant_id !== parsed.grantId) throw invalid();
    const { record } = found;
    if (record.client_id !== client.client_id) throw new OAuthError('invalid_grant', 'The refresh token was issued to another client');

    let scope = record.scope;
    const scopeParam = form.get('scope');
    if (scopeParam !== null && scopeParam.trim() !== '') {
      const names = splitScope(scopeParam);
      const outside = names.filter((s) => !record.scope.includes(s));
      if (outside.length > 0) throw new OAuthError('invalid_scope', `Scope beyond the original grant: ${outside.join(' ')}`);
      scope = canonical(names);
    }
    const target = narrowResource(issuer, record, form.get('resource'));
    const grant: GrantRecord = { ...record, id: record.grant_id, kind: 'authorization_code', created_at: '' };
    const issued = this.newTokens(grant, scope, target, true);
    const result = await this.repo.rotateRefresh(tenant.id, digest, { ...issued.tokens, refresh: issued.tokens.refresh! });
    this.check(result, 'The refresh token was already used; every token of its grant is revoked');
    return issued.response;
  }

  private async clientCredentials(tenant: Tenant, issuer: string, client: ClientRecord, form: URLSearchParams): Promise<TokenResponse> {
    if (client.token_endpoint_auth_method === 'none' || !client.secret_digest || !client.registered_by_user_id) {
      throw new OAuthError('unauthorized_client', 'client_credentials is only for confidential clients registered with an admin key');
    }
    const allowed = splitScope(client.scope);
    let scope = allowed;
    const scopeParam = form.get('scope');
    if (scopeParam !== null && scopeParam.trim() !== '') {
      const names = splitScope(scopeParam);
      const outside = names.filter((s) => !allowed.includes(s));
      if (outside.length > 0) throw new OAuthError('invalid_scope', `Scope not registered for this client: ${outside.join(' ')}`);
      scope = canonical(names);
    }
    const target = resolveResource(issuer, form.get('resource'));
    const grant: GrantRecord = {
      id: randomUUID(),
      kind: 'client_credentials',
      client_id: client.client_id,
      user_id: client.registered_by_user_id,
      scope,
      ...target,
      created_at: new Date().toISOString(),
    };
    const issued = this.newTokens(grant, scope, target, false);
    this.check(await this.repo.issueAccessOnly(tenant.id, issued.tokens), '');
    return issued.response;
  }

  private newTokens(grant: GrantRecord, scope: string[], target: { resource: string; resource_path: string }, withRefresh: boolean) {
    const access = `kcs_at_${grant.id}_${randomSecret()}`;
    const refresh = withRefresh ? `kcs_rt_${grant.id}_${randomSecret()}` : null;
    const base = { grant_id: grant.id, client_id: grant.client_id, user_id: grant.user_id };
    const tokens: NewTokens = {
      grant,
      access: { digest: digestOf(access), record: { ...base, scope, ...target }, ttlMs: this.lifetimes.accessTtlS * 1000 },
      refresh: refresh
        ? { digest: digestOf(refresh), record: { ...base, scope: grant.scope, resource: grant.resource, resource_path: grant.resource_path }, ttlMs: this.lifetimes.refreshTtlS * 1000 }
        : null,
    };
    const response: TokenResponse = {
      access_token: access,
      token_type: 'Bearer',
      expires_in: this.lifetimes.accessTtlS,
      ...(refresh ? { refresh_token: refresh } : {}),
      scope: scope.join(' '),
    };
    return { tokens, response };
  }

  private check(result: IssueResult, reusedMessage: string): void {
    if (result === 'issued') return;
    if (result === 'client_gone') throw invalidClient('The client is no longer registered');
    if (result === 'reused') throw new OAuthError('invalid_grant', reusedMessage);
    throw new OAuthError('invalid_grant', 'The grant is unknown, expired or revoked');
  }

  // ---- revocation (RFC 7009) ----

  /** Revokes a token of the authenticated client; unknown tokens and other clients' tokens are ignored. */
  async revoke(tenant: Tenant, presented: PresentedClient): Promise<void> {
    const form = presented.form;
    const client = await this.authenticateClient(tenant.id, presented);
    const token = form.get('token');
    if (!token) throw new OAuthError('invalid_request', 'token is required');
    const parsed = parseToken(token);
    if (!parsed) return;
    const digest = digestOf(token);
    if (parsed.kind === 'at') {
      const record = await this.repo.getAccessRecord(tenant.id, digest);
      if (record && record.client_id === client.client_id) await this.repo.deleteAccess(tenant.id, digest);
      return;
    }
    const found = await this.repo.getRefresh(tenant.id, digest);
    if (found && found.record.client_id === client.client_id && found.record.grant_id === parsed.grantId) {
      await this.repo.revokeGrant(tenant.id, client.client_id, parsed.grantId, digest);
    }
  }

  // ---- client authentication ----

  /**
   * The client of a token or revocation request: HTTP Basic, or client_id (+ client_secret) form
   * fields. Confidential clients prove their secret by either method; public clients send only
   * client_id (PKCE protects their codes).
   */
  async authenticateClient(tenantId: string, { basic, form }: PresentedClient): Promise<ClientRecord> {
    const formId = form.get('client_id');
    const formSecret = form.get('client_secret');
    if (basic) {
      if (formSecret !== null) throw new OAuthError('invalid_request', 'Use one client authentication method, not Basic and client_secret together');
      if (formId !== null && formId !== basic.clientId) throw new OAuthError('invalid_request', 'client_id differs from the one in the Authorization header');
    }
    const clientId = basic?.clientId ?? formId;
    const secret = basic?.secret ?? formSecret;
    if (!clientId) throw invalidClient('Client authentication is required (client_id)');
    const client = isUuid(clientId) ? await this.repo.getClient(tenantId, clientId.toLowerCase()) : null;
    if (!client) throw invalidClient('Unknown client');
    if (client.secret_digest === null) {
      if (secret) throw invalidClient('This is a public client: it has no secret');
      return client;
    }
    if (!secret) throw invalidClient('Client authentication failed: client_secret is required');
    if (!safeEqual(digestOf(secret), client.secret_digest)) throw invalidClient('Client authentication failed');
    return client;
  }

  // ---- bearer check ----

  /** The access token's record when it is live in this tenant and bound to a resource covering `path`. */
  async verifyAccessToken(tenantId: string, token: string, path: string): Promise<TokenRecord | null> {
    const parsed = parseToken(token);
    if (!parsed || parsed.kind !== 'at') return null;
    const record = await this.repo.getAccess(tenantId, digestOf(token), parsed.grantId);
    if (!record || !pathWithin(path, record.resource_path)) return null;
    return record;
  }
}

function invalidClient(description: string): OAuthError {
  // A 401 always names the scheme to use (RFC 9110 §11.6.1); Basic is what RFC 6749 §5.2 asks for.
  return new OAuthError('invalid_client', description, 401, { 'WWW-Authenticate': 'Basic realm="kcs"' });
}
