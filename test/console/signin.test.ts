// The console's frame in Chromium: a browser asking for `/` is sent to /console (API clients keep
// their JSON 404); the page's CSP; sign-in with an API key (a refused key says so) and through
// the tenant's own OAuth consent page (PKCE; the key is typed into kcs's page, not the console);
// the overview's counts; sign-out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { launchBrowser, openConsole, signInWithKey, SKIP_WITHOUT_CHROMIUM } from './browser.js';

let stack: Stack;
let t: TenantFixture;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
  t = await stack.tenant();
  assert.equal((await t.request('POST', '/api/knowledge/sites', { body: { slug: 'shop', name: 'Shop', language: 'en' } })).status, 201);
  for (const n of [1, 2, 3]) {
    const res = await t.request('POST', '/api/knowledge/products?site_id=shop', { body: { external_id: `p${n}`, title: `Lamp ${n}`, language: 'en' } });
    assert.equal(res.status, 201, res.text);
  }
});
after(() => stack.close());

test('a browser asking for / is sent to the console; an API client gets JSON', async () => {
  const html = await t.request('GET', '/', { headers: { accept: 'text/html,application/xhtml+xml' } });
  assert.equal(html.status, 302);
  assert.equal(html.headers.location, '/console');
  const api = await t.request('GET', '/', { headers: { accept: 'application/json' } });
  assert.equal(api.status, 404);
  assert.deepEqual(api.body, { detail: 'Not Found' });
});

test('the console page: no inline script or style, no other origin but https images; its files are cached for good', async () => {
  const page = await t.request('GET', '/console');
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  const csp = String(page.headers['content-security-policy']);
  for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) assert.ok(csp.includes(directive), csp);
  assert.doesNotMatch(page.text, /<script>|<style>| style="/, 'nothing inline');
  const script = /src="(\/console\/assets\/console-[0-9a-f]+\.js)"/.exec(page.text)?.[1];
  assert.ok(script, page.text);
  const asset = await t.request('GET', script);
  assert.equal(asset.status, 200);
  assert.match(String(asset.headers['content-type']), /^text\/javascript/);
  assert.match(String(asset.headers['cache-control']), /immutable/);
  assert.equal((await t.request('GET', '/console/assets/console-0000000000000000.js')).status, 404);
  assert.equal((await stack.request('GET', '/console', { tenant: 'no-such-tenant' })).status, 404, 'only on a tenant host');
});

describe('in Chromium', { skip: SKIP_WITHOUT_CHROMIUM }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(() => browser?.close());

  test('sign-in with an API key: the overview counts what the tenant holds; a refused key says so; sign-out forgets the key', async () => {
    const tab = await openConsole(browser, stack, t, [/status of 401/]);
    await tab.page.fill('input[name=api_key]', 'kcs_not-a-key');
    await tab.page.click('button:has-text("Sign in with the key")');
    await tab.page.waitForSelector('.error:has-text("refused")');

    await signInWithKey(tab, t.key);
    await tab.page.waitForSelector('.tile:has-text("Products") .value:has-text("3")');
    await tab.page.waitForSelector('.tile:has-text("Sites") .value:has-text("1")');
    assert.equal(await tab.page.textContent('.who'), 'API key');
    assert.equal(await tab.page.evaluate(() => localStorage.length), 0, 'nothing in local storage');

    await tab.page.click('button:has-text("Sign out")');
    await tab.page.waitForSelector('input[name=api_key]');
    assert.equal(await tab.page.evaluate(() => sessionStorage.length), 0, 'the key is gone from the tab');
    await tab.close();
  });

  test('sign-in through the tenant\'s consent page (OAuth, PKCE): the console gets the scopes of the approving key', async () => {
    const tab = await openConsole(browser, stack, t);
    await tab.page.click('button:has-text("Sign in with kcs")');
    await tab.page.waitForURL(/\/oauth\/authorize\?/);
    assert.match(await tab.page.textContent('body') ?? '', /kcs console/);
    const readOnly = await t.keyWith(['catalog:read']);
    await tab.page.fill('#api_key', readOnly);
    await tab.page.click('button[value=approve]');
    await tab.page.waitForSelector('header.top');
    assert.equal(tab.page.url(), `${tab.url}`, 'the code and state are gone from the address');
    assert.equal(await tab.page.textContent('.who'), 'OAuth');
    const sections = await tab.page.$$eval('header.top nav a', (links) => links.map((a) => a.textContent));
    assert.deepEqual(sections, ['Overview', 'Search', 'Catalogue'], 'only what catalog:read allows');
    await tab.page.waitForSelector('.tile:has-text("Products") .value:has-text("3")');

    // Signing out revokes the grant: the refresh token the tab held no longer works.
    const session = await tab.page.evaluate(() => JSON.parse(sessionStorage.getItem('kcs-console-session')!));
    await tab.page.click('button:has-text("Sign out")');
    await tab.page.waitForSelector('input[name=api_key]');
    const clientId = (await t.request('GET', '/api/knowledge/oauth/clients')).body.find((c: { client_name: string }) => c.client_name === 'kcs console').client_id;
    const refreshed = await t.request('POST', '/oauth/token', {
      raw: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: session.refreshToken, client_id: clientId }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(refreshed.status, 400, refreshed.text);
    await tab.close();
  });
});
