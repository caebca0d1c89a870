// The console's catalogue in headless Chromium: a site created in the form shows in the list and
// can be made the default; categories nest in the tree and a parent with children cannot be
// deleted (the 409 is shown); a product written over the API opens on its JSON.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { goTo, openConsole, signInWithKey, SKIP_WITHOUT_CHROMIUM, useConsoleSuite } from './browser.js';

describe('console: catalogue', { skip: SKIP_WITHOUT_CHROMIUM, timeout: 120_000 }, () => {
  const suite = useConsoleSuite();

  test('sites: create in the form, see it listed, make it the default', async () => {
    const first = await suite.t.request('POST', '/api/knowledge/sites', { body: { slug: 'main', name: 'Main shop', language: 'en' } });
    assert.equal(first.status, 201, first.text);
    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, '#/catalogue');
    const { page } = tab;
    await page.waitForSelector('tr[data-site=main] .status:has-text("default")');

    await page.fill('form[aria-label="New site"] input[name=slug]', 'outlet-de');
    await page.fill('form[aria-label="New site"] input[name=name]', 'Outlet Deutschland');
    await page.fill('form[aria-label="New site"] input[name=language]', 'de');
    await page.fill('form[aria-label="New site"] input[name=domain]', 'outlet.example.de');
    await page.click('button:has-text("Create site")');
    await page.waitForSelector('tr[data-site=outlet-de]');
    assert.match(await page.textContent('tr[data-site=outlet-de]') ?? '', /Outlet Deutschland.*de.*outlet\.example\.de/);

    await page.click('tr[data-site=outlet-de] button:has-text("Make default")');
    await page.waitForSelector('tr[data-site=outlet-de] .status:has-text("default")');
    assert.equal(await page.locator('tr[data-site=main] .status').count(), 0);
    const sites = await suite.t.request('GET', '/api/knowledge/sites');
    assert.deepEqual(sites.body.map((s: { slug: string; is_default: boolean }) => [s.slug, s.is_default]), [['main', false], ['outlet-de', true]]);

    // Edit: the name changes, the slug stays.
    await page.click('tr[data-site=outlet-de] button:has-text("Edit")');
    await page.fill('form[aria-label="Edit site outlet-de"] input[name=name]', 'Outlet DE');
    await page.click('form[aria-label="Edit site outlet-de"] button:has-text("Save")');
    await page.waitForSelector('tr[data-site=outlet-de] :text("Outlet DE")');
    await tab.close();
  });

  test('sites: read-only without catalog:write', async () => {
    const reader = await suite.t.keyWith(['catalog:read']);
    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    await signInWithKey(tab, reader);
    await goTo(tab, '#/catalogue/sites');
    await tab.page.waitForSelector('tr[data-site=main]');
    await tab.page.waitForSelector('.sites :text("Read-only")');
    assert.equal(await tab.page.locator('form[aria-label="New site"]').count(), 0);
    assert.equal(await tab.page.locator('.sites button:has-text("Delete")').count(), 0);
    await tab.close();
  });

  test('categories: a nested tree; a parent with children is a 409', async () => {
    const tab = await openConsole(suite.browser, suite.stack, suite.t, [/status of 409/]);
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, '#/catalogue/categories');
    const { page } = tab;
    await page.fill('input[name=category_name]', 'Lighting');
    await page.click('button:has-text("Create category")');
    await page.waitForSelector('.tree li[data-category=Lighting]');
    await page.fill('input[name=category_name]', 'Desk lamps');
    await page.selectOption('select[name=parent]', { label: 'Lighting' });
    await page.click('button:has-text("Create category")');
    await page.waitForSelector('.tree li[data-category=Lighting] li[data-category="Desk lamps"]');

    page.on('dialog', (dialog) => void dialog.accept());
    await page.click('.tree li[data-category=Lighting] > .node button:has-text("Delete")');
    await page.waitForSelector('.categories .error[role=alert]');
    assert.match(await page.textContent('.categories .error') ?? '', /\(409\)/);
    await page.waitForSelector('.tree li[data-category=Lighting]');
    await tab.close();
  });

  test('products: a product written over the API opens on its JSON', async () => {
    const put = await suite.t.request('POST', '/api/knowledge/products?site_id=main', {
      body: { external_id: 'lamp-1', title: 'Brass desk lamp', brand: 'Lumen', price_current: '49.90', availability: 'in_stock', language: 'en' },
    });
    assert.equal(put.status, 201, put.text);
    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, '#/catalogue/products?site=main');
    const { page } = tab;
    const row = 'tr[data-product=lamp-1]';
    await page.waitForSelector(row);
    assert.match(await page.textContent(row) ?? '', /Brass desk lamp.*lamp-1.*Lumen.*49\.90 EUR.*in_stock.*skipped/);
    await page.click(`${row} td:nth-child(3)`);
    await page.waitForSelector('.product-detail .json');
    const json = JSON.parse(await page.textContent('.product-detail .json') ?? '{}') as { id: string; external_id: string; embedding_status: string };
    assert.equal(json.id, put.body.id);
    assert.equal(json.external_id, 'lamp-1');
    assert.equal(json.embedding_status, 'skipped');
    assert.match(await page.textContent('.product-detail .embedding-line') ?? '', /skipped/);
    await tab.close();
  });
});
