// The authorization endpoint (OAuth 2.1 §4.1, PKCE S256 only): GET /oauth/authorize checks the
// request and keeps it for the consent page; the page's answer, approved with an API key of this
// tenant, issues a single-use code for the requested scopes that key holds.
import { randomUUID } from 'node:crypto';
import type { OAuthLifetimes } from '../../config.js';
import { isUuid } from '../../schemas/common.js';
import type { OAuthRepository } from '../../store/oauth.js';
import type { ApiKeyService } from '../apiKeys.js';
import { isScope } from '../../schemas/scopes.js';
import { OAuthError, PENDING_TTL_MS, type AuthorizeOutcome, type OAuthContext } from './records.js';
import type { CodeRecord, PendingAuthorization } from '../../schemas/oauthRecords.js';
import { canonical, CHALLENGE_RE, digestOf, randomSecret, redirectTo, resolveResource, safeEqual, splitScope } from './rules.js';

const MAX_STATE_LENGTH = 2000;

export class AuthorizationEndpoint {
  constructor(
    private readonly repo: OAuthRepository,
    private readonly apiKeys: ApiKeyService,
    private readonly lifetimes: OAuthLifetimes,
  ) {}

  /**
   * GET /oauth/authorize. An unknown client or redirect URI is an error page, never a redirect;
   * once the redirect URI is known to be the client's, every other error goes back to it.
   */
  async authorize({ tenant, issuer }: OAuthContext, query: URLSearchParams): Promise<AuthorizeOutcome> {
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
  async consent({ tenant, issuer }: OAuthContext, form: URLSearchParams, cookieCsrf: string | null): Promise<AuthorizeOutcome> {
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
    await this.repo.saveCode(tenant.id, { digest: digestOf(code), record, ttlMs: this.lifetimes.codeTtlS * 1000 });
    return back({ code });
  }
}
