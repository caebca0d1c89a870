// The console's browser tests: Debian's chromium driven by playwright-core against a real kcs
// (startStack). Each test gets a fresh browser context (its own session storage) on a tenant
// host (`<slug>.localhost:<port>`, mapped to 127.0.0.1 by the browser's resolver rules), and every
// console message of level error, page error or failed request is collected: a test ends by
// asserting there were none.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

export const CHROMIUM = '/usr/bin/chromium';
/** `skip` option of the browser suites: a reason where Chromium is missing (.ci/run installs it). */
export const SKIP_WITHOUT_CHROMIUM = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (apt-get install -y chromium): the console's browser tests are skipped`;

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP *.localhost 127.0.0.1',
    ],
  });
}

/** What a console suite's tests share: a kcs without embedder, one tenant on it, one Chromium. */
export interface ConsoleSuite {
  stack: Stack;
  t: TenantFixture;
  browser: Browser;
}

/**
 * Called in a describe: its before() starts the stack, makes the tenant and launches Chromium (set
 * on the object returned, for the tests to read), its after() closes them. A suite's own data goes
 * in a before() of its own, registered after this one.
 */
export function useConsoleSuite(): ConsoleSuite {
  const suite = {} as ConsoleSuite;
  before(async () => {
    suite.stack = await startStack({ KCS_EMBEDDER: 'none' });
    suite.t = await suite.stack.tenant();
    suite.browser = await launchBrowser();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.stack?.close();
  });
  return suite;
}

export interface ConsoleTab {
  page: Page;
  context: BrowserContext;
  /** The console's address on the tenant's host. */
  url: string;
  /** Console errors, page errors and failed requests seen so far. */
  problems: string[];
  /** Asserts nothing went wrong in the page, then closes its context. */
  close(): Promise<void>;
}

/** A fresh tab on the tenant's console (not signed in). `expected`: problems a test provokes on purpose. */
export async function openConsole(browser: Browser, stack: Stack, t: TenantFixture, expected: RegExp[] = []): Promise<ConsoleTab> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems: string[] = [];
  const note = (text: string) => expected.some((e) => e.test(text)) || problems.push(text);
  page.on('console', (m) => m.type() === 'error' && note(`console: ${m.text()}`));
  page.on('pageerror', (e) => note(`page error: ${e.message}`));
  page.on('requestfailed', (r) => note(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText ?? ''}`));
  const url = `http://${t.tenant.slug}.localhost:${stack.port}/console`;
  const response = await page.goto(url);
  assert.equal(response?.status(), 200);
  return {
    page, context, url, problems,
    async close() {
      // What closing aborts (a request still in flight) is not the page's fault.
      const seen = [...problems];
      await context.close();
      assert.deepEqual(seen, [], 'no console errors, page errors or failed requests');
    },
  };
}

/** Signs the tab in with an API key (the fallback sign-in) and waits for the console's frame. */
export async function signInWithKey(tab: ConsoleTab, key: string): Promise<void> {
  await tab.page.fill('input[name=api_key]', key);
  await tab.page.click('button:has-text("Sign in with the key")');
  await tab.page.waitForSelector('header.top');
}

/** Opens a section of the signed-in console (`#/search`, …). */
export async function goTo(tab: ConsoleTab, hash: string): Promise<void> {
  await tab.page.evaluate((h) => (location.hash = h), hash);
}

/** A screenshot for the README (docs/screenshots/<name>.png), taken when KCS_SCREENSHOTS=1. */
export async function screenshot(tab: ConsoleTab, name: string): Promise<void> {
  if (process.env.KCS_SCREENSHOTS !== '1') return;
  mkdirSync('docs/screenshots', { recursive: true });
  await tab.page.screenshot({ path: `docs/screenshots/${name}.png` });
}
