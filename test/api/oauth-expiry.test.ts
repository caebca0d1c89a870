// Lifetimes of OAuth codes and tokens, with short TTLs set through the environment
// (KCS_OAUTH_CODE_TTL_S, KCS_OAUTH_ACCESS_TTL_S): an expired code and an expired access token.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { approve, assertOAuthError, authorizationUrl, discover, postForm, register } from '../helpers/oauth.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const REDIRECT = 'http://127.0.0.1:8976/callback';
let stack: Stack;
let t: TenantFixture;
let clientId: string;

before(async () => {
  stack = await startStack({ KCS_OAUTH_CODE_TTL_S: '1', KCS_OAUTH_ACCESS_TTL_S: '2' });
  t = await stack.tenant();
  const reg = await register(t, { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' });
  assert.equal(reg.status, 201, reg.text);
  clientId = reg.body.client_id;
});
after(() => stack.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function code(): Promise<{ code: string; verifier: string }> {
  const { url, verifier } = await authorizationUrl(await discover(stack, t), clientId, REDIRECT, { scope: 'knowledge:read' });
  return { code: (await approve(stack, url, t.key)).searchParams.get('code')!, verifier };
}

const exchange = (c: { code: string; verifier: string }) =>
  postForm(t, '/oauth/token', { grant_type: 'authorization_code', client_id: clientId, redirect_uri: REDIRECT, code: c.code, code_verifier: c.verifier });

test('a code past its TTL is invalid_grant', async () => {
  const fresh = await code();
  await sleep(1300);
  assertOAuthError(await exchange(fresh), 400, 'invalid_grant');
});

test('an access token past its TTL is a 401; the refresh token still gets a new one', async () => {
  const res = await exchange(await code());
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.expires_in, 2);
  const read = (key: string) => t.request('GET', '/api/knowledge/knowledge-entries', { key });
  assert.equal((await read(res.body.access_token)).status, 200);
  await sleep(2300);
  assert.equal((await read(res.body.access_token)).status, 401);
  const next = await postForm(t, '/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: res.body.refresh_token });
  assert.equal(next.status, 200, next.text);
  assert.equal((await read(next.body.access_token)).status, 200);
});

test('the lifetimes are validated at start', async () => {
  const { loadConfig, ConfigError } = await import('../../src/config.js');
  assert.throws(() => loadConfig({ KCS_OAUTH_CODE_TTL_S: '0' }), ConfigError);
  assert.throws(() => loadConfig({ KCS_OAUTH_ACCESS_TTL_S: 'soon' }), ConfigError);
  assert.deepEqual(loadConfig({}).oauth, { codeTtlS: 60, accessTtlS: 3600, refreshTtlS: 2_592_000 });
});
