// The console's search playground in headless Chromium: products written over the API are found
// as the query is typed, a facet narrows the hits, Related shows a product's related products,
// the form survives a reload (it lives in the address), and a price phrase read as a filter is
// shown and undone.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { goTo, openConsole, screenshot, signInWithKey, SKIP_WITHOUT_CHROMIUM, useConsoleSuite } from './browser.js';

/** A 1×1 picture inline: the console's CSP allows data: images, and the test needs no network. */
const PICTURE = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect width="1" height="1" fill="#f59e0b"/></svg>')}`;

const PRODUCTS = [
  { external_id: 'brass', title: 'Brass desk lamp', brand: 'Lumen', category: 'Lamps', availability: 'InStock', price_current: '49.90', image_url: PICTURE },
  { external_id: 'steel', title: 'Steel desk lamp', brand: 'Brite', category: 'Lamps', availability: 'InStock', price_current: '39.00' },
  { external_id: 'oak', title: 'Oak floor lamp', brand: 'Lumen', category: 'Lamps', availability: 'OutOfStock', price_current: '129.00' },
  { external_id: 'rug', title: 'Wool rug', brand: 'Brite', category: 'Rugs', availability: 'InStock', price_current: '89.00' },
];

/** Waits until the hits shown are exactly these titles (in any order). */
async function waitForTitles(page: Page, titles: string[]): Promise<void> {
  const expected = [...titles].sort();
  try {
    await page.waitForFunction(
      (want) => JSON.stringify([...document.querySelectorAll('.hit .title')].map((e) => e.textContent).sort()) === JSON.stringify(want),
      expected, { timeout: 10_000 },
    );
  } catch {
    assert.deepEqual((await page.locator('.hit .title').allTextContents()).sort(), expected);
  }
}

describe('console: search playground', { skip: SKIP_WITHOUT_CHROMIUM, timeout: 120_000 }, () => {
  const suite = useConsoleSuite();
  const ids = new Map<string, string>();

  before(async () => {
    const { t } = suite;
    const site = await t.request('POST', '/api/knowledge/sites', { body: { slug: 'shop', name: 'Shop', language: 'en' } });
    assert.equal(site.status, 201, site.text);
    for (const product of PRODUCTS) {
      const res = await t.request('POST', '/api/knowledge/products?site_id=shop', { body: { ...product, currency: 'EUR', language: 'en', description: 'For the study' } });
      assert.equal(res.status, 201, res.text);
      ids.set(product.title, res.body.id);
    }
  });

  test('finds products as you type, narrows by a facet, shows related products and survives a reload', async () => {
    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    const { page } = tab;
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, '#/search');
    await page.waitForSelector('input[name=q]');

    // Results as you type: the query settles into the address and the lamps are found.
    await page.fill('input[name=q]', 'lamp');
    await waitForTitles(page, ['Brass desk lamp', 'Steel desk lamp', 'Oak floor lamp']);
    assert.match(await page.evaluate(() => location.hash), /^#\/search\?.*q=lamp/);
    const brass = page.locator(`.hit[data-id="${ids.get('Brass desk lamp')}"]`);
    assert.equal(await brass.locator('img').getAttribute('alt'), 'Brass desk lamp');
    assert.match(await brass.textContent() ?? '', /49\.90 EUR/);
    assert.match(await brass.textContent() ?? '', /keyword #\d+ · semantic —/);
    assert.equal(await page.locator(`.hit[data-id="${ids.get('Steel desk lamp')}"] .noimg`).count(), 1);
    assert.match(await page.locator('.figures').textContent() ?? '', /3 matches · .* ms · mode keyword/);
    assert.match(await page.locator('.notice').textContent() ?? '', /Semantic ranking did not run/);
    await screenshot(tab, 'search');

    // A facet value filters the search (filters.brand), and is shown chosen.
    const brite = page.locator('.facet[data-facet=brand] button[data-value=Brite]');
    assert.match(await brite.textContent() ?? '', /Brite\s*1/);
    await brite.click();
    await waitForTitles(page, ['Steel desk lamp']);
    assert.equal(await page.locator('.facet[data-facet=brand] button.on').textContent(), 'Brite1');

    // Related replaces the results (by keyword similarity here: this stack embeds nothing, so the
    // product has no vectors); back to results shows them again.
    await page.locator(`.hit[data-id="${ids.get('Steel desk lamp')}"] button:has-text("Related")`).click();
    await page.waitForSelector('.related');
    assert.match(await page.locator('.related h2').textContent() ?? '', /Related to “Steel desk lamp”/);
    await page.waitForSelector('.related .figures');
    const related = await page.locator('.related .hit').evaluateAll((hits) => hits.map((h) => h.getAttribute('data-id')));
    assert.ok(related.length > 0 && related.includes(ids.get('Brass desk lamp')!), JSON.stringify(related));
    assert.ok(!related.includes(ids.get('Steel desk lamp')!), 'never the product itself');
    await page.click('button:has-text("back to results")');
    await waitForTitles(page, ['Steel desk lamp']);

    // The form lives in the address: a reload shows the same search; clicking the facet again removes it.
    await page.reload();
    await page.waitForSelector('input[name=q]');
    await waitForTitles(page, ['Steel desk lamp']);
    assert.equal(await page.inputValue('input[name=q]'), 'lamp');
    await page.locator('.facet[data-facet=brand] button[data-value=Brite]').click();
    await waitForTitles(page, ['Brass desk lamp', 'Steel desk lamp', 'Oak floor lamp']);

    await tab.close();
  });

  test('a price phrase read as a filter is shown with the filter it stands for; undoing it searches the words as text', async () => {
    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    const { page } = tab;
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, '#/search?tab=products&understand=on');
    await page.waitForSelector('input[name=q]');
    await page.fill('input[name=q]', 'lamp under 50 €');
    await waitForTitles(page, ['Brass desk lamp', 'Steel desk lamp']);
    assert.equal((await page.locator('.understood .chip').textContent())?.replace(/\s+/g, ' ').trim(), '“under 50 €” → price ≤ 50 ✕');
    await page.locator('.understood .chip button').click();
    await page.waitForFunction(() => location.hash.includes('understand=off'));
    await page.waitForSelector('.understood', { state: 'detached' });
    assert.equal(await page.inputValue('select[name=understand]'), 'off');
    await tab.close();
  });
});
