// Shared by the OAuth suites: the stack (two tenants, acme's authorization server as oauth4webapi
// discovers it, a category for entries), routes, a client registered through oauth4webapi, the code
// flow with PKCE, refresh, and the error assertions.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import * as oauth from 'oauth4webapi';
import { approve, authorizationUrl, baseUrl, clientOptions, discover } from '../../helpers/oauth.js';
import { newCategory } from '../../helpers/fixtures.js';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../../helpers/stack.js';

export const ENTRIES = '/api/knowledge/knowledge-entries';
export const CLIENTS = '/api/knowledge/oauth/clients';
export const REDIRECT = 'http://127.0.0.1:8976/callback';

/** The file's stack and tenants, set by useStack() before its tests; the stack is closed after them. */
export let stack: Stack;
export let acme: TenantFixture;
export let globex: TenantFixture;
/** acme's authorization server metadata, as oauth4webapi discovers it. */
export let as: oauth.AuthorizationServer;
export let options: ReturnType<typeof clientOptions>;
let categoryId: string;

export function useStack(): void {
  before(async () => {
    // The OAuth files send far more token requests than a client would; the limits have their own
    // tests (oauth-browser.test.ts).
    stack = await startStack({ KCS_OAUTH_RATE_PER_S: '0', KCS_OAUTH_ADDRESS_RATE_PER_S: '0' });
    acme = await stack.tenant();
    globex = await stack.tenant();
    as = await discover(stack, acme);
    options = clientOptions(stack.port);
    categoryId = await newCategory(acme);
  });
  after(() => stack.close());
}

export const entry = (title: string) => ({ title, content: 'Some content', category_id: categoryId, visibility: 'public', type: 'knowledge' });

export interface Registered {
  client: oauth.Client;
  auth: oauth.ClientAuth;
  secret?: string;
}

/** A client registered through oauth4webapi with the admin key as initial access token. */
export async function newClient(metadata: Partial<oauth.Client> = {}, t = acme): Promise<Registered> {
  const server = t === acme ? as : await discover(stack, t);
  const response = await oauth.dynamicClientRegistrationRequest(
    server,
    { client_name: 'Test app', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none', ...metadata },
    { initialAccessToken: t.key, ...options },
  );
  const client = await oauth.processDynamicClientRegistrationResponse(response);
  const secret = client.client_secret as string | undefined;
  const method = client.token_endpoint_auth_method;
  const auth = method === 'none' ? oauth.None() : method === 'client_secret_post' ? oauth.ClientSecretPost(secret!) : oauth.ClientSecretBasic(secret!);
  return { client: client as oauth.Client, auth, secret };
}

/** Consent with `key` and exchange the code: the token response. */
export async function codeFlow(c: Registered, key = acme.key, extra: Record<string, string> = {}, server = as) {
  const { url, verifier, state } = await authorizationUrl(server, c.client.client_id, REDIRECT, extra);
  const params = oauth.validateAuthResponse(server, c.client, await approve(stack, url, key), state);
  const response = await oauth.authorizationCodeGrantRequest(server, c.client, c.auth, params, REDIRECT, verifier, options);
  return oauth.processAuthorizationCodeResponse(server, c.client, response);
}

/** A code ready for exchange (consent done), with its verifier. */
export async function freshCode(c: Registered, key = acme.key, extra: Record<string, string> = {}) {
  const { url, verifier, state } = await authorizationUrl(as, c.client.client_id, REDIRECT, extra);
  const back = await approve(stack, url, key);
  assert.equal(back.searchParams.get('state'), state);
  return { code: back.searchParams.get('code')!, verifier };
}

export async function refresh(c: Registered, refreshToken: string) {
  return oauth.processRefreshTokenResponse(as, c.client, await oauth.refreshTokenGrantRequest(as, c.client, c.auth, refreshToken, options));
}

/** Expects oauth4webapi to report an RFC 6749 §5.2 error with this code. */
export async function rejectsWith(promise: Promise<unknown>, error: string): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof oauth.ResponseBodyError, `expected a ResponseBodyError, got ${e}`);
    assert.equal(e.error, error);
    return true;
  });
}

export const list = (token: string, t = acme, headers: Record<string, string> = {}) => t.request('GET', ENTRIES, { key: token, headers });

export function assertUnauthorized(res: HttpResult, t = acme): void {
  assert.equal(res.status, 401, res.text);
  assert.equal(res.headers['www-authenticate'], `Bearer resource_metadata="${baseUrl(stack, t)}/.well-known/oauth-protected-resource"`);
}
