// A storefront in Chromium: a page served from another origin (a small server on another port)
// builds search-as-you-type with instantsearch.js widgets (searchBox, refinementList on brand,
// hits, pagination) over the adapter in clients/instantsearch and a search key listing that
// origin. The key cannot read the catalogue, and a page on an origin it does not list gets no
// answer it can read. A second page, the German storefront, has every widget the adapter maps:
// sortBy, a searchable brand list, a colour list on attributes.farbe, a price range, a
// hierarchical category menu, hits with highlight and snippet, stats and pagination.
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
import { K, PRODUCTS, SHOP_DE, writeProducts, writeShopDe, type ShopProduct } from './fixtures.js';

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

/** The German storefront: every widget the adapter maps. */
const STOREFRONT = `<!doctype html>
<html lang="de"><head><meta charset="utf-8"><title>Outdoor-Shop</title><link rel="icon" href="data:,"></head>
<body>
  <div id="searchbox"></div><div id="sort"></div><div id="stats"></div>
  <div id="categories"></div><div id="brands"></div><div id="colours"></div><div id="price"></div>
  <div id="hits"></div><div id="pagination"></div>
  <script src="/instantsearch.js"></script>
  <script type="module">
    import { createSearchClient } from '/adapter/index.js';
    const settings = new URLSearchParams(location.search);
    window.searchErrors = [];
    const index = settings.get('index');
    const searchClient = createSearchClient({ baseUrl: settings.get('base'), apiKey: settings.get('key') });
    const search = instantsearch({ indexName: index, searchClient, insights: { insightsClient: searchClient.insightsClient } });
    search.on('error', ({ error }) => window.searchErrors.push(error.message));
    const { configure, searchBox, sortBy, stats, hierarchicalMenu, refinementList, rangeInput, hits, pagination } = instantsearch.widgets;
    search.addWidgets([
      configure({ hitsPerPage: 4, attributesToSnippet: ['description:8'] }),
      searchBox({ container: '#searchbox', placeholder: 'Suchen' }),
      sortBy({
        container: '#sort',
        items: [
          { label: 'Relevanz', value: index },
          { label: 'Preis aufsteigend', value: index + '/sort/price_current:asc' },
          { label: 'Preis absteigend', value: index + '/sort/price_current:desc' },
        ],
      }),
      stats({ container: '#stats' }),
      hierarchicalMenu({ container: '#categories', attributes: ['category.lvl0', 'category.lvl1', 'category.lvl2'] }),
      refinementList({ container: '#brands', attribute: 'brand', searchable: true, searchablePlaceholder: 'Marke suchen' }),
      refinementList({ container: '#colours', attribute: 'attributes.farbe' }),
      rangeInput({ container: '#price', attribute: 'price_current' }),
      hits({
        container: '#hits',
        templates: {
          item: (hit, { html, components, sendEvent }) => html\`<article class="hit" data-id="\${hit.objectID}">
            <h3 class="title">\${components.Highlight({ attribute: 'title', hit })}</h3>
            <button class="buy" onClick=\${() => sendEvent('conversion', hit, 'Added to cart')}>In den Warenkorb</button>
            <span class="brand">\${hit.brand}</span> <span class="price">\${hit.price_current}</span>
            <span class="farbe">\${hit.attributes.farbe}</span> <span class="category">\${hit.category}</span>
            <p class="snippet">\${components.Snippet({ attribute: 'description', hit })}</p></article>\`,
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
    else if (path === '/storefront') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(STOREFRONT);
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
    await writeShopDe(t);
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
  async function openShop(origin: string, path = '/', index = 'shop') {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    /** The kcs routes the page called (POSTs), e.g. `/api/knowledge/search/multi`. */
    const routes: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText ?? ''}`));
    page.on('request', (r) => r.method() === 'POST' && routes.push(new URL(r.url()).pathname));
    const query = new URLSearchParams({ base, key, index });
    const response = await page.goto(`${origin}${path}?${query}`);
    assert.equal(response?.status(), 200);
    return { page, problems, routes, close: () => context.close() };
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

  describe('the German storefront: every widget the adapter maps', () => {
    const openStorefront = () => openShop(listed, '/storefront', 'shop-de');
    const errorsOf = (page: Page) => page.evaluate(() => (window as unknown as { searchErrors: string[] }).searchErrors);
    const shown = (page: Page, field: string) => page.locator(`#hits .hit .${field}`).allInnerTexts();
    /** Polls until `check` holds for the hits' `field` texts. */
    async function until(page: Page, field: string, check: (values: string[]) => boolean, what: string): Promise<string[]> {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const values = await shown(page, field);
        if (check(values)) return values;
        if (Date.now() > deadline) assert.fail(`${what}: the hits' ${field} are ${JSON.stringify(values)}; errors ${JSON.stringify(await errorsOf(page))}`);
        await page.waitForTimeout(50);
      }
    }
    const statsText = (page: Page) => page.locator('.ais-Stats-text').innerText();
    async function untilStats(page: Page, pattern: RegExp) {
      const deadline = Date.now() + 15_000;
      while (!pattern.test(await statsText(page).catch(() => ''))) {
        if (Date.now() > deadline) assert.fail(`stats: ${await statsText(page).catch(() => '(none)')}, not ${pattern}; errors ${JSON.stringify(await errorsOf(page))}`);
        await page.waitForTimeout(50);
      }
    }
    const byPrice = [...SHOP_DE].sort((a, b) => a.price - b.price);
    const ascending = (values: number[]) => values.every((v, i) => i === 0 || values[i - 1] <= v);
    async function finish(shop: { page: Page; problems: string[]; close(): Promise<void> }) {
      assert.deepEqual(await errorsOf(shop.page), []);
      await shop.close();
      assert.deepEqual(shop.problems, [], 'no console errors, page errors or failed requests');
    }

    test('stats count the products; sortBy orders them by price, up and down; pagination pages through the sorted list', async () => {
      const shop = await openStorefront();
      const { page } = shop;
      await until(page, 'title', (t) => t.length === 4, 'the first page');
      await untilStats(page, /^10 results/);

      await page.locator('.ais-SortBy-select').selectOption({ label: 'Preis aufsteigend' });
      await until(page, 'title', (t) => t.join() === byPrice.slice(0, 4).map((p) => p.title).join(), 'the cheapest four');
      assert.ok(ascending((await shown(page, 'price')).map(Number)));
      await page.locator('.ais-Pagination-item--nextPage a').click();
      await until(page, 'title', (t) => t.join() === byPrice.slice(4, 8).map((p) => p.title).join(), 'the next four by price');
      await page.locator('.ais-Pagination-item--page a', { hasText: '3' }).click();
      await until(page, 'title', (t) => t.join() === byPrice.slice(8).map((p) => p.title).join(), 'the two dearest');

      await page.locator('.ais-SortBy-select').selectOption({ label: 'Preis absteigend' });
      const down = [...byPrice].reverse();
      await until(page, 'title', (t) => t.join() === down.slice(0, 4).map((p) => p.title).join(), 'the dearest four');
      await page.locator('.ais-SortBy-select').selectOption({ label: 'Relevanz' });
      await until(page, 'title', (t) => t.length === 4 && t.join() !== down.slice(0, 4).map((p) => p.title).join(), 'relevance again');
      await untilStats(page, /^10 results/);
      await finish(shop);
    });

    test('the brand list searches its values (kcs facet value search) and narrows the hits; the colour list on attributes.farbe narrows them', async () => {
      const shop = await openStorefront();
      const { page } = shop;
      await until(page, 'title', (t) => t.length === 4, 'the first page');
      const brandLabels = () => page.locator('#brands .ais-RefinementList-labelText').allInnerTexts();
      assert.deepEqual((await brandLabels()).sort(), ['Jack Wolfskin', 'Meindl', 'Schöffel', 'Sigg', 'Vaude']);

      await page.locator('#brands .ais-SearchBox-input').pressSequentially('scho', { delay: 40 });
      // Each keystroke searches the values; the answer to the last one (`scho`) marks `Schö`.
      const marks = () => page.locator('#brands .ais-RefinementList-labelText mark').allInnerTexts();
      const deadline = Date.now() + 15_000;
      while (((await brandLabels()).join() !== 'Schöffel' || (await marks()).join() !== 'Schö') && Date.now() < deadline) await page.waitForTimeout(50);
      assert.deepEqual(await brandLabels(), ['Schöffel']);
      assert.deepEqual(await marks(), ['Schö'], 'the typed prefix is marked');
      assert.ok(shop.routes.includes(`${K}/search/facet-values`), JSON.stringify(shop.routes));
      await page.locator('#brands .ais-RefinementList-label', { hasText: 'Schöffel' }).click();
      await until(page, 'brand', (b) => b.length === 3 && b.every((x) => x === 'Schöffel'), 'the Schöffel products');
      await untilStats(page, /^3 results/);

      // The colours of Schöffel's products, then a colour among them.
      await page.locator('#colours .ais-RefinementList-label', { hasText: 'Blau' }).click();
      await until(page, 'title', (t) => t.join() === 'Mütze Flocke', 'the blue Schöffel product');
      await page.locator('#brands .ais-RefinementList-label', { hasText: 'Schöffel' }).click();
      await until(page, 'farbe', (f) => f.length === 3 && f.every((x) => x === 'Blau'), 'every blue product');
      await page.locator('#colours .ais-RefinementList-label', { hasText: 'Rot' }).click();
      await until(page, 'farbe', (f) => f.length === 4 && f.every((x) => x === 'Blau' || x === 'Rot'), 'blue or red');
      await untilStats(page, /^6 results/);
      assert.ok(shop.routes.includes(`${K}/search/multi`), 'the refined lists batch their searches');
      await finish(shop);
    });

    test('the price range shows the bounds kcs answers in facets_stats and narrows the hits by price', async () => {
      const shop = await openStorefront();
      const { page } = shop;
      await until(page, 'title', (t) => t.length === 4, 'the first page');
      const min = page.locator('#price .ais-RangeInput-input--min');
      const max = page.locator('#price .ais-RangeInput-input--max');
      const deadline = Date.now() + 15_000;
      while ((await min.getAttribute('placeholder')) === null && Date.now() < deadline) await page.waitForTimeout(50);
      // 19.95–199, to whole euros (rangeInput's precision 0).
      assert.deepEqual([await min.getAttribute('placeholder'), await max.getAttribute('placeholder')], ['19', '199']);
      await min.fill('50');
      await max.fill('100');
      await page.locator('#price .ais-RangeInput-submit').click();
      await untilStats(page, /^3 results/);
      const prices = (await until(page, 'price', (p) => p.length === 3, 'three prices')).map(Number);
      assert.ok(prices.every((p) => p >= 50 && p <= 100), JSON.stringify(prices));
      assert.deepEqual(prices.sort((a, b) => a - b), [69, 79.95, 89]);
      await finish(shop);
    });

    test('the hierarchical menu drills down Herren > Jacken > Regenjacken', async () => {
      const shop = await openStorefront();
      const { page } = shop;
      await until(page, 'title', (t) => t.length === 4, 'the first page');
      const entries = () => page.locator('#categories .ais-HierarchicalMenu-item').evaluateAll((items) =>
        items.map((i) => {
          // The item's own link comes first; its children's follow inside it.
          const link = i.querySelector('.ais-HierarchicalMenu-link');
          return `${link?.querySelector('.ais-HierarchicalMenu-label')?.textContent} ${link?.querySelector('.ais-HierarchicalMenu-count')?.textContent}`;
        }));
      assert.deepEqual((await entries()).sort(), ['Damen 2', 'Herren 5', 'Schuhe 1', 'Zubehör 2']);
      const open = (label: string) => page.locator('#categories .ais-HierarchicalMenu-link', { has: page.locator('.ais-HierarchicalMenu-label', { hasText: new RegExp(`^${label}$`) }) }).click();

      await open('Herren');
      await untilStats(page, /^5 results/);
      await until(page, 'category', (c) => c.length === 4 && c.every((x) => x.startsWith('Herren > ')), 'the men’s products');
      assert.deepEqual((await entries()).sort(), ['Damen 2', 'Herren 5', 'Hosen 2', 'Jacken 3', 'Schuhe 1', 'Zubehör 2']);
      await open('Jacken');
      await until(page, 'category', (c) => c.length === 3 && c.every((x) => x.startsWith('Herren > Jacken > ')), 'the men’s jackets');
      assert.ok((await entries()).includes('Regenjacken 1'));
      await open('Regenjacken');
      await until(page, 'title', (t) => t.join() === 'Regenjacke Nordkap', 'the men’s rain jacket');
      await untilStats(page, /^1 result/);
      assert.ok(shop.routes.includes(`${K}/search/multi`));
      await finish(shop);
    });

    test('insights: a hit\'s event reaches kcs search analytics for the search that showed it (queryID), once', async () => {
      const shop = await openStorefront();
      const { page } = shop;
      await until(page, 'title', (t) => t.length === 4, 'the first page');
      await page.locator('#searchbox .ais-SearchBox-input').pressSequentially('trinkflasche', { delay: 40 });
      await until(page, 'title', (t) => t.join() === 'Trinkflasche Berg & Tal', 'the bottle');
      const events = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/knowledge/search/events');
      await page.locator('#hits .hit .buy').first().click();
      const sent = JSON.parse((await events).postData() ?? '{}') as { events: { type: string; query_id: string; product_id: string; position?: number }[] };
      const conversion = sent.events.find((e) => e.type === 'conversion');
      assert.ok(conversion, JSON.stringify(sent));
      assert.equal(conversion.product_id, await page.locator('#hits .hit').first().getAttribute('data-id'));
      let report: { conversions: number; top_queries: { query: string }[] } | null = null;
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        const res = await t.request('GET', `${K}/search/analytics?site_id=shop-de`);
        assert.equal(res.status, 200, res.text);
        report = res.body;
        if (report!.conversions >= 1 && report!.top_queries.some((q) => q.query === 'trinkflasche')) break;
        await page.waitForTimeout(200);
      }
      assert.equal(report?.conversions, 1, JSON.stringify(report));
      assert.ok(report?.top_queries.some((q) => q.query === 'trinkflasche'), JSON.stringify(report));
      await finish(shop);
    });

    test("typing marks the words kcs matched in the title and the description's snippet", async () => {
      const shop = await openStorefront();
      const { page } = shop;
      await until(page, 'title', (t) => t.length === 4, 'the first page');
      await page.locator('#searchbox .ais-SearchBox-input').pressSequentially('kapuze', { delay: 40 });
      await until(page, 'title', (t) => t.join() === 'Regenjacke Nordkap', 'the jacket with a hood');
      assert.deepEqual(await page.locator('#hits .snippet mark').allInnerTexts(), ['Kapuze']);
      const snippet = (await shown(page, 'snippet'))[0];
      assert.match(snippet, /…/);

      await page.locator('#searchbox .ais-SearchBox-input').fill('');
      await page.locator('#searchbox .ais-SearchBox-input').pressSequentially('regenjacke', { delay: 40 });
      await until(page, 'title', (t) => t.length === 2 && t.every((x) => x.startsWith('Regenjacke')), 'the rain jackets');
      assert.deepEqual(await page.locator('#hits .title mark').allInnerTexts(), ['Regenjacke', 'Regenjacke']);
      await untilStats(page, /^2 results/);

      // kcs escapes, the adapter unescapes, InstantSearch escapes again: the text shows as written.
      await page.locator('#searchbox .ais-SearchBox-input').fill('aluminium');
      await until(page, 'title', (t) => t.join() === 'Trinkflasche Berg & Tal', 'the bottle');
      assert.equal((await shown(page, 'snippet'))[0], 'Auslaufsichere Flasche aus Aluminium <mit> Schraubverschluss.');
      assert.deepEqual(await page.locator('#hits .snippet mark').allInnerTexts(), ['Aluminium']);
      await finish(shop);
    });
  });
});
