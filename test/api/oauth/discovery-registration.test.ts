// OAuth discovery (RFC 8414, RFC 9728), dynamic client registration (RFC 7591) and the OAuth routes
// of the OpenAPI document.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { assertOAuthError, baseUrl, discover, get, register } from '../../helpers/oauth.js';
import { stack, useStack, acme, globex, as, options, ENTRIES, CLIENTS, REDIRECT } from './fixtures.js';

useStack();

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
