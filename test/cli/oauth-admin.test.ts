// `kcs admin client …` and `kcs admin registration …` against a private redis-server, checked
// through the HTTP API of a kcs on the same store.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { register } from '../helpers/oauth.js';
import { runCli } from '../helpers/process.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

let stack: Stack;
let t: TenantFixture;
let env: Record<string, string>;
before(async () => {
  stack = await startStack();
  t = await stack.tenant();
  env = { ...stack.redisEnv, LOG_LEVEL: 'silent' };
});
after(() => stack.close());

const admin = async (...args: string[]) => {
  const run = await runCli(['admin', ...args], env);
  const out = run.stdout.trim();
  return { ...run, json: run.code === 0 && (out.startsWith('{') || out.startsWith('[')) ? JSON.parse(out) : undefined };
};

test('list, show and delete OAuth clients; deleting revokes their tokens', async () => {
  const reg = await register(t, { client_name: 'CLI app', redirect_uris: ['https://app.example.com/cb'], grant_types: ['client_credentials'] });
  assert.equal(reg.status, 201, reg.text);
  const id = reg.body.client_id;
  const basic = Buffer.from(`${id}:${reg.body.client_secret}`).toString('base64');
  const token = await t.request('POST', '/oauth/token', {
    key: undefined, raw: 'grant_type=client_credentials&scope=knowledge:read',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
  });
  assert.equal(token.status, 200, token.text);
  const read = () => t.request('GET', '/api/knowledge/knowledge-entries', { key: token.body.access_token });
  assert.equal((await read()).status, 200);

  const listed = await admin('client', 'list', '--tenant', t.tenant.slug);
  assert.equal(listed.code, 0, listed.stderr);
  const entry = listed.json.find((c: { client_id: string }) => c.client_id === id);
  assert.equal(entry.client_name, 'CLI app');
  assert.equal(entry.secret_digest, undefined, 'never the secret digest');

  const shown = await admin('client', 'show', '--tenant', t.tenant.slug, id);
  assert.equal(shown.code, 0, shown.stderr);
  assert.deepEqual(shown.json, entry);

  const deleted = await admin('client', 'delete', '--tenant', t.tenant.slug, id);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.equal((await read()).status, 401);
  assert.equal((await admin('client', 'show', '--tenant', t.tenant.slug, id)).code, 1);
  assert.equal((await admin('client', 'delete', '--tenant', t.tenant.slug, id)).code, 1);
  assert.equal((await admin('client', 'delete', '--tenant', t.tenant.slug)).code, 2);
});

test('registration open|close toggles oauth_open_registration', async () => {
  const body = { redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' };
  assert.equal((await register(t, body, null)).status, 401);
  const opened = await admin('registration', 'open', '--tenant', t.tenant.slug);
  assert.equal(opened.code, 0, opened.stderr);
  assert.equal(opened.json.settings.oauth_open_registration, true);
  // The serving process caches the tenant for up to a second.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  assert.equal((await register(t, body, null)).status, 201);
  const closed = await admin('registration', 'close', '--tenant', t.tenant.slug);
  assert.equal(closed.json.settings.oauth_open_registration, false);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  assert.equal((await register(t, body, null)).status, 401);
  assert.match((await admin('--help')).stdout, /client delete/);
});
