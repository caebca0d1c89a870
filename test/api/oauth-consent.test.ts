// The consent page in a real browser: headless Debian Chromium driven by playwright-core. Signs in
// with an API key and approves (the code arrives at a loopback redirect URI served here), denies,
// retries after a wrong key, and checks that the page's style passes its CSP and that it cannot be
// framed. Skipped, with a message, where /usr/bin/chromium is missing (.ci/run installs it).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { chromium, type Browser, type Page } from 'playwright-core';
import { authorizationUrl, discover, postForm, register } from '../helpers/oauth.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (apt-get install -y chromium): the browser tests of the consent page are skipped`;

describe('consent page in headless Chromium', { skip, timeout: 120_000 }, () => {
  let stack: Stack;
  let t: TenantFixture;
  let as: oauth.AuthorizationServer;
  let browser: Browser;
  let callbackServer: Server;
  let redirectUri: string;
  let framerUrl: string;
  let clientId: string;

  before(async () => {
    stack = await startStack();
    t = await stack.tenant();
    as = await discover(stack, t);
    // The client's loopback redirect URI, and a page of another origin that tries to frame kcs.
    callbackServer = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/frame') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!doctype html><iframe id="f" src="${url.searchParams.get('src')?.replace(/"/g, '&quot;')}"></iframe>`);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>callback</title><p>done</p>');
    });
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    const port = (callbackServer.address() as { port: number }).port;
    redirectUri = `http://127.0.0.1:${port}/callback`;
    framerUrl = `http://127.0.0.1:${port}/frame`;
    const reg = await register(t, { client_name: 'Browser test app', redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' });
    assert.equal(reg.status, 201, reg.text);
    clientId = reg.body.client_id;

    // A fresh profile: Playwright launches Chromium with its own new temporary user data directory.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP *.localhost 127.0.0.1',
      ],
    });
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => callbackServer?.close(resolve));
    await stack?.close();
  });

  async function openConsent(scope = 'knowledge:read catalog:read') {
    const request = await authorizationUrl(as, clientId, redirectUri, { scope });
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(request.url.href);
    assert.equal(response?.status(), 200);
    return { ...request, page, violations, close: () => context.close() };
  }

  const callbackOf = async (page: Page) => {
    await page.waitForURL((url) => url.href.startsWith(redirectUri), { timeout: 15_000 });
    return new URL(page.url());
  };

  test('sign in with an API key and approve: the code arrives at the redirect URI and exchanges for tokens', async () => {
    const { page, verifier, state, violations, close } = await openConsent();
    try {
      const text = await page.locator('main').innerText();
      assert.match(text, /Authorize Browser test app/);
      assert.match(text, new RegExp(`return to 127\\.0\\.0\\.1:${new URL(redirectUri).port}`));
      assert.match(text, /knowledge:read/);
      assert.match(text, /catalog:read/);
      // The inline style sheet passes the CSP (its hash is allowed): the approve button is styled.
      const background = await page.locator('button.approve').evaluate((el) => getComputedStyle(el).backgroundColor);
      assert.equal(background, 'rgb(29, 78, 216)');

      await page.fill('#api_key', t.key);
      await page.click('button.approve');
      const back = await callbackOf(page);
      assert.equal(back.searchParams.get('state'), state);
      assert.equal(back.searchParams.get('iss'), as.issuer);
      const code = back.searchParams.get('code');
      assert.ok(code);
      assert.deepEqual(violations, []);

      const res = await postForm(t, '/oauth/token', { grant_type: 'authorization_code', client_id: clientId, redirect_uri: redirectUri, code, code_verifier: verifier });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.scope, 'catalog:read knowledge:read');
      assert.equal((await t.request('GET', '/api/knowledge/sites', { key: res.body.access_token })).status, 200);
    } finally {
      await close();
    }
  });

  test('deny: back to the client with error=access_denied', async () => {
    const { page, state, close } = await openConsent();
    try {
      await page.click('button[value="deny"]');
      const back = await callbackOf(page);
      assert.equal(back.searchParams.get('error'), 'access_denied');
      assert.equal(back.searchParams.get('state'), state);
      assert.equal(back.searchParams.get('iss'), as.issuer);
      assert.equal(back.searchParams.get('code'), null);
    } finally {
      await close();
    }
  });

  test('a wrong key shows an error on the page; the right key then approves', async () => {
    const { page, close } = await openConsent('knowledge:read');
    try {
      await page.fill('#api_key', 'kcs_not_a_key');
      const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button.approve')]);
      assert.equal(response.status(), 401);
      assert.match(await page.locator('[role=alert]').innerText(), /not a valid API key/);
      await page.fill('#api_key', t.key);
      await page.click('button.approve');
      const back = await callbackOf(page);
      assert.ok(back.searchParams.get('code'));
    } finally {
      await close();
    }
  });

  test('Approve with an empty key field is stopped by the browser (required field)', async () => {
    const { page, close } = await openConsent('knowledge:read');
    try {
      await page.click('button.approve');
      await page.waitForTimeout(300);
      assert.ok(page.url().includes('/oauth/authorize'), 'still on the consent page');
      assert.equal(await page.locator('#api_key').evaluate((el) => (el as HTMLInputElement).validity.valueMissing), true);
    } finally {
      await close();
    }
  });

  test('another site cannot frame the consent page', async () => {
    const { url } = await authorizationUrl(as, clientId, redirectUri, { scope: 'knowledge:read' });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${framerUrl}?src=${encodeURIComponent(url.href)}`);
      await page.waitForTimeout(500);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      assert.ok(frame, 'the iframe exists');
      const hasForm = await frame.locator('#api_key').count().catch(() => 0);
      assert.equal(hasForm, 0, 'the consent form is not rendered inside a frame');
    } finally {
      await context.close();
    }
  });
});
