// The authorization endpoint: its error pages and error redirects, and the consent form (escaping,
// framing, CSRF, the key that approves, the granted scopes, deny).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { answerConsent, approve, authorizationUrl, baseUrl, get, openConsent, postForm, register } from '../../helpers/oauth.js';
import type { HttpResult } from '../../helpers/stack.js';
import { stack, useStack, acme, globex, as, REDIRECT, type Registered, newClient } from './fixtures.js';

useStack();

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
