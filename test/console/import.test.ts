// The console's bulk import in headless Chromium: an NDJSON file of 30 good products and 2 bad
// lines is chosen and uploaded, the progress bar reaches 100 %, the two refused items are listed
// by index, the job shows in the latest imports, and the 30 products are there over the API.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { goTo, openConsole, screenshot, signInWithKey, SKIP_WITHOUT_CHROMIUM, useConsoleSuite } from './browser.js';

describe('console: bulk import', { skip: SKIP_WITHOUT_CHROMIUM, timeout: 120_000 }, () => {
  const suite = useConsoleSuite();
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kcs-import-'));
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('uploads an NDJSON file, follows the job to 100 % and lists the refused items', async () => {
    const site = await suite.t.request('POST', '/api/knowledge/sites', { body: { slug: 'lamps', name: 'Lamp shop', language: 'en' } });
    assert.equal(site.status, 201, site.text);

    // 32 items: 30 products, a product without its title at index 7, a broken line at index 20.
    const good = Array.from({ length: 30 }, (_, i) => JSON.stringify({
      external_id: `lamp-${i}`, title: `Desk lamp ${i}`, brand: i % 2 ? 'Lumen' : 'Brite', price_current: `${19 + i}.90`, language: 'en',
    }));
    const lines = [...good];
    lines.splice(7, 0, JSON.stringify({ external_id: 'untitled', language: 'en' }));
    lines.splice(20, 0, '{"external_id": "broken", "title": ');
    const file = join(dir, 'lamps.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);

    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, '#/import');
    const { page } = tab;
    await page.waitForSelector('select[name=site] option:has-text("Lamp shop")', { state: 'attached' });
    await page.setInputFiles('input[type=file][name=file]', file);
    await page.click('button:has-text("Upload")');

    await page.waitForSelector('[role=progressbar][aria-label="Items stored"][aria-valuenow="100"]', { timeout: 30_000 });
    await page.waitForSelector('.job .status.completed');
    assert.match(await page.evaluate(() => location.hash), /^#\/import\?job=[0-9a-f-]{36}$/);
    assert.match(await page.textContent('.job .notice') ?? '', /30 items queued, 2 rejected/);
    const counts = await page.$$eval('.job table.counts tbody td', (cells) => cells.map((c) => c.textContent));
    assert.deepEqual(counts, ['32', '30', '0', '0', '0', '2']);

    const refused = await page.$$eval('.item-errors tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent ?? '')));
    assert.equal(refused.length, 2);
    assert.equal(refused[0][0], '7');
    assert.match(refused[0][1], /title: Field required/);
    assert.equal(refused[1][0], '20');
    assert.match(refused[1][1], /JSON decode error/);

    // The latest imports list the job, and a click there shows it again.
    await page.waitForSelector('.latest-jobs tbody tr .status.completed');
    assert.equal(await page.locator('.latest-jobs tbody tr').count(), 1);
    await screenshot(tab, 'import');

    const products = await suite.t.request('GET', '/api/knowledge/products?site_id=lamps&limit=100');
    assert.equal(products.status, 200);
    assert.equal(products.headers['x-total-count'], '30');
    assert.deepEqual(products.body.map((p: { external_id: string }) => p.external_id).sort(), good.map((_, i) => `lamp-${i}`).sort());
    await tab.close();
  });

  test('opens a job from the latest imports', async () => {
    const answer = await suite.t.request('POST', '/api/knowledge/products/bulk?site_id=lamps&wait=true', {
      raw: `${JSON.stringify({ external_id: 'lamp-0', title: 'Desk lamp 0, renamed', language: 'en' })}\n`,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    assert.equal(answer.status, 200, answer.text);
    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, '#/import');
    await tab.page.waitForSelector('.latest-jobs tbody tr:nth-child(2)');
    await tab.page.click('.latest-jobs tbody tr:first-child td:nth-child(3)');
    await tab.page.waitForSelector('.job .status.completed');
    assert.equal(await tab.page.evaluate(() => location.hash), `#/import?job=${answer.body.id}`);
    const counts = await tab.page.$$eval('.job table.counts tbody td', (cells) => cells.map((c) => c.textContent));
    assert.deepEqual(counts, ['1', '0', '1', '0', '0', '0']);
    assert.equal(await tab.page.locator('[role=progressbar][aria-label="Items stored"]').getAttribute('aria-valuenow'), '100');
    await tab.close();
  });
});
