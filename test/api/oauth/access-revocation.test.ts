// OAuth tokens in use: access tokens on /api (tenant, scope, audience, the audit log's client id),
// revocation (RFC 7009), and the admin routes of OAuth clients (deleting one revokes its tokens).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertOAuthError, baseUrl, postForm } from '../../helpers/oauth.js';
import {
  stack, useStack, acme, globex, ENTRIES, CLIENTS, REDIRECT, type Registered,
  entry, newClient, codeFlow, freshCode, refresh, rejectsWith, list, assertUnauthorized,
} from './fixtures.js';

useStack();

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
