// The console's Admin section in Chromium: an API key created in the page shows its secret once
// and works; revoked in the page, it is refused; a storefront key (search, allowed origins) is
// made there too. Settings saved in the page reach the API, the audit log lists the key's events,
// and a key without `admin` never sees the section.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { goTo, openConsole, signInWithKey, SKIP_WITHOUT_CHROMIUM, useConsoleSuite } from './browser.js';

describe('console: admin', { skip: SKIP_WITHOUT_CHROMIUM, timeout: 120_000 }, () => {
  const suite = useConsoleSuite();

  test('an API key made in the page: its secret is shown once and works; revoked in the page, it is refused', async () => {
    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    const { page } = tab;
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, '#/admin/keys');
    const form = page.locator('form.new-key');
    await form.locator('input[name=name]').fill('ui made key');
    await form.locator('input[name=scopes][value="catalog:read"]').check();
    await form.locator('button:has-text("Create key")').click();

    const secretBox = page.locator('.secret');
    await secretBox.waitFor();
    assert.match(await secretBox.innerText(), /will not be shown again/);
    const secret = (await secretBox.locator('code').innerText()).trim();
    assert.match(secret, /^kcs_/);
    assert.equal((await suite.t.request('GET', '/api/knowledge/sites', { key: secret })).status, 200);
    const listed = (await suite.t.request('GET', '/api/knowledge/api-keys')).body as { id: string; name: string; scopes: string[] }[];
    const made = listed.find((k) => k.name === 'ui made key');
    assert.deepEqual(made?.scopes, ['catalog:read']);

    await secretBox.locator('button:has-text("I have stored it")').click();
    assert.equal(await page.locator('.secret').count(), 0, 'the secret is gone from the page');
    const row = page.locator(`tr[data-key-id="${made!.id}"]`);
    page.once('dialog', (dialog) => void dialog.accept());
    await row.locator('button:has-text("Revoke")').click();
    await row.waitFor({ state: 'detached' });
    assert.equal((await suite.t.request('GET', '/api/knowledge/sites', { key: secret })).status, 401);

    // The audit log shows the key's creation and revocation.
    await goTo(tab, `#/admin/audit?entity_type=api_key&entity_id=${made!.id}`);
    await page.locator('table.events tbody tr').nth(1).waitFor();
    const actions = await page.locator('table.events tbody tr td:nth-child(2)').allInnerTexts();
    assert.deepEqual(actions, ['delete', 'create']);
    await tab.close();
  });

  test('a storefront key made in the page: the search scope and its allowed origins', async () => {
    const tab = await openConsole(suite.browser, suite.stack, suite.t, [/status of 422/]);
    const { page } = tab;
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, '#/admin/keys');
    const form = page.locator('form.new-key');
    await form.locator('input[name=name]').fill('storefront');
    await form.locator('input[name=scopes][value="search"]').check();
    // A path is refused with the API's 422, shown in the page; the form keeps what was typed.
    await form.locator('textarea[name=allowed_origins]').fill('https://shop.example/path');
    await form.locator('button:has-text("Create key")').click();
    await form.locator('.error').waitFor();
    assert.match(await form.locator('.error').innerText(), /allowed_origins/);
    await form.locator('textarea[name=allowed_origins]').fill('https://Shop.Example\nhttp://localhost:3000');
    await form.locator('button:has-text("Create key")').click();
    const secret = (await page.locator('.secret code').innerText()).trim();

    const listed = (await suite.t.request('GET', '/api/knowledge/api-keys')).body as { name: string; scopes: string[]; allowed_origins: string[]; id: string }[];
    const made = listed.find((k) => k.name === 'storefront')!;
    assert.deepEqual([made.scopes, made.allowed_origins], [['search'], ['https://shop.example', 'http://localhost:3000']]);
    await page.locator('.secret button:has-text("I have stored it")').click();
    assert.deepEqual(await page.locator(`tr[data-key-id="${made.id}"] td.origins code`).allInnerTexts(), made.allowed_origins);

    const found = await suite.t.request('POST', '/api/knowledge/search/products', { key: secret, body: { query: '' }, headers: { Origin: 'https://shop.example' } });
    assert.equal(found.status, 200, found.text);
    assert.equal(found.headers['access-control-allow-origin'], 'https://shop.example');
    assert.equal((await suite.t.request('GET', '/api/knowledge/sites', { key: secret })).status, 403);
    await tab.close();
  });

  test('settings saved in the page reach the API; a new user is listed', async () => {
    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    const { page } = tab;
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, '#/admin/settings');
    await page.locator('select[name=variant_strategy]').selectOption('children_only');
    await page.locator('input[name=rate_limit_per_s]').fill('500');
    await page.locator('input[name=facet_attributes]').fill('farbe, Groesse');
    await page.locator('input[name=understand_queries]').check();
    await page.locator('input[name=analytics_retention_days]').fill('30');
    await page.locator('input[name=suggestion_min_searches]').fill('5');
    await page.locator('button:has-text("Save settings")').click();
    await page.locator('text=Saved.').waitFor();
    const settings = (await suite.t.request('GET', '/api/knowledge/settings')).body;
    assert.deepEqual(settings, { variant_strategy: 'children_only', oauth_open_registration: false, rate_limit_per_s: 500, facet_attributes: ['farbe', 'groesse'],
      understand_queries: true, search_analytics: true, analytics_retention_days: 30, suggestion_min_searches: 5, search_events_rate_per_s: 10, search_events_key_rate_per_s: 100 });

    await goTo(tab, '#/admin/users');
    await page.locator('input[name=email]').fill('ann@example.com');
    await page.locator('form input[name=name]').fill('Ann');
    await page.locator('button:has-text("Add user")').click();
    await page.locator('td:has-text("ann@example.com")').waitFor();
    await tab.close();
  });

  test('a key without admin does not see the Admin section', async () => {
    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    await signInWithKey(tab, await suite.t.keyWith(['catalog:read']));
    const sections = await tab.page.locator('header.top nav a').allInnerTexts();
    assert.ok(sections.includes('Catalogue'), sections.join(', '));
    assert.ok(!sections.includes('Admin'), sections.join(', '));
    await goTo(tab, '#/admin/keys');
    await tab.page.waitForTimeout(200);
    assert.equal(await tab.page.locator('.admin').count(), 0, 'the address does not open it either');
    await tab.close();
  });
});
