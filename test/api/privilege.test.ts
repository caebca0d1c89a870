// No privilege escalation through the admin routes (DESIGN §2: "An API key created through the admin
// routes never holds a scope its creator's effective scopes (after X-Scopes) lack; otherwise 403"):
// API keys minted over HTTP, keys for other users (which could read their personal entries), and
// client_credentials OAuth clients, whose tokens act for the admin that registered them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { assertError, assertInsufficientScope } from '../helpers/assertions.js';

const KEYS = '/api/knowledge/api-keys';

let stack: Stack;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
});
after(() => stack.close());

const mint = (t: TenantFixture, body: Record<string, unknown>, options: { key?: string; headers?: Record<string, string> } = {}) =>
  t.request('POST', KEYS, { body: { name: 'minted', ...body }, ...options });

async function keyIds(t: TenantFixture): Promise<string[]> {
  return (await t.request('GET', KEYS)).body.map((k: { id: string }) => k.id);
}

describe('POST /api/knowledge/api-keys: never more than the caller holds', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  test('an admin key cannot mint scopes it lacks (403 naming them); nothing is created', async () => {
    const adminOnly = await t.keyWith(['admin', 'catalog:read']);
    const before = await keyIds(t);
    assertInsufficientScope(await mint(t, { scopes: ['admin', 'visibility:restricted'] }, { key: adminOnly }), 'visibility:restricted');
    assertInsufficientScope(await mint(t, { scopes: ['knowledge:read', 'catalog:read', 'knowledge:write'] }, { key: adminOnly }), 'knowledge:read knowledge:write');
    assert.deepEqual(await keyIds(t), before);
  });

  test('X-Scopes narrows what may be minted: exactly the scopes the gateway took away are refused', async () => {
    const narrowed = { 'X-Scopes': 'admin' };
    assertInsufficientScope(await mint(t, { scopes: ['catalog:write'] }, { headers: narrowed }), 'catalog:write');
    assertInsufficientScope(await mint(t, { scopes: ['admin', 'knowledge:read'] }, { headers: narrowed }), 'knowledge:read');
    const allowed = await mint(t, { scopes: ['admin'] }, { headers: narrowed });
    assert.equal(allowed.status, 201, allowed.text);
    assert.deepEqual(allowed.body.scopes, ['admin']);
  });

  test('a subset of the caller\'s scopes is minted (201) and works', async () => {
    const caller = await t.keyWith(['admin', 'catalog:read']);
    const res = await mint(t, { scopes: ['catalog:read'] }, { key: caller });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.user_id, t.user.id);
    assert.equal((await t.request('GET', '/api/knowledge/sites', { key: res.body.key })).status, 200);
    assert.equal((await mint(t, { scopes: ['admin', 'catalog:read'] }, { key: caller })).status, 201);
  });

  test('a key for another user is refused (403), whatever the scopes; the caller\'s own id is fine', async () => {
    const other = await stack.services.users.create(t.tenant.id, { email: `other-${randomUUID()}@x.test`, name: 'Other' });
    for (const scopes of [['knowledge:read'], ['admin']]) {
      const res = await mint(t, { scopes, user_id: other.id });
      assertError(res, 403);
      assert.match(res.body.detail, /kcs admin key create/);
    }
    assertError(await mint(t, { scopes: ['catalog:read'], user_id: randomUUID() }), 403);
    for (const id of [t.user.id, t.user.id.toUpperCase()]) {
      const res = await mint(t, { scopes: ['catalog:read'], user_id: id });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.user_id, t.user.id);
    }
  });
});

describe('POST /oauth/register: a client_credentials client holds nothing its registrant lacks', () => {
  const confidential = { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post' };

  test('an admin narrowed by X-Scopes or lacking scopes is refused 403 insufficient_scope', async () => {
    const t = await stack.tenant();
    const register = (body: Record<string, unknown>, options: { key?: string; headers?: Record<string, string> } = {}) =>
      t.request('POST', '/oauth/register', { body, ...options });
    const refused = await register({ ...confidential, scope: 'knowledge:read visibility:restricted' }, { headers: { 'X-Scopes': 'admin knowledge:read' } });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error, 'insufficient_scope');
    assert.match(refused.body.error_description, /visibility:restricted/);
    // Without `scope` the client would get every scope but admin: more than this key holds.
    const adminKey = await t.keyWith(['admin', 'catalog:read']);
    assert.equal((await register(confidential, { key: adminKey })).status, 403);
    assert.equal((await register({ ...confidential, scope: 'admin' }, { key: adminKey })).status, 201);
    assert.equal((await register({ ...confidential, scope: 'catalog:read' }, { headers: { 'X-Scopes': 'admin catalog:read' } })).status, 201);
    // An authorization_code client is bounded by the key that approves each grant, not by its registrant.
    const codeClient = await register(
      { redirect_uris: ['http://127.0.0.1:9/cb'], scope: 'knowledge:read visibility:restricted' }, { key: adminKey },
    );
    assert.equal(codeClient.status, 201, codeClient.text);
  });
});
