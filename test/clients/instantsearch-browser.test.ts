// A storefront in Chromium: a page served from another origin (a small server on another port)
// builds search-as-you-type with instantsearch.js widgets (searchBox, refinementList on brand,
// hits, pagination) over the adapter in clients/instantsearch and a search key listing that
// origin. The key cannot read the catalogue, and a page on an origin it does not list gets no
// answer it can read.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, SKIP_WITHOUT_CHROMIUM } from '../console/browser.js';
import { ROOT } from '../helpers/process.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { K, PRODUCTS, writeProducts, type ShopProduct } from './fixtures.js';

/** The storefront page: its settings come in the query string (base, key, index). */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,"></head>
<body>
  <div id="searchbox"></div><div id="brands"></div><div id="hits"></div><div id="pagination"></div>
  <script src="/instantsearch.js"></script>
  <script type="module">
    import { createSearchClient } from '/adapter/index.js';
    const settings = new URLSearchParams(location.search);
    window.searchErrors = [];
    const search = instantsearch({
      indexName: settings.get('index'),
      searchClient: createSearchClient({ baseUrl: settings.get('base'), apiKey: settings.get('key') }),
    });
    search.on('error', ({ error }) => window.searchErrors.push(error.message));
    const { configure, searchBox, refinementList, hits, pagination } = instantsearch.widgets;
    search.addWidgets([
      configure({ hitsPerPage: 2 }),
      searchBox({ container: '#searchbox' }),
      refinementList({ container: '#brands', attribute: 'brand' }),
      hits({
        container: '#hits',
        templates: {
          item: (hit, { html, components }) =>
            html\`<article class="hit" data-id="\${hit.objectID}"><h3 class="title">\${components.Highlight({ attribute: 'title', hit })}</h3><span class="brand">\${hit.brand}</span></article>\`,
        },
      }),
      pagination({ container: '#pagination' }),
    ]);
    search.start();
  </script>
</body></html>`;

const FILES: Record<string, { path: string; type: string }> = {
  '/adapter/index.js': { path: join(ROOT, 'clients/instantsearch/index.js'), type: 'text/javascript' },
  '/instantsearch.js': { path: join(ROOT, 'node_modules/instantsearch.js/dist/instantsearch.production.min.js'), type: 'text/javascript' },
};

/** The shop's own web server: the page, the adapter and instantsearch.js, on a port of its own. */
async function startShopServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://shop').pathname;
    const file = FILES[path];
    if (path === '/') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
    else if (file) res.writeHead(200, { 'Content-Type': file.type }).end(readFileSync(file.path));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Lamps written while the page is open: the typing must find them. */
const LAMPS: ShopProduct[] = [
  { title: 'Desk Lamp Alpha', brand: 'Acme', category: 'Lighting', price: 25, availability: 'InStock' },
  { title: 'Floor Lamp Beta', brand: 'Lumo', category: 'Lighting', price: 90, availability: 'InStock' },
  { title: 'Reading Lamp Gamma', brand: 'Acme', category: 'Lighting', price: 35, availability: 'InStock' },
  { title: 'Lamp Shade Delta', brand: 'Lumo', category: 'Lighting', price: 15, availability: 'InStock' },
  { title: 'Wall Lamp Epsilon', brand: 'Acme', category: 'Lighting', price: 45, availability: 'InStock' },
];

const hitTitles = (page: Page): Promise<string[]> => page.locator('#hits .hit .title').allInnerTexts();

/** Polls until `check` holds for the page's hit titles (InstantSearch renders asynchronously). */
async function untilHits(page: Page, check: (titles: string[]) => boolean, what: string): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const titles = await hitTitles(page);
    if (check(titles)) return titles;
    if (Date.now() > deadline) assert.fail(`${what}: the hits are ${JSON.stringify(titles)}`);
    await page.waitForTimeout(50);
  }
}

describe('InstantSearch in Chromium from another origin', { skip: SKIP_WITHOUT_CHROMIUM, timeout: 180_000 }, () => {
  let stack: Stack;
  let t: TenantFixture;
  let browser: Browser;
  let shop: { server: Server; port: number };
  let key: string;
  let base: string;
  /** The shop page's origin, which the key lists; the same server under another name is not listed. */
  let listed: string;
  let unlisted: string;

  before(async () => {
    stack = await startStack({ KCS_EMBEDDER: 'none' });
    t = await stack.tenant();
    await writeProducts(t, 'shop', PRODUCTS);
    shop = await startShopServer();
    listed = `http://127.0.0.1:${shop.port}`;
    unlisted = `http://localhost:${shop.port}`;
    const made = await t.request('POST', `${K}/api-keys`, { body: { name: 'storefront', scopes: ['search'], allowed_origins: [listed] } });
    assert.equal(made.status, 201, made.text);
    key = made.body.key;
    base = `http://${t.tenant.slug}.localhost:${stack.port}`;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => shop?.server.close(resolve));
    await stack?.close();
  });

  /** A fresh tab on the shop page at `origin`; console errors, page errors and failed requests are collected. */
  async function openShop(origin: string) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText ?? ''}`));
    const query = new URLSearchParams({ base, key, index: 'shop' });
    const response = await page.goto(`${origin}/?${query}`);
    assert.equal(response?.status(), 200);
    return { page, problems, close: () => context.close() };
  }

  test('typing finds products written a moment before; a brand refinement narrows the hits; the next page shows the next hits', async () => {
    const { page, problems, close } = await openShop(listed);
    // The first, empty-query search browses the site.
    await untilHits(page, (titles) => titles.length === 2, 'the first page of the site');
    await writeProducts(t, 'shop', LAMPS, 'lamp');

    await page.locator('.ais-SearchBox-input').pressSequentially('lamp', { delay: 40 });
    const lamps = await untilHits(page, (titles) => titles.length === 2 && titles.every((title) => title.includes('Lamp')), 'two lamps');
    assert.deepEqual(await page.locator('#hits .hit .title mark').allInnerTexts(), ['Lamp', 'Lamp'], 'the query is highlighted');
    const brands = await page.locator('.ais-RefinementList-labelText').allInnerTexts();
    const counts = await page.locator('.ais-RefinementList-count').allInnerTexts();
    assert.deepEqual(brands.map((b, i) => `${b} ${counts[i]}`), ['Acme 3', 'Lumo 2']);

    await page.locator('.ais-RefinementList-label', { hasText: 'Lumo' }).click();
    const lumo = await untilHits(page, (titles) => titles.length === 2 && titles.every((title) => /Beta|Delta/.test(title)), 'the Lumo lamps');
    assert.notDeepEqual(lumo.sort(), lamps.sort());
    await page.locator('.ais-RefinementList-label', { hasText: 'Lumo' }).click();
    await page.locator('.ais-RefinementList-label', { hasText: 'Acme' }).click();
    const acmeFirst = await untilHits(page, (titles) => titles.length === 2 && titles.every((title) => /Alpha|Gamma|Epsilon/.test(title)), 'the first Acme page');
    const brandsShown = await page.locator('#hits .hit .brand').allInnerTexts();
    assert.deepEqual(brandsShown, ['Acme', 'Acme']);

    await page.locator('.ais-Pagination-item--nextPage a').click();
    const acmeSecond = await untilHits(page, (titles) => titles.length === 1, 'the second Acme page');
    assert.deepEqual([...acmeFirst, ...acmeSecond].sort(), ['Desk Lamp Alpha', 'Reading Lamp Gamma', 'Wall Lamp Epsilon']);
    assert.deepEqual(await page.evaluate(() => (window as unknown as { searchErrors: string[] }).searchErrors), []);
    await close();
    assert.deepEqual(problems, [], 'no console errors, page errors or failed requests');
  });

  test('the same key cannot list products: the page cannot read them, and the API answers 403', async () => {
    const { page, problems, close } = await openShop(listed);
    await untilHits(page, (titles) => titles.length === 2, 'the first page');
    const outcome = await page.evaluate(async ({ base, key }) => {
      try {
        const res = await fetch(`${base}/api/knowledge/products?site_id=shop`, { headers: { Authorization: `Bearer ${key}` } });
        return `read: ${res.status}`;
      } catch (error) {
        return `failed: ${(error as Error).message}`;
      }
    }, { base, key });
    assert.equal(outcome, 'failed: Failed to fetch');
    await close();
    // What the browser reports is the CORS block, and nothing else.
    assert.ok(problems.length > 0 && problems.every((p) => /blocked by CORS policy|net::ERR_FAILED/.test(p)), problems.join('\n'));

    const direct = await t.request('GET', `${K}/products?site_id=shop`, { key, headers: { Origin: listed } });
    assert.equal(direct.status, 403);
    assert.equal(direct.headers['www-authenticate'], 'Bearer error="insufficient_scope", scope="catalog:read"');
  });

  test('a page on an origin the key does not list gets no answer it can read', async () => {
    const { page, problems, close } = await openShop(unlisted);
    const deadline = Date.now() + 15_000;
    let errors: string[] = [];
    while (errors.length === 0 && Date.now() < deadline) {
      await page.waitForTimeout(50);
      errors = await page.evaluate(() => (window as unknown as { searchErrors: string[] }).searchErrors);
    }
    assert.ok(errors.length > 0 && errors.every((e) => e === 'Failed to fetch'), JSON.stringify(errors));
    assert.deepEqual(await hitTitles(page), []);
    await close();
    assert.ok(problems.length > 0 && problems.every((p) => /blocked by CORS policy|net::ERR_FAILED/.test(p)), problems.join('\n'));

    const direct = await t.request('POST', '/api/knowledge/search/products', { key, body: { query: '' }, headers: { Origin: unlisted } });
    assert.equal(direct.status, 403);
    assert.equal(direct.headers['access-control-allow-origin'], undefined);
  });
});
