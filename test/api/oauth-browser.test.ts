// What browser-based OAuth and MCP clients need, and the hardening around it: CORS with preflight
// on discovery, registration, token, revocation and /mcp (errors included, never on the consent
// page), the rate limits of the token endpoint and the consent form (429 + Retry-After), and the
// end of the grants approved with an API key once that key is revoked.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { approve, assertOAuthError, authorizationUrl, discover, openConsent, answerConsent, postForm, register } from '../helpers/oauth.js';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';

const REDIRECT = 'http://127.0.0.1:8976/callback';
const ENTRIES = '/api/knowledge/knowledge-entries';
const ORIGIN = 'https://inspector.example';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'browser', version: '1.0.0' } },
};
const MCP_ACCEPT = { accept: 'application/json, text/event-stream', origin: ORIGIN };

let stack: Stack;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
});
after(() => stack.close());

/** A public client of the tenant with the code and refresh grants. */
async function publicClient(t: TenantFixture): Promise<string> {
  const res = await register(t, { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' });
  assert.equal(res.status, 201, res.text);
  return res.body.client_id;
}

/** Tokens through consent (approved with `apiKey`) and the PKCE code exchange. */
async function tokensApprovedWith(t: TenantFixture, clientId: string, apiKey: string): Promise<{ access_token: string; refresh_token: string }> {
  const code = await codeApprovedWith(t, clientId, apiKey);
  const res = await exchange(t, clientId, code);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function codeApprovedWith(t: TenantFixture, clientId: string, apiKey: string): Promise<{ code: string; verifier: string }> {
  const { url, verifier } = await authorizationUrl(await discover(stack, t), clientId, REDIRECT, { scope: 'knowledge:read' });
  return { code: (await approve(stack, url, apiKey)).searchParams.get('code')!, verifier };
}

const exchange = (t: TenantFixture, clientId: string, c: { code: string; verifier: string }) =>
  postForm(t, '/oauth/token', { grant_type: 'authorization_code', client_id: clientId, redirect_uri: REDIRECT, code: c.code, code_verifier: c.verifier });

function assertCors(res: HttpResult): void {
  assert.equal(res.headers['access-control-allow-origin'], '*', `${res.status} ${res.text}`);
  const exposed = String(res.headers['access-control-expose-headers']).toLowerCase();
  for (const name of ['www-authenticate', 'mcp-session-id', 'retry-after']) assert.ok(exposed.includes(name), `${name} exposed: ${exposed}`);
}

describe('CORS', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  test('preflights answer 204 with the methods, headers and max age', async () => {
    const paths: Record<string, string> = {
      '/.well-known/oauth-authorization-server': 'GET',
      '/.well-known/oauth-protected-resource': 'GET',
      '/.well-known/oauth-protected-resource/mcp': 'GET',
      '/oauth/register': 'POST',
      '/oauth/token': 'POST',
      '/oauth/revoke': 'POST',
      '/mcp': 'POST',
    };
    for (const [path, method] of Object.entries(paths)) {
      const res = await t.request('OPTIONS', path, {
        key: undefined,
        headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
      });
      assert.equal(res.status, 204, `${path}: ${res.text}`);
      assertCors(res);
      assert.equal(res.headers['access-control-allow-methods'], `${method}, OPTIONS`, path);
      const allowed = String(res.headers['access-control-allow-headers']).toLowerCase();
      for (const name of ['authorization', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id']) assert.ok(allowed.includes(name), `${path} allows ${name}`);
      assert.ok(Number(res.headers['access-control-max-age']) > 0, path);
    }
  });

  test('discovery, registration and token answers carry CORS, errors included', async () => {
    assertCors(await t.request('GET', '/.well-known/oauth-authorization-server', { key: undefined, headers: { origin: ORIGIN } }));
    assertCors(await t.request('GET', '/.well-known/oauth-protected-resource/mcp', { key: undefined, headers: { origin: ORIGIN } }));
    const registered = await register(t, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    assert.equal(registered.status, 201);
    assertCors(registered);
    const unauthorized = await register(t, { redirect_uris: [REDIRECT] }, null);
    assert.equal(unauthorized.status, 401);
    assertCors(unauthorized);
    const badGrant = await postForm(t, '/oauth/token', { grant_type: 'authorization_code', client_id: registered.body.client_id, code: 'nope' });
    assertOAuthError(badGrant, 400, 'invalid_grant');
    assertCors(badGrant);
    const revoked = await postForm(t, '/oauth/revoke', { client_id: registered.body.client_id, token: 'unknown' });
    assert.equal(revoked.status, 200);
    assertCors(revoked);
  });

  test('/mcp carries CORS on 200, on the 401 that names the resource metadata, and on 415', async () => {
    const ok = await t.request('POST', '/mcp', { body: INITIALIZE, headers: MCP_ACCEPT });
    assert.equal(ok.status, 200, ok.text);
    assertCors(ok);
    const unauthorized = await t.request('POST', '/mcp', { key: undefined, body: INITIALIZE, headers: MCP_ACCEPT });
    assert.equal(unauthorized.status, 401);
    assert.match(String(unauthorized.headers['www-authenticate']), /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource"/);
    assertCors(unauthorized);
    const wrongType = await t.request('POST', '/mcp', { raw: 'x', headers: { ...MCP_ACCEPT, 'content-type': 'text/plain' } });
    assert.equal(wrongType.status, 415);
    assertCors(wrongType);
  });

  test('the consent page and the /api routes get no CORS; the consent page answers no preflight', async () => {
    const clientId = await publicClient(t);
    const { url } = await authorizationUrl(await discover(stack, t), clientId, REDIRECT);
    const page = await openConsent(stack, url);
    assert.equal(page.res.headers['access-control-allow-origin'], undefined);
    const answered = await answerConsent(stack, url, page, { decision: 'deny' });
    assert.equal(answered.status, 302);
    assert.equal(answered.headers['access-control-allow-origin'], undefined);
    const preflight = await t.request('OPTIONS', '/oauth/authorize', { key: undefined, headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
    assert.equal(preflight.status, 405);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    const api = await t.request('GET', ENTRIES, { headers: { origin: ORIGIN } });
    assert.equal(api.status, 200);
    assert.equal(api.headers['access-control-allow-origin'], undefined);
  });
});

describe('revoking an API key ends the grants approved with it', () => {
  let t: TenantFixture;
  let clientId: string;
  const keyId = (key: string) => /^kcs_([0-9a-f-]{36})_/.exec(key)![1];
  const read = (token: string) => t.request('GET', ENTRIES, { key: token });
  const refresh = (token: string) => postForm(t, '/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: token });

  before(async () => {
    t = await stack.tenant();
    clientId = await publicClient(t);
  });

  test('access and refresh tokens stop working; grants of other keys go on', async () => {
    const approver = await t.keyWith(['knowledge:read']);
    const other = await t.keyWith(['knowledge:read']);
    const doomed = await tokensApprovedWith(t, clientId, approver);
    const kept = await tokensApprovedWith(t, clientId, other);
    assert.equal((await read(doomed.access_token)).status, 200);

    assert.equal((await t.request('DELETE', `/api/knowledge/api-keys/${keyId(approver)}`)).status, 204);
    assert.equal((await read(doomed.access_token)).status, 401);
    assertOAuthError(await refresh(doomed.refresh_token), 400, 'invalid_grant');

    assert.equal((await read(kept.access_token)).status, 200);
    const next = await refresh(kept.refresh_token);
    assert.equal(next.status, 200, next.text);
    assert.equal((await read(next.body.access_token)).status, 200);
  });

  test('a code approved with the key but not yet exchanged is refused', async () => {
    const approver = await t.keyWith(['knowledge:read']);
    const code = await codeApprovedWith(t, clientId, approver);
    assert.equal((await t.request('DELETE', `/api/knowledge/api-keys/${keyId(approver)}`)).status, 204);
    assertOAuthError(await exchange(t, clientId, code), 400, 'invalid_grant');
  });
});

describe('rate limits (1 per second per client and address, 3 per address)', () => {
  let limited: Stack;
  before(async () => {
    limited = await startStack({ KCS_EMBEDDER: 'none', KCS_OAUTH_RATE_PER_S: '1', KCS_OAUTH_ADDRESS_RATE_PER_S: '3' });
  });
  after(() => limited.close());

  const burst = (n: number, send: (i: number) => Promise<HttpResult>) => Promise.all(Array.from({ length: n }, (_, i) => send(i)));

  function assertLimited(results: HttpResult[]): HttpResult {
    const tooMany = results.filter((r) => r.status === 429);
    assert.ok(tooMany.length > 0, `a 429 among ${results.map((r) => r.status).join(' ')}`);
    assert.ok(tooMany.length < results.length, 'the burst lets the first request through');
    const res = tooMany[0];
    assert.ok(Number(res.headers['retry-after']) >= 1, `Retry-After: ${res.headers['retry-after']}`);
    return res;
  }

  test('/oauth/token: a burst of one client is 429 temporarily_unavailable with Retry-After and CORS', async () => {
    const t = await limited.tenant();
    const clientId = (await register(t, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })).body.client_id;
    const results = await burst(6, () => postForm(t, '/oauth/token', { grant_type: 'authorization_code', client_id: clientId, code: 'nope' }));
    for (const res of results.filter((r) => r.status !== 429)) assertOAuthError(res, 400, 'invalid_grant');
    const res = assertLimited(results);
    assertOAuthError(res, 429, 'temporarily_unavailable');
    assertCors(res);
  });

  test('/oauth/token: a burst over many client ids from one address is 429', async () => {
    const t = await limited.tenant();
    const results = await burst(10, (i) => postForm(t, '/oauth/token', { grant_type: 'client_credentials', client_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` }));
    for (const res of results.filter((r) => r.status !== 429)) assertOAuthError(res, 401, 'invalid_client');
    assertOAuthError(assertLimited(results), 429, 'temporarily_unavailable');
  });

  test('the consent form: a burst from one address is an HTML 429 with Retry-After', async () => {
    const t = await limited.tenant();
    const host = `${t.tenant.slug}.localhost:${limited.port}`;
    const results = await burst(5, () =>
      limited.request('POST', '/oauth/authorize', {
        host,
        raw: 'request_id=00000000-0000-4000-8000-000000000000&decision=deny',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    for (const res of results.filter((r) => r.status !== 429)) assert.equal(res.status, 400, res.text);
    const res = assertLimited(results);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.text, /Too many attempts/);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });

  test('the limits are validated at start', async () => {
    const { loadConfig, ConfigError } = await import('../../src/config.js');
    assert.throws(() => loadConfig({ KCS_OAUTH_RATE_PER_S: 'fast' }), ConfigError);
    assert.throws(() => loadConfig({ KCS_OAUTH_ADDRESS_RATE_PER_S: '-1' }), ConfigError);
    assert.deepEqual(loadConfig({}).oauthRateLimits, { ratePerS: 10, addressRatePerS: 50 });
  });
});
