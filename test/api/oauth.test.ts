// The OAuth 2.1 authorization server over real HTTP, driven by a real client library
// (oauth4webapi): discovery, registration, the code flow with PKCE, the token endpoint, refresh
// rotation with reuse detection, revocation, bearer use on /api, and the admin routes (DESIGN §5).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import {
  answerConsent,
  approve,
  assertOAuthError,
  authorizationUrl,
  baseUrl,
  clientOptions,
  discover,
  get,
  openConsent,
  postForm,
  register,
} from '../helpers/oauth.js';
import { newCategory } from '../helpers/fixtures.js';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';

const ENTRIES = '/api/knowledge/knowledge-entries';
const CLIENTS = '/api/knowledge/oauth/clients';
const REDIRECT = 'http://127.0.0.1:8976/callback';

let stack: Stack;
let acme: TenantFixture;
let globex: TenantFixture;
let as: oauth.AuthorizationServer;
let options: ReturnType<typeof clientOptions>;
let categoryId: string;

before(async () => {
  // This file sends far more token requests than a client would; the limits have their own tests
  // (oauth-browser.test.ts).
  stack = await startStack({ KCS_OAUTH_RATE_PER_S: '0', KCS_OAUTH_ADDRESS_RATE_PER_S: '0' });
  acme = await stack.tenant();
  globex = await stack.tenant();
  as = await discover(stack, acme);
  options = clientOptions(stack.port);
  categoryId = await newCategory(acme);
});

const entry = (title: string) => ({ title, content: 'Some content', category_id: categoryId, visibility: 'public', type: 'knowledge' });
after(() => stack.close());

interface Registered {
  client: oauth.Client;
  auth: oauth.ClientAuth;
  secret?: string;
}

/** A client registered through oauth4webapi with the admin key as initial access token. */
async function newClient(metadata: Partial<oauth.Client> = {}, t = acme): Promise<Registered> {
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
async function codeFlow(c: Registered, key = acme.key, extra: Record<string, string> = {}, server = as) {
  const { url, verifier, state } = await authorizationUrl(server, c.client.client_id, REDIRECT, extra);
  const params = oauth.validateAuthResponse(server, c.client, await approve(stack, url, key), state);
  const response = await oauth.authorizationCodeGrantRequest(server, c.client, c.auth, params, REDIRECT, verifier, options);
  return oauth.processAuthorizationCodeResponse(server, c.client, response);
}

/** A code ready for exchange (consent done), with its verifier. */
async function freshCode(c: Registered, key = acme.key, extra: Record<string, string> = {}) {
  const { url, verifier, state } = await authorizationUrl(as, c.client.client_id, REDIRECT, extra);
  const back = await approve(stack, url, key);
  assert.equal(back.searchParams.get('state'), state);
  return { code: back.searchParams.get('code')!, verifier };
}

async function refresh(c: Registered, refreshToken: string) {
  return oauth.processRefreshTokenResponse(as, c.client, await oauth.refreshTokenGrantRequest(as, c.client, c.auth, refreshToken, options));
}

/** Expects oauth4webapi to report an RFC 6749 §5.2 error with this code. */
async function rejectsWith(promise: Promise<unknown>, error: string): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof oauth.ResponseBodyError, `expected a ResponseBodyError, got ${e}`);
    assert.equal(e.error, error);
    return true;
  });
}

const list = (token: string, t = acme, headers: Record<string, string> = {}) => t.request('GET', ENTRIES, { key: token, headers });

function assertUnauthorized(res: HttpResult, t = acme): void {
  assert.equal(res.status, 401, res.text);
  assert.equal(res.headers['www-authenticate'], `Bearer resource_metadata="${baseUrl(stack, t)}/.well-known/oauth-protected-resource"`);
}

describe('discovery', () => {
  test('authorization server metadata (RFC 8414): the issuer is the tenant base URL', () => {
    const base = baseUrl(stack, acme);
    assert.equal(as.issuer, base);
    assert.equal(as.authorization_endpoint, `${base}/oauth/authorize`);
    assert.equal(as.token_endpoint, `${base}/oauth/token`);
    assert.equal(as.registration_endpoint, `${base}/oauth/register`);
    assert.equal(as.revocation_endpoint, `${base}/oauth/revoke`);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(as.response_types_supported, ['code']);
    assert.deepEqual(as.grant_types_supported, ['authorization_code', 'refresh_token', 'client_credentials']);
    assert.deepEqual(as.token_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post', 'none']);
    assert.ok(as.scopes_supported!.includes('knowledge:read'));
    assert.equal(as.authorization_response_iss_parameter_supported, true);
  });

  test('each tenant is its own issuer', async () => {
    assert.equal((await discover(stack, globex)).issuer, baseUrl(stack, globex));
  });

  test('protected resource metadata (RFC 9728), also for /api and /mcp', async () => {
    for (const path of ['', '/api', '/mcp']) {
      const resource = new URL(baseUrl(stack, acme) + path);
      const response = await oauth.resourceDiscoveryRequest(resource, options);
      const meta = await oauth.processResourceDiscoveryResponse(resource, response);
      assert.deepEqual(meta.authorization_servers, [baseUrl(stack, acme)]);
      assert.deepEqual(meta.bearer_methods_supported, ['header']);
      assert.ok(meta.scopes_supported!.includes('catalog:read'));
    }
  });

  test('the 401 of an /api route points at the resource metadata, which names the issuer', async () => {
    const res = await acme.request('GET', ENTRIES, { key: undefined });
    const match = /resource_metadata="([^"]+)"/.exec(String(res.headers['www-authenticate']));
    assert.ok(match);
    const meta = await get(stack, new URL(match[1]));
    assert.equal(meta.status, 200);
    assert.equal(meta.body.resource, baseUrl(stack, acme));
    assert.deepEqual(meta.body.authorization_servers, [as.issuer]);
  });

  test('an unknown tenant has no metadata', async () => {
    const res = await stack.request('GET', '/.well-known/oauth-authorization-server', { host: `nosuch.localhost:${stack.port}` });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: 'Unknown tenant' });
  });
});

describe('registration (RFC 7591)', () => {
  test('a confidential client: 201 with the full response, the secret shown once and stored as a digest', async () => {
    const res = await register(acme, {
      client_name: 'Partner app',
      redirect_uris: ['https://partner.example.com/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
      scope: 'knowledge:read catalog:read',
      logo_uri: 'https://partner.example.com/logo.png',
      software_version: { nested: true },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers['cache-control'], 'no-store');
    const body = res.body;
    assert.deepEqual(Object.keys(body).sort(), [
      'client_id', 'client_id_issued_at', 'client_name', 'client_secret', 'client_secret_expires_at', 'grant_types',
      'redirect_uris', 'response_types', 'scope', 'token_endpoint_auth_method',
    ]);
    assert.match(body.client_id, /^[0-9a-f-]{36}$/);
    assert.match(body.client_secret, /^kcs_cs_[A-Za-z0-9_-]{43}$/);
    assert.equal(body.client_secret_expires_at, 0);
    assert.ok(Math.abs(body.client_id_issued_at - Date.now() / 1000) < 60);
    assert.equal(body.client_name, 'Partner app');
    assert.deepEqual(body.redirect_uris, ['https://partner.example.com/cb']);
    assert.deepEqual(body.grant_types, ['authorization_code', 'refresh_token']);
    assert.deepEqual(body.response_types, ['code']);
    assert.equal(body.token_endpoint_auth_method, 'client_secret_post');
    assert.equal(body.scope, 'catalog:read knowledge:read');

    const redis = await stack.client();
    try {
      const raw = await redis.get(`kcs:{t:${acme.tenant.id}}:oauth:client:${body.client_id}`);
      assert.ok(raw);
      assert.ok(!raw.includes(body.client_secret), 'the secret itself is never stored');
      assert.equal(JSON.parse(raw).secret_digest, createHash('sha256').update(body.client_secret).digest('hex'));
    } finally {
      redis.disconnect();
    }
  });

  test('defaults: authorization_code, code, client_secret_basic, every scope but admin', async () => {
    const res = await register(acme, { redirect_uris: ['http://localhost/cb'] });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.grant_types, ['authorization_code']);
    assert.deepEqual(res.body.response_types, ['code']);
    assert.equal(res.body.token_endpoint_auth_method, 'client_secret_basic');
    assert.ok(res.body.client_secret);
    assert.equal(res.body.client_name, res.body.client_id);
    assert.ok(!res.body.scope.split(' ').includes('admin'));
    assert.ok(res.body.scope.split(' ').includes('knowledge:write'));
  });

  test('a public client (token_endpoint_auth_method none) gets no secret', async () => {
    const res = await register(acme, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.client_secret, undefined);
    assert.equal(res.body.client_secret_expires_at, 0);
  });

  test('loopback http redirect URIs (127.0.0.1, [::1], localhost) and https are accepted', async () => {
    const uris = ['http://127.0.0.1:1234/cb', 'http://[::1]:8080/cb', 'http://localhost/cb', 'https://app.example.com/oauth?x=1'];
    const res = await register(acme, { redirect_uris: uris, token_endpoint_auth_method: 'none' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.redirect_uris, uris);
  });

  const invalid: [string, unknown, string][] = [
    ['http on a non-loopback host', { redirect_uris: ['http://example.com/cb'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://app.example.com/cb#frag'] }, 'invalid_redirect_uri'],
    ['a relative URI', { redirect_uris: ['/cb'] }, 'invalid_redirect_uri'],
    ['a custom scheme', { redirect_uris: ['myapp://callback'] }, 'invalid_redirect_uri'],
    ['user information', { redirect_uris: ['https://user:pw@app.example.com/cb'] }, 'invalid_redirect_uri'],
    ['no redirect_uris for the code grant', { client_name: 'x' }, 'invalid_redirect_uri'],
    ['redirect_uris not an array', { redirect_uris: 'https://app.example.com/cb' }, 'invalid_redirect_uri'],
    ['an unknown grant type', { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'implicit'] }, 'invalid_client_metadata'],
    ['the password grant', { redirect_uris: [REDIRECT], grant_types: ['password'] }, 'invalid_client_metadata'],
    ['response_types other than code', { redirect_uris: [REDIRECT], response_types: ['token'] }, 'invalid_client_metadata'],
    ['response_types code id_token', { redirect_uris: [REDIRECT], response_types: ['code', 'id_token'] }, 'invalid_client_metadata'],
    ['an unknown scope', { redirect_uris: [REDIRECT], scope: 'knowledge:read everything' }, 'invalid_client_metadata'],
    ['an unknown auth method', { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
    ['client_credentials for a public client', { grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' }, 'invalid_client_metadata'],
    ['refresh_token without authorization_code', { grant_types: ['refresh_token'] }, 'invalid_client_metadata'],
    ['an empty grant_types list', { redirect_uris: [REDIRECT], grant_types: [] }, 'invalid_client_metadata'],
    ['a client_name that is not a string', { redirect_uris: [REDIRECT], client_name: 42 }, 'invalid_client_metadata'],
    ['a body that is an array', [{ redirect_uris: [REDIRECT] }], 'invalid_client_metadata'],
  ];
  for (const [name, body, error] of invalid) {
    test(`400 ${error}: ${name}`, async () => assertOAuthError(await register(acme, body), 400, error));
  }

  test('400 invalid_client_metadata for a body that is not JSON', async () => {
    const bad = await acme.request('POST', '/oauth/register', { raw: '{"redirect_uris": [', headers: { 'content-type': 'application/json' } });
    assertOAuthError(bad, 400, 'invalid_client_metadata');
    const form = await acme.request('POST', '/oauth/register', { raw: 'redirect_uris=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assertOAuthError(form, 400, 'invalid_client_metadata');
  });

  test('without a key: 401 invalid_token; a key without admin: 403 insufficient_scope; another tenant\'s key: 401', async () => {
    const body = { redirect_uris: [REDIRECT] };
    const none = await register(acme, body, null);
    assertOAuthError(none, 401, 'invalid_token');
    assert.match(String(none.headers['www-authenticate']), /^Bearer/);
    const weak = await register(acme, body, await acme.keyWith(['knowledge:read', 'knowledge:write']));
    assertOAuthError(weak, 403, 'insufficient_scope');
    assert.equal(weak.headers['www-authenticate'], 'Bearer error="insufficient_scope", scope="admin"');
    assertOAuthError(await register(acme, body, globex.key), 401, 'invalid_token');
  });

  test('open registration (tenant setting, PUT /api/knowledge/settings) needs no key', async () => {
    const t = await stack.tenant();
    const body = { client_name: 'Open', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' };
    assertOAuthError(await register(t, body, null), 401, 'invalid_token');
    const on = await t.request('PUT', '/api/knowledge/settings', { body: { oauth_open_registration: true } });
    assert.equal(on.status, 200, on.text);
    assert.equal(on.body.oauth_open_registration, true);
    try {
      const open = await register(t, body, null);
      assert.equal(open.status, 201, open.text);
      const stored = await t.request('GET', `${CLIENTS}/${open.body.client_id}`);
      assert.equal(stored.body.registered_by_user_id, null);
      // client_credentials acts for the registering user: not without an admin key.
      assertOAuthError(await register(t, { grant_types: ['client_credentials'] }, null), 400, 'invalid_client_metadata');
      // A key that is sent is still checked.
      assertOAuthError(await register(t, body, 'kcs_nonsense'), 401, 'invalid_token');
      const byAdmin = await register(t, body);
      assert.equal(byAdmin.status, 201);
      assert.equal((await t.request('GET', `${CLIENTS}/${byAdmin.body.client_id}`)).body.registered_by_user_id, t.user.id);
    } finally {
      const off = await t.request('PUT', '/api/knowledge/settings', { body: { oauth_open_registration: false } });
      assert.equal(off.body.oauth_open_registration, false);
    }
    assertOAuthError(await register(t, body, null), 401, 'invalid_token');
  });
});

describe('authorization code flow with PKCE (oauth4webapi)', () => {
  test('register → authorize → token → API call → refresh → reuse detection → revoke', async () => {
    const app = await newClient({ client_name: 'MCP client' });
    const created = await acme.request('POST', ENTRIES, { body: entry('Visible to the app') });
    assert.equal(created.status, 201, created.text);

    const first = await codeFlow(app, acme.key, { scope: 'knowledge:read', resource: baseUrl(stack, acme) });
    assert.equal(first.token_type, 'bearer');
    assert.equal(first.expires_in, 3600);
    assert.equal(first.scope, 'knowledge:read');
    assert.match(first.access_token, /^kcs_at_/);
    assert.match(first.refresh_token!, /^kcs_rt_/);

    const api = await oauth.protectedResourceRequest(first.access_token, 'GET', new URL(`${baseUrl(stack, acme)}${ENTRIES}`), undefined, undefined, options);
    assert.equal(api.status, 200);
    assert.ok(((await api.json()) as { id: string }[]).some((e) => e.id === created.body.id));

    // Refresh: a new pair; the old refresh token is retired.
    const second = await refresh(app, first.refresh_token!);
    assert.notEqual(second.access_token, first.access_token);
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.equal(second.scope, 'knowledge:read');
    assert.equal((await list(second.access_token)).status, 200);

    // Reuse of the retired refresh token: refused, and the whole grant is revoked.
    await rejectsWith(refresh(app, first.refresh_token!), 'invalid_grant');
    assertUnauthorized(await list(second.access_token));
    assertUnauthorized(await list(first.access_token));
    await rejectsWith(refresh(app, second.refresh_token!), 'invalid_grant');

    // A new authorization, then revocation of its refresh token (RFC 7009) ends it.
    const third = await codeFlow(app, acme.key, { scope: 'knowledge:read' });
    assert.equal((await list(third.access_token)).status, 200);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, app.client, app.auth, third.refresh_token!, { additionalParameters: { token_type_hint: 'refresh_token' }, ...options }),
    );
    assertUnauthorized(await list(third.access_token));
    await rejectsWith(refresh(app, third.refresh_token!), 'invalid_grant');
  });

  test('confidential clients authenticate with client_secret_basic and client_secret_post', async () => {
    for (const method of ['client_secret_basic', 'client_secret_post']) {
      const app = await newClient({ token_endpoint_auth_method: method });
      assert.ok(app.secret);
      const tokens = await codeFlow(app, acme.key, { scope: 'knowledge:read' });
      assert.equal((await list(tokens.access_token)).status, 200, method);
      const next = await refresh(app, tokens.refresh_token!);
      assert.equal((await list(next.access_token)).status, 200, method);
    }
  });

  test('a client without the refresh_token grant gets no refresh token', async () => {
    const app = await newClient({ grant_types: ['authorization_code'] });
    const tokens = await codeFlow(app, acme.key, { scope: 'knowledge:read' });
    assert.equal(tokens.refresh_token, undefined);
    assert.equal((await list(tokens.access_token)).status, 200);
  });

  test('scope defaults to the client\'s registered scope, intersected with the key\'s scopes', async () => {
    const app = await newClient({ scope: 'knowledge:read knowledge:write catalog:read' });
    const key = await acme.keyWith(['knowledge:read', 'catalog:read', 'catalog:write']);
    const tokens = await codeFlow(app, key);
    assert.equal(tokens.scope, 'catalog:read knowledge:read');
  });

  test('refresh may narrow the scope but never widen it', async () => {
    const app = await newClient();
    const tokens = await codeFlow(app, acme.key, { scope: 'knowledge:read catalog:read' });
    const narrowed = await oauth.processRefreshTokenResponse(as, app.client, await oauth.refreshTokenGrantRequest(
      as, app.client, app.auth, tokens.refresh_token!, { additionalParameters: { scope: 'catalog:read' }, ...options },
    ));
    assert.equal(narrowed.scope, 'catalog:read');
    assert.equal((await acme.request('GET', '/api/knowledge/sites', { key: narrowed.access_token })).status, 200);
    assert.equal((await list(narrowed.access_token)).status, 403);
    // The next refresh token still carries the original grant.
    const full = await refresh(app, narrowed.refresh_token!);
    assert.equal(full.scope, 'catalog:read knowledge:read');
    const widened = await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', refresh_token: full.refresh_token!, client_id: app.client.client_id, scope: 'knowledge:write' });
    assertOAuthError(widened, 400, 'invalid_scope');
  });
});

describe('token endpoint: negative cases', () => {
  let app: Registered;
  before(async () => {
    app = await newClient();
  });
  const exchange = (fields: Record<string, string>) =>
    postForm(acme, '/oauth/token', { grant_type: 'authorization_code', client_id: app.client.client_id, redirect_uri: REDIRECT, ...fields });

  test('a wrong code_verifier is invalid_grant (the code stays usable with the right one)', async () => {
    const { code, verifier } = await freshCode(app);
    assertOAuthError(await exchange({ code, code_verifier: oauth.generateRandomCodeVerifier() }), 400, 'invalid_grant');
    assertOAuthError(await exchange({ code }), 400, 'invalid_request');
    const ok = await exchange({ code, code_verifier: verifier });
    assert.equal(ok.status, 200, ok.text);
  });

  test('a wrong or missing redirect_uri is invalid_grant', async () => {
    const { code, verifier } = await freshCode(app);
    assertOAuthError(await exchange({ code, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:8976/other' }), 400, 'invalid_grant');
    const withoutRedirect = { grant_type: 'authorization_code', client_id: app.client.client_id, code, code_verifier: verifier };
    assertOAuthError(await postForm(acme, '/oauth/token', withoutRedirect), 400, 'invalid_grant');
  });

  test('a code used twice: the second use is invalid_grant and revokes the tokens of the first', async () => {
    const { code, verifier } = await freshCode(app);
    const first = await exchange({ code, code_verifier: verifier });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers['cache-control'], 'no-store');
    assert.equal(first.headers.pragma, 'no-cache');
    assert.equal((await list(first.body.access_token)).status, 200);

    assertOAuthError(await exchange({ code, code_verifier: verifier }), 400, 'invalid_grant');
    assertUnauthorized(await list(first.body.access_token));
    const refreshed = await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: app.client.client_id });
    assertOAuthError(refreshed, 400, 'invalid_grant');
  });

  test("another client's code is invalid_grant; unknown codes too", async () => {
    const other = await newClient();
    const { code, verifier } = await freshCode(app);
    const stolen = await postForm(acme, '/oauth/token', { grant_type: 'authorization_code', client_id: other.client.client_id, redirect_uri: REDIRECT, code, code_verifier: verifier });
    assertOAuthError(stolen, 400, 'invalid_grant');
    assertOAuthError(await exchange({ code: 'kcs_ac_' + 'x'.repeat(43), code_verifier: verifier }), 400, 'invalid_grant');
    assertOAuthError(await exchange({ code: 'garbage', code_verifier: verifier }), 400, 'invalid_grant');
    assertOAuthError(await exchange({ code_verifier: verifier }), 400, 'invalid_request');
  });

  test("a code used on another tenant's token endpoint: its client is unknown there (invalid_client)", async () => {
    const { code, verifier } = await freshCode(app);
    // The same client id does not exist in globex: the client is unknown there.
    const res = await postForm(globex, '/oauth/token', { grant_type: 'authorization_code', client_id: app.client.client_id, redirect_uri: REDIRECT, code, code_verifier: verifier });
    assertOAuthError(res, 401, 'invalid_client');
  });

  test('grant_type: missing is invalid_request, unknown is unsupported_grant_type, unregistered is unauthorized_client', async () => {
    assertOAuthError(await postForm(acme, '/oauth/token', { client_id: app.client.client_id }), 400, 'invalid_request');
    assertOAuthError(await postForm(acme, '/oauth/token', { grant_type: 'password', client_id: app.client.client_id }), 400, 'unsupported_grant_type');
    assertOAuthError(await postForm(acme, '/oauth/token', { grant_type: 'client_credentials', client_id: app.client.client_id }), 400, 'unauthorized_client');
  });

  test('client authentication failures are 401 invalid_client with WWW-Authenticate: Basic', async () => {
    const confidential = await newClient({ token_endpoint_auth_method: 'client_secret_basic' });
    const id = confidential.client.client_id;
    const cases: HttpResult[] = [
      await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x' }),
      await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: '00000000-0000-4000-8000-000000000000' }),
      await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: id }),
      await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: id, client_secret: 'wrong' }),
      await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x' }, { id, secret: 'wrong' }),
      await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x' }, { id: 'nobody', secret: 'x' }),
      await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: app.client.client_id, client_secret: 'public has none' }),
      await postForm(globex, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x' }, { id, secret: confidential.secret! }),
    ];
    for (const res of cases) {
      assertOAuthError(res, 401, 'invalid_client');
      assert.match(String(res.headers['www-authenticate']), /^Basic realm=/);
    }
    // The right secret gets past client authentication (and the made-up refresh token is refused).
    assertOAuthError(await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x' }, { id, secret: confidential.secret! }), 400, 'invalid_grant');
  });

  test('an Authorization: Bearer header (spec §5.4) is not client authentication and is ignored', async () => {
    const { code, verifier } = await freshCode(app);
    const res = await acme.request('POST', '/oauth/token', {
      raw: new URLSearchParams({ grant_type: 'authorization_code', client_id: app.client.client_id, redirect_uri: REDIRECT, code, code_verifier: verifier }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['access-control-allow-origin'], '*');
  });

  test('Basic and client_secret together, and a form that is not form-encoded, are invalid_request', async () => {
    const confidential = await newClient({ token_endpoint_auth_method: 'client_secret_basic' });
    const both = await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', client_secret: confidential.secret! }, { id: confidential.client.client_id, secret: confidential.secret! });
    assertOAuthError(both, 400, 'invalid_request');
    const jsonBody = await acme.request('POST', '/oauth/token', { key: undefined, body: { grant_type: 'refresh_token' } });
    assertOAuthError(jsonBody, 400, 'invalid_request');
    const repeated = await acme.request('POST', '/oauth/token', {
      key: undefined, raw: `grant_type=refresh_token&grant_type=password&client_id=${app.client.client_id}`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assertOAuthError(repeated, 400, 'invalid_request');
  });

  test('client_credentials: a public client is refused; a confidential one gets an access token only', async () => {
    const publicOne = await register(acme, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    assertOAuthError(await postForm(acme, '/oauth/token', { grant_type: 'client_credentials', client_id: publicOne.body.client_id }), 400, 'unauthorized_client');

    const service = await newClient({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', redirect_uris: [], scope: 'knowledge:read knowledge:write' });
    const tokens = await oauth.processClientCredentialsResponse(as, service.client,
      await oauth.clientCredentialsGrantRequest(as, service.client, service.auth, new URLSearchParams({ scope: 'knowledge:write' }), options));
    assert.equal(tokens.refresh_token, undefined);
    assert.equal(tokens.scope, 'knowledge:write');
    // It acts for the user whose admin key registered the client.
    const created = await acme.request('POST', ENTRIES, { key: tokens.access_token, body: entry('By service') });
    assert.equal(created.status, 201, created.text);
    const audit = await acme.request('GET', `/api/knowledge/audit?entity_id=${created.body.id}`);
    assert.equal(audit.body[0].user_id, acme.user.id);
    assert.equal(audit.body[0].client_id, service.client.client_id);
    assert.equal((await list(tokens.access_token)).status, 403, 'only the narrowed scope');
    const wide = await postForm(acme, '/oauth/token', { grant_type: 'client_credentials', scope: 'admin' }, { id: service.client.client_id, secret: service.secret! });
    assertOAuthError(wide, 400, 'invalid_scope');
  });
});

describe('authorization endpoint: errors', () => {
  let app: Registered;
  before(async () => {
    app = await newClient({ scope: 'knowledge:read catalog:read' });
  });

  function assertErrorPage(res: HttpResult, status = 400): void {
    assert.equal(res.status, status, res.text);
    assert.equal(res.headers.location, undefined, 'never a redirect');
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
  }

  /** A redirect back to the client with this error, the state and the issuer. */
  function assertRedirectError(res: HttpResult, error: string, state: string | null): void {
    assert.equal(res.status, 302, res.text);
    const location = new URL(String(res.headers.location));
    assert.equal(location.origin + location.pathname, REDIRECT);
    assert.equal(location.searchParams.get('error'), error);
    assert.ok(location.searchParams.get('error_description'));
    assert.equal(location.searchParams.get('state'), state);
    assert.equal(location.searchParams.get('iss'), as.issuer);
  }

  test('an unknown client or an unregistered redirect_uri is an error page, never a redirect', async () => {
    const unknown = await authorizationUrl(as, '00000000-0000-4000-8000-000000000000', REDIRECT);
    assertErrorPage(await get(stack, unknown.url));
    const garbage = await authorizationUrl(as, 'not-a-uuid', REDIRECT);
    assertErrorPage(await get(stack, garbage.url));
    const elsewhere = await authorizationUrl(as, app.client.client_id, 'http://127.0.0.1:8976/evil');
    assertErrorPage(await get(stack, elsewhere.url));
    const prefix = await authorizationUrl(as, app.client.client_id, `${REDIRECT}/more`);
    assertErrorPage(await get(stack, prefix.url));
    const noClient = new URL(unknown.url);
    noClient.searchParams.delete('client_id');
    assertErrorPage(await get(stack, noClient));
    const twice = new URL(unknown.url);
    twice.searchParams.set('client_id', app.client.client_id);
    twice.searchParams.append('redirect_uri', 'https://evil.example.com/cb');
    assertErrorPage(await get(stack, twice));
  });

  test("another tenant's client is unknown here", async () => {
    const there = await newClient({}, globex);
    const { url } = await authorizationUrl(as, there.client.client_id, REDIRECT);
    assertErrorPage(await get(stack, url));
  });

  test('a public client without PKCE is refused (redirect with invalid_request)', async () => {
    const { url, state } = await authorizationUrl(as, app.client.client_id, REDIRECT);
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    assertRedirectError(await get(stack, url), 'invalid_request', state);
  });

  test('PKCE plain, or a malformed challenge, is refused', async () => {
    const plain = await authorizationUrl(as, app.client.client_id, REDIRECT, { code_challenge_method: 'plain' });
    assertRedirectError(await get(stack, plain.url), 'invalid_request', plain.state);
    const missingMethod = await authorizationUrl(as, app.client.client_id, REDIRECT);
    missingMethod.url.searchParams.delete('code_challenge_method');
    assertRedirectError(await get(stack, missingMethod.url), 'invalid_request', missingMethod.state);
    const short = await authorizationUrl(as, app.client.client_id, REDIRECT, { code_challenge: 'abc' });
    assertRedirectError(await get(stack, short.url), 'invalid_request', short.state);
  });

  test('response_type, scope and resource errors redirect with their RFC codes', async () => {
    const token = await authorizationUrl(as, app.client.client_id, REDIRECT, { response_type: 'token' });
    assertRedirectError(await get(stack, token.url), 'unsupported_response_type', token.state);
    const noType = await authorizationUrl(as, app.client.client_id, REDIRECT);
    noType.url.searchParams.delete('response_type');
    assertRedirectError(await get(stack, noType.url), 'invalid_request', noType.state);
    const unknownScope = await authorizationUrl(as, app.client.client_id, REDIRECT, { scope: 'knowledge:read everything' });
    assertRedirectError(await get(stack, unknownScope.url), 'invalid_scope', unknownScope.state);
    const unregisteredScope = await authorizationUrl(as, app.client.client_id, REDIRECT, { scope: 'knowledge:write' });
    assertRedirectError(await get(stack, unregisteredScope.url), 'invalid_scope', unregisteredScope.state);
    for (const resource of ['https://elsewhere.example.com', `${baseUrl(stack, globex)}`, `${baseUrl(stack, acme)}/other`, 'not a url']) {
      const bad = await authorizationUrl(as, app.client.client_id, REDIRECT, { resource });
      assertRedirectError(await get(stack, bad.url), 'invalid_target', bad.state);
    }
  });

  test('a client registered only for client_credentials cannot use the code flow', async () => {
    const service = await register(acme, { grant_types: ['client_credentials'], redirect_uris: [REDIRECT] });
    assert.equal(service.status, 201, service.text);
    const { url, state } = await authorizationUrl(as, service.body.client_id, REDIRECT);
    assertRedirectError(await get(stack, url), 'unauthorized_client', state);
  });

  test('without redirect_uri the single registered URI is used; the token request then may omit it', async () => {
    const { url, verifier, state } = await authorizationUrl(as, app.client.client_id, REDIRECT);
    url.searchParams.delete('redirect_uri');
    const back = await approve(stack, url, acme.key);
    assert.equal(back.origin + back.pathname, REDIRECT);
    assert.equal(back.searchParams.get('state'), state);
    const res = await postForm(acme, '/oauth/token', { grant_type: 'authorization_code', client_id: app.client.client_id, code: back.searchParams.get('code')!, code_verifier: verifier });
    assert.equal(res.status, 200, res.text);
  });
});

describe('consent form', () => {
  let app: Registered;
  before(async () => {
    app = await newClient({ client_name: '<script>alert("x")</script> & Co', scope: 'knowledge:read knowledge:write' });
  });

  test('the page names the client, the redirect host and the scopes, escaped; it cannot be framed or cached', async () => {
    const { url } = await authorizationUrl(as, app.client.client_id, REDIRECT, { scope: 'knowledge:read' });
    const page = await openConsent(stack, url);
    const html = page.res.text;
    assert.ok(!html.includes('<script>'), 'no unescaped client name');
    assert.ok(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co'));
    assert.ok(html.includes('127.0.0.1:8976'));
    assert.ok(html.includes('knowledge:read'));
    assert.ok(!html.includes('knowledge:write'));
    const h = page.res.headers;
    assert.equal(h['x-frame-options'], 'DENY');
    assert.match(String(h['content-security-policy']), /frame-ancestors 'none'/);
    assert.match(String(h['content-security-policy']), /default-src 'none'/);
    assert.equal(h['cache-control'], 'no-store');
    assert.match(String(h['set-cookie']), /HttpOnly/);
    assert.match(String(h['set-cookie']), /SameSite=Strict/);
    assert.match(String(h['set-cookie']), /Path=\/oauth\/authorize/);
  });

  test('a CSRF token mismatch (field or cookie) is refused with 403 and the request stays answerable', async () => {
    const { url, state } = await authorizationUrl(as, app.client.client_id, REDIRECT, { scope: 'knowledge:read' });
    const page = await openConsent(stack, url);
    const wrongField = await answerConsent(stack, url, page, { csrf_token: 'forged', api_key: acme.key, decision: 'approve' });
    assert.equal(wrongField.status, 403, wrongField.text);
    assert.equal(wrongField.headers.location, undefined);
    const noCookie = await answerConsent(stack, url, page, { api_key: acme.key, decision: 'approve' }, { cookie: '' });
    assert.equal(noCookie.status, 403);
    const wrongCookie = await answerConsent(stack, url, page, { api_key: acme.key, decision: 'approve' }, { cookie: `kcs_csrf_${page.requestId}=forged` });
    assert.equal(wrongCookie.status, 403);
    const crossSite = await answerConsent(stack, url, page, { api_key: acme.key, decision: 'approve' }, { origin: 'https://evil.example.com' });
    assert.equal(crossSite.status, 403);

    const ok = await answerConsent(stack, url, page, { api_key: acme.key, decision: 'approve' }, { origin: baseUrl(stack, acme) });
    assert.equal(ok.status, 302, ok.text);
    const back = new URL(String(ok.headers.location));
    assert.ok(back.searchParams.get('code'));
    assert.equal(back.searchParams.get('state'), state);
    assert.equal(back.searchParams.get('iss'), as.issuer);
    assert.match(String(ok.headers['set-cookie']), /Max-Age=0/);
  });

  test('a wrong key re-renders the page (401); a key of another tenant too; then a right key works', async () => {
    const { url } = await authorizationUrl(as, app.client.client_id, REDIRECT, { scope: 'knowledge:read' });
    const page = await openConsent(stack, url);
    const wrong = await answerConsent(stack, url, page, { api_key: 'kcs_wrong', decision: 'approve' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.text, /not a valid API key/);
    assert.match(wrong.text, /name="request_id"/);
    const foreign = await answerConsent(stack, url, page, { api_key: globex.key, decision: 'approve' });
    assert.equal(foreign.status, 401);
    const empty = await answerConsent(stack, url, page, { decision: 'approve' });
    assert.equal(empty.status, 401);
    const ok = await answerConsent(stack, url, page, { api_key: acme.key, decision: 'approve' });
    assert.equal(ok.status, 302);
  });

  test('the granted scopes are the requested ones the key holds; none in common is refused', async () => {
    const { url, verifier } = await authorizationUrl(as, app.client.client_id, REDIRECT, { scope: 'knowledge:read knowledge:write' });
    const readOnly = await acme.keyWith(['knowledge:read', 'catalog:read']);
    const back = await approve(stack, url, readOnly);
    const res = await postForm(acme, '/oauth/token', { grant_type: 'authorization_code', client_id: app.client.client_id, redirect_uri: REDIRECT, code: back.searchParams.get('code')!, code_verifier: verifier });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.scope, 'knowledge:read');

    const other = await authorizationUrl(as, app.client.client_id, REDIRECT, { scope: 'knowledge:write' });
    const page = await openConsent(stack, other.url);
    const refused = await answerConsent(stack, other.url, page, { api_key: readOnly, decision: 'approve' });
    assert.equal(refused.status, 403);
    assert.match(refused.text, /none of the requested permissions/);
  });

  test('deny redirects with access_denied, state and iss, without a key; the request is then answered', async () => {
    const { url, state } = await authorizationUrl(as, app.client.client_id, REDIRECT, { scope: 'knowledge:read' });
    const page = await openConsent(stack, url);
    const denied = await answerConsent(stack, url, page, { decision: 'deny' });
    assert.equal(denied.status, 302);
    const back = new URL(String(denied.headers.location));
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), state);
    assert.equal(back.searchParams.get('iss'), as.issuer);
    assert.equal(back.searchParams.get('code'), null);
    const again = await answerConsent(stack, url, page, { api_key: acme.key, decision: 'approve' });
    assert.equal(again.status, 400, 'an answered request cannot be answered again');
    assert.equal(again.headers.location, undefined);
  });

  test('an unknown request id is an error page', async () => {
    const { url } = await authorizationUrl(as, app.client.client_id, REDIRECT);
    const page = await openConsent(stack, url);
    const res = await answerConsent(stack, url, { ...page, requestId: '00000000-0000-4000-8000-000000000000' }, { api_key: acme.key, decision: 'approve' });
    assert.equal(res.status, 400);
  });
});

describe('access tokens on /api', () => {
  let app: Registered;
  before(async () => {
    app = await newClient();
  });

  test("a token is a 401 on another tenant's host", async () => {
    const tokens = await codeFlow(app, acme.key, { scope: 'knowledge:read' });
    assertUnauthorized(await list(tokens.access_token, globex), globex);
    assert.equal((await list(tokens.access_token)).status, 200);
  });

  test('a missing scope is a 403 insufficient_scope', async () => {
    const tokens = await codeFlow(app, acme.key, { scope: 'knowledge:read' });
    const res = await acme.request('POST', ENTRIES, { key: tokens.access_token, body: entry('t') });
    assert.equal(res.status, 403);
    assert.equal(res.headers['www-authenticate'], 'Bearer error="insufficient_scope", scope="knowledge:write"');
    assert.equal((await acme.request('GET', '/api/knowledge/sites', { key: tokens.access_token })).status, 403);
  });

  test('X-Client-Id in the audit log comes from the token, never the header; credential_id is the grant', async () => {
    const tokens = await codeFlow(app, acme.key, { scope: 'knowledge:read knowledge:write' });
    const created = await acme.request('POST', ENTRIES, {
      key: tokens.access_token,
      headers: { 'x-client-id': 'spoofed-client', 'x-audit-source': 'mcp' },
      body: entry('From the app'),
    });
    assert.equal(created.status, 201, created.text);
    const audit = await acme.request('GET', `/api/knowledge/audit?entity_id=${created.body.id}`);
    assert.equal(audit.status, 200);
    const event = audit.body[0];
    assert.equal(event.client_id, app.client.client_id);
    assert.equal(event.audit_source, 'mcp');
    assert.equal(event.user_id, acme.user.id);
    assert.equal(event.credential_id, /^kcs_at_([0-9a-f-]{36})_/.exec(tokens.access_token)![1]);

    // An API key never carries a client id, whatever the header says.
    const byKey = await acme.request('POST', ENTRIES, { headers: { 'x-client-id': 'spoofed-client' }, body: entry('By key') });
    assert.equal((await acme.request('GET', `/api/knowledge/audit?entity_id=${byKey.body.id}`)).body[0].client_id, null);
  });

  test('X-Scopes narrows a token like a key', async () => {
    const tokens = await codeFlow(app, acme.key, { scope: 'knowledge:read catalog:read' });
    assert.equal((await list(tokens.access_token, acme, { 'x-scopes': 'catalog:read' })).status, 403);
    assert.equal((await list(tokens.access_token, acme, { 'x-scopes': 'knowledge:read' })).status, 200);
  });

  test('a token bound to <base>/mcp is refused on /api; one bound to <base>/api works', async () => {
    const mcp = await codeFlow(app, acme.key, { scope: 'knowledge:read', resource: `${baseUrl(stack, acme)}/mcp` });
    assertUnauthorized(await list(mcp.access_token));
    const api = await codeFlow(app, acme.key, { scope: 'knowledge:read', resource: `${baseUrl(stack, acme)}/api/` });
    assert.equal((await list(api.access_token)).status, 200);
    // A token request may narrow a base-URL grant to a path, not widen a path grant.
    const base = await freshCode(app, acme.key, { scope: 'knowledge:read' });
    const narrowed = await postForm(acme, '/oauth/token', {
      grant_type: 'authorization_code', client_id: app.client.client_id, redirect_uri: REDIRECT, code: base.code, code_verifier: base.verifier,
      resource: `${baseUrl(stack, acme)}/mcp`,
    });
    assert.equal(narrowed.status, 200, narrowed.text);
    assertUnauthorized(await list(narrowed.body.access_token));
    const widen = await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', client_id: app.client.client_id, refresh_token: mcp.refresh_token!, resource: baseUrl(stack, acme) });
    assertOAuthError(widen, 400, 'invalid_target');
  });

  test('made-up and malformed tokens are 401', async () => {
    for (const token of ['kcs_at_', `kcs_at_00000000-0000-4000-8000-000000000000_${'a'.repeat(43)}`, 'kcs_rt_x']) {
      assertUnauthorized(await list(token));
    }
    const tokens = await codeFlow(app, acme.key, { scope: 'knowledge:read' });
    // A refresh token is not an access token.
    assertUnauthorized(await list(tokens.refresh_token!));
  });
});

describe('revocation (RFC 7009)', () => {
  let app: Registered;
  before(async () => {
    app = await newClient();
  });
  const revoke = (fields: Record<string, string>, c = app) => postForm(acme, '/oauth/revoke', { client_id: c.client.client_id, ...fields });

  test('revoking an access token ends only that token', async () => {
    const tokens = await codeFlow(app, acme.key, { scope: 'knowledge:read' });
    const res = await revoke({ token: tokens.access_token, token_type_hint: 'access_token' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.text, '');
    assertUnauthorized(await list(tokens.access_token));
    const next = await refresh(app, tokens.refresh_token!);
    assert.equal((await list(next.access_token)).status, 200);
  });

  test('revoking a refresh token (any hint) revokes its grant', async () => {
    const tokens = await codeFlow(app, acme.key, { scope: 'knowledge:read' });
    assert.equal((await revoke({ token: tokens.refresh_token!, token_type_hint: 'access_token' })).status, 200);
    assertUnauthorized(await list(tokens.access_token));
    await rejectsWith(refresh(app, tokens.refresh_token!), 'invalid_grant');
  });

  test('unknown tokens and other clients\' tokens answer 200 and change nothing', async () => {
    const other = await newClient();
    const tokens = await codeFlow(app, acme.key, { scope: 'knowledge:read' });
    for (const token of ['nonsense', `kcs_at_00000000-0000-4000-8000-000000000000_${'a'.repeat(43)}`, tokens.access_token, tokens.refresh_token!]) {
      const res = await revoke({ token }, other);
      assert.equal(res.status, 200, res.text);
    }
    assert.equal((await list(tokens.access_token)).status, 200);
    assert.ok(await refresh(app, tokens.refresh_token!));
  });

  test('a missing token is invalid_request; no client authentication is invalid_client', async () => {
    assertOAuthError(await revoke({}), 400, 'invalid_request');
    assertOAuthError(await postForm(acme, '/oauth/revoke', { token: 'x' }), 401, 'invalid_client');
  });
});

describe('admin: OAuth clients', () => {
  test('list, read, delete (which revokes every token of the client); no secrets; admin scope only', async () => {
    const app = await newClient({ client_name: 'To delete', token_endpoint_auth_method: 'client_secret_basic' });
    const tokens = await codeFlow(app, acme.key, { scope: 'knowledge:read' });
    assert.equal((await list(tokens.access_token)).status, 200);

    const listed = await acme.request('GET', CLIENTS);
    assert.equal(listed.status, 200);
    const entry = listed.body.find((c: { client_id: string }) => c.client_id === app.client.client_id);
    assert.ok(entry);
    assert.equal(entry.client_name, 'To delete');
    assert.equal(entry.tenant_id, acme.tenant.id);
    assert.equal(entry.registered_by_user_id, acme.user.id);
    for (const client of listed.body) {
      assert.equal(client.client_secret, undefined);
      assert.equal(client.secret_digest, undefined);
    }
    assert.ok(!(await globex.request('GET', CLIENTS)).body.some((c: { client_id: string }) => c.client_id === app.client.client_id));

    const one = await acme.request('GET', `${CLIENTS}/${app.client.client_id.toUpperCase()}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, entry);
    assert.equal((await globex.request('GET', `${CLIENTS}/${app.client.client_id}`)).status, 404);
    assert.equal((await acme.request('GET', `${CLIENTS}/not-a-uuid`)).status, 422);

    const weak = await acme.keyWith(['knowledge:read', 'knowledge:write', 'catalog:read']);
    assert.equal((await acme.request('GET', CLIENTS, { key: weak })).status, 403);
    assert.equal((await acme.request('DELETE', `${CLIENTS}/${app.client.client_id}`, { key: weak })).status, 403);
    assert.equal((await acme.request('GET', CLIENTS, { key: tokens.access_token })).status, 403);

    const deleted = await acme.request('DELETE', `${CLIENTS}/${app.client.client_id}`);
    assert.equal(deleted.status, 204);
    assertUnauthorized(await list(tokens.access_token));
    assertOAuthError(await postForm(acme, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }, { id: app.client.client_id, secret: app.secret! }), 401, 'invalid_client');
    assert.equal((await acme.request('GET', `${CLIENTS}/${app.client.client_id}`)).status, 404);
    assert.equal((await acme.request('DELETE', `${CLIENTS}/${app.client.client_id}`)).status, 404);
  });

  test('an outstanding code of a deleted client cannot be exchanged', async () => {
    const app = await newClient();
    const { code, verifier } = await freshCode(app);
    assert.equal((await acme.request('DELETE', `${CLIENTS}/${app.client.client_id}`)).status, 204);
    const res = await postForm(acme, '/oauth/token', { grant_type: 'authorization_code', client_id: app.client.client_id, redirect_uri: REDIRECT, code, code_verifier: verifier });
    assertOAuthError(res, 401, 'invalid_client');
  });
});

describe('OpenAPI document', () => {
  test('documents the OAuth routes with their RFC error bodies and request formats', async () => {
    const doc = (await stack.request('GET', '/openapi.json')).body;
    const expected: Record<string, string[]> = {
      '/.well-known/oauth-authorization-server': ['get'],
      '/.well-known/oauth-protected-resource': ['get'],
      '/oauth/register': ['post'],
      '/oauth/authorize': ['get', 'post'],
      '/oauth/token': ['post'],
      '/oauth/revoke': ['post'],
      '/api/knowledge/oauth/clients': ['get'],
      '/api/knowledge/oauth/clients/{client_id}': ['delete', 'get'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      for (const method of methods) assert.ok(doc.paths[path]?.[method], `missing ${method.toUpperCase()} ${path}`);
    }
    const token = doc.paths['/oauth/token'].post;
    assert.ok(token.requestBody.content['application/x-www-form-urlencoded'].schema);
    assert.equal(token.responses['400'].content['application/json'].schema.$ref, '#/components/schemas/OAuthError');
    assert.equal(token.responses['422'], undefined, 'OAuth endpoints never answer 422');
    assert.ok(doc.paths['/oauth/register'].post.requestBody.content['application/json'].schema);
    assert.ok(doc.paths['/oauth/authorize'].get.parameters.some((p: { name: string }) => p.name === 'code_challenge'));
    assert.deepEqual(doc.paths['/api/knowledge/oauth/clients'].get['x-required-scopes'], ['admin']);
  });
});
