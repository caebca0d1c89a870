// The console's Knowledge section in Chromium: an entry created with the form of its type (the
// type's metadata included), found in the list, opened and edited; then changed over the API
// behind the page's back: saving the stale form shows the conflict plainly, and Reload shows the
// stored entry. A key without knowledge:write sees no way to write.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { goTo, openConsole, signInWithKey, SKIP_WITHOUT_CHROMIUM, useConsoleSuite } from './browser.js';

describe('console: knowledge', { skip: SKIP_WITHOUT_CHROMIUM, timeout: 120_000 }, () => {
  const suite = useConsoleSuite();
  before(async () => {
    const { t } = suite;
    const support = await t.request('POST', '/api/knowledge/categories', { body: { name: 'Support' } });
    assert.equal(support.status, 201, support.text);
    const returns = await t.request('POST', '/api/knowledge/categories', { body: { name: 'Returns', parent_id: support.body.id } });
    assert.equal(returns.status, 201, returns.text);
  });

  test('create a skill with its metadata, find it, edit it; a change behind the page\'s back is a plain conflict', async () => {
    const tab = await openConsole(suite.browser, suite.stack, suite.t, [/status of 412/]);
    const { page } = tab;
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, '#/knowledge');
    await page.locator('a:has-text("New entry")').click();

    // The form of a skill: the common fields and the skill's metadata.
    await page.locator('select[name=type]').selectOption('skill');
    await page.locator('input[name=title]').fill('Handling a refund');
    await page.locator('textarea[name=content]').fill('Check the order, then refund it.');
    await page.locator('select[name=category_id]').selectOption({ label: 'Support / Returns' });
    await page.locator('input[name=tags]').fill('refund, payments');
    await page.locator('select[name="metadata.level"]').selectOption('expert');
    await page.locator('textarea[name="metadata.tools"]').fill('CRM\nPayments');
    await page.locator('button:has-text("Create")').click();
    await page.locator('h1:has-text("Handling a refund")').waitFor();

    const listed = (await suite.t.request('GET', '/api/knowledge/knowledge-entries')).body as { id: string; type: string; version: number; tags: string[]; metadata: unknown }[];
    assert.equal(listed.length, 1);
    const [entry] = listed;
    assert.equal(entry.type, 'skill');
    assert.deepEqual(entry.tags, ['refund', 'payments']);
    assert.deepEqual(entry.metadata, { level: 'expert', tools: ['CRM', 'Payments'], prerequisites: [] });
    assert.match(await page.locator('main').innerText(), /CRM · Payments/);

    // In the list (filtered by type), then open it and edit.
    await goTo(tab, '#/knowledge?type=skill');
    const link = page.locator('table.entries a:has-text("Handling a refund")');
    await link.waitFor();
    // Category names come from their own request, which may answer after the entries.
    await page.locator('table.entries td:has-text("Support / Returns")').waitFor();
    await link.click();
    await page.locator('a:has-text("Edit")').click();
    await page.locator('text=editing version 1').waitFor();
    await page.locator('input[name=title]').fill('Handling a refund, step by step');
    await page.locator('textarea[name="metadata.prerequisites"]').fill('Order lookup');
    await page.locator('button:has-text("Save")').click();
    await page.locator('h1:has-text("Handling a refund, step by step")').waitFor();
    const edited = (await suite.t.request('GET', `/api/knowledge/knowledge-entries/${entry.id}`)).body;
    assert.equal(edited.version, 2);
    assert.deepEqual(edited.metadata.prerequisites, ['Order lookup']);

    // Open the form at version 2; the entry moves to version 3 over the API; saving is refused plainly.
    await page.locator('a:has-text("Edit")').click();
    await page.locator('text=editing version 2').waitFor();
    const behind = await suite.t.request('PUT', `/api/knowledge/knowledge-entries/${entry.id}`, { body: { content: 'Changed elsewhere.' } });
    assert.equal(behind.status, 200, behind.text);
    assert.equal(behind.body.version, 3);
    await page.locator('input[name=summary]').fill('My summary');
    await page.locator('button:has-text("Save")').click();
    const conflict = page.locator('.conflict');
    await conflict.waitFor();
    assert.match(await conflict.innerText(), /This entry was changed since you opened it \(version 2, now 3\)\. Reload to see the changes/);
    const stored = (await suite.t.request('GET', `/api/knowledge/knowledge-entries/${entry.id}`)).body;
    assert.equal(stored.version, 3);
    assert.equal(stored.summary, null, 'the stale form changed nothing');

    await conflict.locator('button:has-text("Reload")').click();
    await page.locator('text=editing version 3').waitFor();
    assert.equal(await page.locator('textarea[name=content]').inputValue(), 'Changed elsewhere.');
    assert.equal(await page.locator('.conflict').count(), 0);
    await tab.close();
  });

  test('delete asks first; a read-only key sees entries but no way to write', async () => {
    const made = await suite.t.request('POST', '/api/knowledge/knowledge-entries', {
      body: { title: 'Old memory', content: 'x', category_id: (await suite.t.request('GET', '/api/knowledge/categories')).body[0].id, visibility: 'public', type: 'memory', metadata: { importance: 5 } },
    });
    assert.equal(made.status, 201, made.text);

    const reader = await openConsole(suite.browser, suite.stack, suite.t);
    await signInWithKey(reader, await suite.t.keyWith(['knowledge:read']));
    await goTo(reader, `#/knowledge/${made.body.id}`);
    await reader.page.locator('h1:has-text("Old memory")').waitFor();
    assert.equal(await reader.page.locator('a:has-text("Edit"), button:has-text("Delete"), a:has-text("New entry")').count(), 0);
    await reader.close();

    const tab = await openConsole(suite.browser, suite.stack, suite.t);
    await signInWithKey(tab, suite.t.key);
    await goTo(tab, `#/knowledge/${made.body.id}`);
    await tab.page.locator('h1:has-text("Old memory")').waitFor();
    tab.page.once('dialog', (dialog) => void dialog.dismiss());
    await tab.page.locator('button:has-text("Delete")').click();
    assert.equal((await suite.t.request('GET', `/api/knowledge/knowledge-entries/${made.body.id}`)).status, 200, 'dismissed: still there');
    tab.page.once('dialog', (dialog) => void dialog.accept());
    await tab.page.locator('button:has-text("Delete")').click();
    await tab.page.locator('h1:has-text("Knowledge entries")').waitFor();
    assert.equal((await suite.t.request('GET', `/api/knowledge/knowledge-entries/${made.body.id}`)).status, 404);
    await tab.close();
  });
});
