// The console's Merchandising section in Chromium: synonym sets created, edited, imported,
// exported and deleted in the page reach the API (and its 422s are shown in the forms); a search
// rule made in the page pins and hides products found with its product search, and its preview
// shows them applied; the analytics tab shows the figures of searches this test makes. A key
// without `admin` never sees the section.
import assert from 'node:assert/strict';
import { before, describe, test, type TestContext } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { eventually } from '../helpers/eventually.js';
import type { TenantFixture } from '../helpers/stack.js';
import { goTo, openConsole, signInWithKey, SKIP_WITHOUT_CHROMIUM, useConsoleSuite } from './browser.js';

const LAMPS = [
  { external_id: 'brass', title: 'Brass desk lamp', brand: 'Lumen', price_current: '49.90' },
  { external_id: 'steel', title: 'Steel desk lamp', brand: 'Brite', price_current: '39.00' },
  { external_id: 'oak', title: 'Oak floor lamp', brand: 'Lumen', price_current: '129.00' },
];
/** The analytics test's own site: its figures count only the searches that test makes (and `quiet` has none). */
const OUTLET = [{ external_id: 'kettle', title: 'Copper kettle', brand: 'Brite', price_current: '25.00' }];

interface SetAnswer { id: string; type: string; root: string | null; synonyms: string[]; site_id: string | null; language: string | null }
interface RuleAnswer { id: string; query: string; match: string; site_id: string | null; pin: { product_id: string; position: number }[]; hide: string[]; description: string | null; enabled: boolean }

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/** Skips the test while the API has no such route yet (a 404 for its list). */
async function skipWithout(t: TestContext, tenant: TenantFixture, path: string): Promise<boolean> {
  const res = await tenant.request('GET', path);
  if (res.status !== 404) return false;
  t.skip(`${path} is not served yet`);
  return true;
}

async function rowCount(page: Page, selector: string, count: number): Promise<void> {
  await page.waitForFunction(([s, n]) => document.querySelectorAll(s as string).length === n, [selector, count] as const, { timeout: 10_000 });
}

/** Waits until the element's text matches (a list shows a change once it has read the list again). */
async function textMatches(locator: Locator, pattern: RegExp): Promise<void> {
  await eventually(async () => (pattern.test(await locator.innerText()) ? true : undefined), `text matching ${pattern}`, { ms: 10_000 }).catch(async () => {
    assert.match(await locator.innerText(), pattern);
  });
}

describe('console: merchandising', { skip: SKIP_WITHOUT_CHROMIUM, timeout: 180_000 }, () => {
  const suite = useConsoleSuite();
  const ids = new Map<string, string>();
  const sites = new Map<string, string>();

  before(async () => {
    const { t } = suite;
    for (const [slug, products] of [['shop', LAMPS], ['outlet', OUTLET], ['quiet', []]] as const) {
      const site = await t.request('POST', '/api/knowledge/sites', { body: { slug, name: slug[0].toUpperCase() + slug.slice(1), language: 'en' } });
      assert.equal(site.status, 201, site.text);
      sites.set(slug, site.body.id);
      for (const product of products) {
        const res = await t.request('POST', `/api/knowledge/products?site_id=${slug}`, { body: { ...product, currency: 'EUR', language: 'en', category: 'Home', availability: 'InStock' } });
        assert.equal(res.status, 201, res.text);
        ids.set(product.external_id, res.body.id);
      }
    }
  });

  test('synonym sets: created, refused with the API\'s message, edited, imported, exported and deleted in the page', async () => {
    const tab = await openConsole(suite.browser, suite.stack, suite.t, [/status of 422/]);
    const { page } = tab;
    await signInWithKey(tab, suite.t.key);
    assert.ok((await page.locator('header.top nav a').allInnerTexts()).includes('Merchandising'));
    await goTo(tab, '#/merchandising');
    await page.locator('text=No synonym set yet.').waitFor();
    assert.deepEqual(await page.locator('nav.tabs a').allInnerTexts(), ['Synonyms', 'Rules', 'Analytics']);

    // A multi-way set for the shop: its id is made from its first entry.
    const form = page.locator('form.synonym-form');
    await form.locator('textarea[name=synonyms]').fill('handy, smartphone\nmobiltelefon');
    await form.locator('select[name=site_id]').selectOption(sites.get('shop')!);
    await form.locator('button:has-text("Create set")').click();
    await page.locator('.notice:has-text("created")').waitFor();
    let listed = (await suite.t.request('GET', '/api/knowledge/synonyms')).body as SetAnswer[];
    assert.equal(listed.length, 1);
    const made = listed[0];
    assert.match(made.id, /^handy-[0-9a-f]{8}$/);
    assert.deepEqual([made.type, made.synonyms, made.site_id, made.language], ['multi-way', ['handy', 'smartphone', 'mobiltelefon'], sites.get('shop'), null]);
    const row = page.locator(`tr[data-set="${made.id}"]`);
    assert.match(await row.innerText(), /multi-way\s+handy\s*smartphone\s*mobiltelefon\s+shop/);
    assert.equal(await form.locator('textarea[name=synonyms]').inputValue(), '', 'the new-set form starts afresh');

    // Fewer than two entries: the API's 422 is shown in the form, which keeps what was typed.
    await form.locator('textarea[name=synonyms]').fill('solo');
    await form.locator('button:has-text("Create set")').click();
    await form.locator('.error').waitFor();
    assert.match(await form.locator('.error').innerText(), /body\.synonyms: .*\(422\)/);
    assert.equal(await form.locator('textarea[name=synonyms]').inputValue(), 'solo');
    await form.locator('textarea[name=synonyms]').fill('');

    // Edited into a one-way set for German searches.
    await row.locator('button:has-text("Edit")').click();
    const edit = page.locator(`form[aria-label="Edit synonym set ${made.id}"]`);
    assert.equal(await edit.locator('textarea[name=synonyms]').inputValue(), 'handy\nsmartphone\nmobiltelefon');
    await edit.locator('select[name=type]').selectOption('one-way');
    await edit.locator('input[name=root]').fill('hose');
    await edit.locator('textarea[name=synonyms]').fill('jeans, chino');
    await edit.locator('input[name=language]').fill('de');
    await edit.locator('button:has-text("Save set")').click();
    await page.locator('.notice:has-text("saved")').waitFor();
    const edited = (await suite.t.request('GET', `/api/knowledge/synonyms/${made.id}`)).body as SetAnswer;
    assert.deepEqual([edited.type, edited.root, edited.synonyms, edited.language], ['one-way', 'hose', ['jeans', 'chino'], 'de']);
    await textMatches(row, /one-way\s+hose\s*⇒\s*jeans\s*chino\s+shop\s+de/);

    // A Solr file imported for English searches; a bad line imports nothing and is named.
    const importer = page.locator('form.synonym-import');
    await importer.locator('textarea[name=solr]').fill('tv, fernseher\nonly');
    await importer.locator('input[name=import_language]').fill('en');
    await importer.locator('button:has-text("Import")').click();
    await importer.locator('.error').waitFor();
    assert.match(await importer.locator('.error').innerText(), /Line 2/);
    assert.equal(((await suite.t.request('GET', '/api/knowledge/synonyms')).body as SetAnswer[]).length, 1);
    // A file picked is read into the text area, to be checked before it is sent.
    const file = '# living room\ntv, fernseher\n\nlaptop => notebook, ultrabook\n';
    await importer.locator('input[name=file]').setInputFiles({ name: 'synonyms.txt', mimeType: 'text/plain', buffer: Buffer.from(file) });
    await page.waitForFunction((text) => document.querySelector<HTMLTextAreaElement>('textarea[name=solr]')?.value === text, file);
    await importer.locator('button:has-text("Import")').click();
    await page.locator('.notice:has-text("Imported 2 synonym sets.")').waitFor();
    await rowCount(page, 'table.synonym-sets tbody tr', 3);
    assert.equal(await importer.locator('textarea[name=solr]').inputValue(), '');

    // The language filter narrows the list (and the export) to the imported sets.
    await page.locator('form[aria-label=Filters] input[name=language]').fill('en');
    await page.locator('form[aria-label=Filters] input[name=language]').press('Enter');
    await rowCount(page, 'table.synonym-sets tbody tr', 2);
    assert.match(await page.evaluate(() => location.hash), /language=en/);
    await page.locator('.synonym-export button:has-text("Export")').click();
    const exported = await page.locator('.synonym-export pre.export').innerText();
    assert.match(exported, /^tv, fernseher$/m);
    assert.match(exported, /^laptop => notebook, ultrabook$/m);
    assert.match(exported, /language=en/);
    assert.doesNotMatch(exported, /hose/);
    assert.match(await page.locator('.synonym-export a[download="synonyms.txt"]').getAttribute('href') ?? '', /^blob:/);

    // Deleted after a confirmation: gone from the list and the API.
    await page.locator('form[aria-label=Filters] button:has-text("Clear filters")').click();
    await rowCount(page, 'table.synonym-sets tbody tr', 3);
    page.once('dialog', (dialog) => void dialog.accept());
    await row.locator('button:has-text("Delete")').click();
    await row.waitFor({ state: 'detached' });
    assert.equal((await suite.t.request('GET', `/api/knowledge/synonyms/${made.id}`)).status, 404);
    listed = (await suite.t.request('GET', '/api/knowledge/synonyms')).body as SetAnswer[];
    assert.deepEqual(listed.map((s) => s.synonyms).sort(), [['notebook', 'ultrabook'], ['tv', 'fernseher']]);
    await tab.close();
  });

  test('a search rule made in the page pins and hides products found there; its preview shows it applied', async (t) => {
    if (await skipWithout(t, suite.t, '/api/knowledge/search-rules')) return;
    // 404: the title of the pinned product the test deletes, when the page reads it after that.
    const tab = await openConsole(suite.browser, suite.stack, suite.t, [/status of 422/, /status of 404/]);
    const { page } = tab;
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, '#/merchandising/rules');
    await page.locator('text=No search rule yet.').waitFor();
    await page.locator('a:has-text("New rule")').click();
    const form = page.locator('form.rule-form');
    await form.locator('input[name=query]').fill('lamp');
    await form.locator('select[name=site_id]').selectOption(sites.get('shop')!);

    // A rule that neither pins, hides nor filters is refused: the API's message is in the form.
    await form.locator('button:has-text("Create rule")').click();
    await form.locator('.error').waitFor();
    assert.match(await form.locator('.error').innerText(), /\(422\)/);

    // The products, found beside the form: the oak lamp pinned first, the steel lamp hidden.
    const picker = page.locator('form.picker');
    await picker.locator('input[name=product_query]').fill('lamp');
    await picker.locator('button:has-text("Search")').click();
    await picker.locator(`li[data-id="${ids.get('oak')}"] button:has-text("Pin")`).click();
    await picker.locator(`li[data-id="${ids.get('steel')}"] button:has-text("Hide")`).click();
    assert.equal(await picker.locator(`li[data-id="${ids.get('oak')}"] button:has-text("Pinned")`).isDisabled(), true);
    assert.equal(await form.locator(`table.pins tr[data-id="${ids.get('oak')}"] input[name=position]`).inputValue(), '1');
    assert.match(await form.locator('.hidden-products').innerText(), /Steel desk lamp/);
    await form.locator('input[name=description]').fill('Oak first');
    await form.locator('button:has-text("Create rule")').click();
    await page.locator('.notice:has-text("was created")').waitFor();

    const rules = (await suite.t.request('GET', '/api/knowledge/search-rules')).body as RuleAnswer[];
    assert.equal(rules.length, 1);
    const rule = rules[0];
    assert.deepEqual(
      [rule.query, rule.match, rule.site_id, rule.pin, rule.hide, rule.description, rule.enabled],
      ['lamp', 'exact', sites.get('shop'), [{ product_id: ids.get('oak'), position: 1 }], [ids.get('steel')], 'Oak first', true],
    );
    await page.waitForFunction((id) => location.hash.includes(`rule=${id}`), rule.id);
    const row = page.locator(`tr[data-rule="${rule.id}"]`);
    assert.deepEqual([await row.locator('td.pins').innerText(), await row.locator('td.hides').innerText()], ['1', '1']);
    assert.match(await row.innerText(), /lamp[\s\S]*exact\s+shop[\s\S]*enabled/);

    // The preview: this rule applied, the oak lamp pinned first, the steel lamp not shown.
    const preview = page.locator('.rule-preview');
    await preview.locator(`.applied li[data-rule="${rule.id}"]`).waitFor();
    assert.match(await preview.locator('.applied').innerText(), /this rule\s*1 pinned · 1 hidden/);
    const first = preview.locator('ol.preview-hits li').first();
    assert.equal(await first.getAttribute('data-id'), ids.get('oak'));
    assert.match(await first.innerText(), /Oak floor lamp\s*pinned/);
    assert.equal(await preview.locator(`li[data-id="${ids.get('steel')}"]`).count(), 0);
    assert.equal(await preview.locator(`li[data-id="${ids.get('brass')}"]`).count(), 1);

    // Edited: contains, until a date; the list says so.
    await page.locator('form.rule-form select[name=match]').selectOption('contains');
    await page.locator('form.rule-form input[name=active_until]').fill(daysAgo(-30));
    await page.locator('form.rule-form button:has-text("Save rule")').click();
    await page.locator('.notice:has-text("was saved")').waitFor();
    const saved = (await suite.t.request('GET', `/api/knowledge/search-rules/${rule.id}`)).body as RuleAnswer & { active_until: string };
    assert.deepEqual([saved.match, saved.active_until.slice(0, 10), saved.pin.length, saved.hide.length], ['contains', daysAgo(-30), 1, 1]);
    await textMatches(row, new RegExp(`contains[\\s\\S]*now – ${daysAgo(-30)}`));

    // A pinned product deleted meanwhile: saving again is the API's 422 at its pin, shown in the form.
    assert.equal((await suite.t.request('DELETE', `/api/knowledge/products/${ids.get('oak')}`)).status, 204);
    await page.locator('form.rule-form button:has-text("Save rule")').click();
    await page.locator('form.rule-form .error').waitFor();
    assert.match(await page.locator('form.rule-form .error').innerText(), /body\.pin\.0\.product_id/);

    // Deleted after a confirmation.
    page.once('dialog', (dialog) => void dialog.accept());
    await row.locator('button:has-text("Delete")').click();
    await row.waitFor({ state: 'detached' });
    assert.equal((await suite.t.request('GET', `/api/knowledge/search-rules/${rule.id}`)).status, 404);
    await tab.close();
  });

  test('analytics: the figures, charts and queries of the searches made, for a site and a range', async (t) => {
    if (await skipWithout(t, suite.t, '/api/knowledge/search/analytics')) return;
    const search = (query: string) => suite.t.request('POST', '/api/knowledge/search/products', { body: { query, site_id: 'outlet' } });
    const answers = [];
    for (const query of ['kettle', 'kettle', 'copper kettle', 'unicorn', 'unicorn']) {
      const res = await search(query);
      assert.equal(res.status, 200, res.text);
      answers.push(res.body);
    }
    // The shopper of the third search clicked its hit (its only one: a click names a position the answer showed) and bought it.
    const event = { query_id: answers[2].query_id, product_id: ids.get('kettle') };
    const sent = await suite.t.request('POST', '/api/knowledge/search/events', {
      body: { events: [{ ...event, event_id: 'c1', type: 'click', position: 1 }, { ...event, event_id: 'b1', type: 'conversion' }] },
    });
    assert.equal(sent.status, 200, sent.text);
    // The counter flushes every second.
    await eventually(async () => {
      const res = await suite.t.request('GET', '/api/knowledge/search/analytics?site_id=outlet');
      return res.status === 200 && res.body.searches === 5 && res.body.clicks === 1 && res.body.conversions === 1 ? true : undefined;
    }, 'the outlet\'s five searches, a click and a conversion counted', { ms: 15_000, every: 200 });

    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    const { page } = tab;
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, `#/merchandising/analytics?site=${sites.get('outlet')}`);
    const tile = (name: string) => page.locator(`.tile[data-tile="${name}"] .value`);
    await tile('searches').waitFor();
    assert.equal(await tile('searches').innerText(), '5');
    assert.equal(await tile('no_result_rate').innerText(), '40.0 %');
    assert.match(await page.locator('.tile[data-tile="no_result_rate"]').innerText(), /2 without results/);
    assert.match(await page.locator('.tile[data-tile="click_through_rate"]').innerText(), /1 click$/);
    assert.equal(await tile('click_through_rate').innerText(), '20.0 %');
    assert.equal(await tile('average_click_position').innerText(), '1.0');
    assert.equal(await tile('conversions').innerText(), '1');
    assert.match(await page.locator('.tile[data-tile="conversions"]').innerText(), /conversion rate 20\.0 %/);
    // The default range is the last 7 days, today included.
    assert.equal(await page.locator('input[name=from]').inputValue(), daysAgo(6));
    assert.equal(await page.locator('input[name=to]').inputValue(), today());

    // Per day: a bar a day, today's holding the searches; per hour: a bar each hour of the range,
    // today's hours holding them all.
    const perDay = page.locator('svg[aria-label="Searches per day"]');
    assert.equal(await perDay.locator('g.bar').count(), 7);
    assert.equal(await perDay.locator('g.bar').last().locator('title').textContent(), `${today()}: 5 searches, 2 without results`);
    assert.equal(await perDay.locator('g.bar').last().locator('rect.series-none').count(), 1);
    const hours = await page.locator('svg[aria-label="Searches per hour"] g.bar title').allTextContents();
    assert.equal(hours.length, 7 * 24);
    const counted = hours.map((h) => ({ day: h.slice(0, 10), searches: Number(/ UTC: (\d+) search/.exec(h)?.[1]) }));
    assert.equal(counted.reduce((sum, h) => sum + h.searches, 0), 5);
    assert.ok(counted.every((h) => h.day === today() || h.searches === 0));

    // The queries: top ones with their hits, and those without results.
    assert.match(await page.locator('table.top-queries tr[data-query="kettle"]').innerText(), /kettle\s+2\s+1/);
    assert.match(await page.locator('table.no-result-queries tr[data-query="unicorn"]').innerText(), /unicorn\s+2/);

    // A preset: the last 30 days, in the address and the inputs, a bar each.
    await page.locator('button:has-text("Last 30 days")').click();
    await page.waitForFunction((from) => location.hash.includes(`from=${from}`), daysAgo(29));
    await rowCount(page, 'svg[aria-label="Searches per day"] g.bar', 30);
    assert.equal(await page.locator('svg[aria-label="Searches per hour"] g.bar').count(), 30 * 24);
    assert.equal(await page.locator('input[name=from]').inputValue(), daysAgo(29));
    assert.equal(await tile('searches').innerText(), '5');

    // A site nobody searched: no figures, no rates.
    await page.locator('form[aria-label=Range] select[name=site]').selectOption(sites.get('quiet')!);
    await page.waitForFunction(() => document.querySelector('.tile[data-tile="no_result_rate"] .value')?.textContent === '—');
    assert.equal(await tile('searches').innerText(), '0');
    assert.equal(await page.locator('table.top-queries').count(), 0);
    await tab.close();
  });

  test('a key without admin does not see the Merchandising section', async () => {
    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    await signInWithKey(tab, await suite.t.keyWith(['catalog:read', 'catalog:write']));
    const sections = await tab.page.locator('header.top nav a').allInnerTexts();
    assert.ok(!sections.includes('Merchandising'), sections.join(', '));
    await goTo(tab, '#/merchandising/synonyms');
    await tab.page.waitForTimeout(200);
    assert.equal(await tab.page.locator('.merchandising').count(), 0, 'the address does not open it either');
    await tab.close();
  });
});
