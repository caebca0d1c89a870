// GET /api/knowledge/whoami: the tenant and the calling credential with its scopes (the console
// shows what they allow); any valid credential, 401 without one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

let stack: Stack;
let t: TenantFixture;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
  t = await stack.tenant();
});
after(() => stack.close());

test('an API key: its tenant, user and scopes', async () => {
  const key = await t.keyWith(['knowledge:read', 'catalog:read']);
  const res = await t.request('GET', '/api/knowledge/whoami', { key });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.tenant, { id: t.tenant.id, slug: t.tenant.slug, name: t.tenant.name });
  assert.deepEqual([res.body.credential, res.body.user_id, res.body.client_id], ['api_key', t.user.id, null]);
  assert.deepEqual(res.body.scopes, ['catalog:read', 'knowledge:read']);
  assert.match(res.body.credential_id, /^[0-9a-f-]{36}$/);
});

test('no credential: 401; a key of another tenant: 401', async () => {
  assert.equal((await t.request('GET', '/api/knowledge/whoami', { key: undefined })).status, 401);
  const other = await stack.tenant();
  assert.equal((await t.request('GET', '/api/knowledge/whoami', { key: other.key })).status, 401);
});
