// The code flow with PKCE end to end through oauth4webapi (token, refresh rotation with reuse
// detection, revocation), and the token endpoint's negative cases, client authentication and
// client_credentials.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { assertOAuthError, baseUrl, postForm, register } from '../../helpers/oauth.js';
import type { HttpResult } from '../../helpers/stack.js';
import {
  stack, useStack, acme, globex, as, options, ENTRIES, REDIRECT, type Registered,
  entry, newClient, codeFlow, freshCode, refresh, rejectsWith, list, assertUnauthorized,
} from './fixtures.js';

useStack();

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
