// Search rules over real HTTP, on whichever engine the run uses: create or replace, read, list,
// delete, the usual errors (404, 422, 403 without admin), the audit log, and a rule written
// through this process applying to the very next search (whole products, storefront view,
// multi-search), which lists it in applied_rules and marks its pinned hits.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assert422, assertError, assertInsufficientScope } from '../helpers/assertions.js';
import type { TenantFixture } from '../helpers/stack.js';
import { createSiteHttp, SEARCH_PRODUCTS, searchHttp, upsertHttp } from './fixtures.js';
import { err, stack, useStack } from './api-fixtures.js';

useStack();

const RULES = '/api/knowledge/search-rules';
const PRODUCTS = [
  { external_id: 'regen', title: 'Regenjacke Sturm', brand: 'Nordkap' },
  { external_id: 'leicht', title: 'Leichte Jacke', brand: 'Nordkap' },
  { external_id: 'winter', title: 'Winterjacke Polar', brand: 'Fjell' },
  { external_id: 'weste', title: 'Weste Daune', brand: 'Adler' },
];

describe('search rules over HTTP', () => {
  let t: TenantFixture;
  const key: Record<string, string> = {};
  const id: Record<string, string> = {};
  let outletProduct = '';
  const search = (body: Record<string, unknown>, options: { key?: string } = {}) =>
    searchHttp(t, SEARCH_PRODUCTS, { site_id: 'shop', mode: 'keyword', ...body }, options);
  const keysOf = (res: { body: { hits: { id: string }[] } }) => res.body.hits.map((h) => key[h.id]);
  const put = (ruleId: string, body: unknown) => t.request('PUT', `${RULES}/${ruleId}`, { body });

  before(async () => {
    t = await stack.tenant();
    await createSiteHttp(t, 'shop', 'de');
    await createSiteHttp(t, 'outlet', 'de');
    for (const p of PRODUCTS) {
      const written = await upsertHttp(t, 'shop', { language: 'de', ...p });
      key[written.id] = p.external_id;
      id[p.external_id] = written.id;
    }
    outletProduct = (await upsertHttp(t, 'outlet', { language: 'de', external_id: 'o', title: 'Jacke Outlet' })).id;
  });

  test('a rule written here applies to the next search: pins first, hidden gone, listed in applied_rules', async () => {
    const before = await search({ query: 'jacke' });
    assert.equal(before.status, 200, before.text);
    assert.deepEqual(before.body.applied_rules, []);
    assert.ok(keysOf(before).includes('regen'));
    const created = await put('jacken', { site_id: 'shop', query: 'Jacke', pin: [{ product_id: id.weste, position: 1 }], hide: [id.regen] });
    assert.equal(created.status, 201, created.text);
    const after = await search({ query: 'jacke' });
    assert.equal(keysOf(after)[0], 'weste');
    assert.ok(!keysOf(after).includes('regen'));
    assert.equal(after.body.hits[0].pinned, true);
    assert.equal(after.body.hits[1].pinned, undefined);
    assert.equal(after.body.total, before.body.total);
    assert.deepEqual(after.body.applied_rules, [{ id: 'jacken', pinned: [id.weste], hidden: 1, filtered: false }]);
    // A search-only key gets the storefront view, with the pins; so does each search of a multi-search.
    const storefront = await search({ query: 'jacke' }, { key: await t.keyWith(['search']) });
    assert.equal(storefront.status, 200, storefront.text);
    assert.equal(storefront.body.hits[0].pinned, true);
    const multi = await t.request('POST', '/api/knowledge/search/multi', { body: { searches: [{ site_id: 'shop', query: 'jacke', mode: 'keyword' }, { site_id: 'shop', query: 'weste', mode: 'keyword' }] } });
    assert.equal(multi.status, 200, multi.text);
    assert.deepEqual(multi.body.results.map((r: { applied_rules: { id: string }[] }) => r.applied_rules.map((a) => a.id)), [['jacken'], []]);
    assert.equal(multi.body.results[0].hits[0].id, id.weste);
    assert.equal((await t.request('DELETE', `${RULES}/jacken`)).status, 204);
    assert.deepEqual((await search({ query: 'jacke' })).body.applied_rules, []);
  });

  test('create, replace (200, created_at kept), read, list by site and query, delete (then 404), audited', async () => {
    const created = await put('sale', {
      site_id: 'shop', query: 'jacke', match: 'contains', filters: { brand: ['Fjell'] }, active_from: '2020-01-01', active_until: '2999-12-31T12:00:00+01:00', description: 'Winter sale',
    });
    assert.equal(created.status, 201, created.text);
    const site = (await t.request('GET', '/api/knowledge/sites/shop')).body;
    assert.deepEqual({ ...created.body, created_at: undefined, updated_at: undefined }, {
      id: 'sale', site_id: site.id, query: 'jacke', match: 'contains', pin: [], hide: [], filters: { brand: ['Fjell'] },
      active_from: '2020-01-01T00:00:00.000Z', active_until: '2999-12-31T11:00:00.000Z', description: 'Winter sale', enabled: true, created_at: undefined, updated_at: undefined,
    });
    assert.deepEqual(keysOf(await search({ query: 'rote jacke' })), ['winter']);
    const outlet = await search({ query: 'jacke', site_id: 'outlet' });
    assert.deepEqual(outlet.body.hits.map((h: { id: string }) => h.id), [outletProduct], 'another site keeps its results');

    const replaced = await put('sale', { query: 'jacke', hide: [id.leicht], enabled: false });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.site_id, null);
    assert.equal(replaced.body.filters, null);
    assert.equal(replaced.body.created_at, created.body.created_at);
    assert.deepEqual((await t.request('GET', `${RULES}/sale`)).body, replaced.body);
    assert.ok(keysOf(await search({ query: 'jacke' })).includes('leicht'), 'a disabled rule applies nothing');

    await put('polar', { site_id: site.id, query: 'polar', pin: [{ product_id: id.winter, position: 2 }] });
    const all = await t.request('GET', RULES);
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body.map((r: { id: string }) => r.id), ['sale', 'polar']);
    assert.equal(all.headers['x-total-count'], '2');
    assert.deepEqual((await t.request('GET', `${RULES}?site_id=shop`)).body.map((r: { id: string }) => r.id), ['polar']);
    assert.deepEqual((await t.request('GET', `${RULES}?query=Winterjacke%20Polar`)).body.map((r: { id: string }) => r.id), []);
    assert.deepEqual((await t.request('GET', `${RULES}?query=polar`)).body.map((r: { id: string }) => r.id), ['polar']);
    assert.deepEqual((await t.request('GET', `${RULES}?limit=1&offset=1`)).body.map((r: { id: string }) => r.id), ['polar']);
    assertError(await t.request('GET', `${RULES}?site_id=nowhere`), 404);

    for (const ruleId of ['sale', 'polar']) assert.equal((await t.request('DELETE', `${RULES}/${ruleId}`)).status, 204);
    assertError(await t.request('GET', `${RULES}/sale`), 404);
    assertError(await t.request('DELETE', `${RULES}/sale`), 404);
    const audit = await t.request('GET', '/api/knowledge/audit?entity_type=search_rule');
    assert.deepEqual(audit.body.filter((e: { entity_id: string }) => e.entity_id === 'sale').map((e: { action: string }) => e.action), ['delete', 'update', 'create']);
  });

  test('bad rules are 422s at their place; no admin scope a 403', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    assert422(await put('unknown', { query: 'jacke', pin: [{ product_id: id.weste, position: 1 }, { product_id: missing, position: 2 }] }), [
      err(['body', 'pin', 1, 'product_id'], `Product ${missing} not found`, 'product_unknown'),
    ]);
    assert422(await put('elsewhere', { site_id: 'outlet', query: 'jacke', pin: [{ product_id: id.weste, position: 1 }] }), [
      err(['body', 'pin', 0, 'product_id'], `Product ${id.weste} not found on the rule's site (it is a product of site ${(await t.request('GET', '/api/knowledge/sites/shop')).body.id})`, 'product_unknown'),
    ]);
    assert422(await put('both', { query: 'jacke', pin: [{ product_id: id.weste, position: 1 }], hide: [id.weste] }), [
      err(['body', 'hide', 0], `Product ${id.weste} is both pinned and hidden`, 'value_error'),
    ]);
    assert422(await put('twice', { query: 'jacke', pin: [{ product_id: id.weste, position: 1 }, { product_id: id.regen, position: 1 }] }), [
      err(['body', 'pin', 1, 'position'], 'Two products are pinned at position 1', 'value_error'),
    ]);
    assert422(await put('idle', { query: 'jacke' }), [err(['body'], 'A rule pins, hides or filters: give pin, hide or filters', 'value_error')]);
    assert422(await put('dates', { query: 'jacke', hide: [id.regen], active_from: '2026-02-01', active_until: '2026-01-31' }), [
      err(['body', 'active_until'], 'active_until is before active_from', 'value_error'),
    ]);
    assert422(await put('site', { query: 'jacke', hide: [id.regen], site_id: 'nowhere' }), [err(['body', 'site_id'], "Site 'nowhere' not found", 'site_unknown')]);
    for (const [body, loc] of [
      [{ query: 'jacke', hide: [id.regen], boost: 2 }, ['body', 'boost']],
      [{ query: '', hide: [id.regen] }, ['body', 'query']],
      [{ query: 'jacke', match: 'fuzzy', hide: [id.regen] }, ['body', 'match']],
      [{ query: 'jacke', pin: [{ product_id: id.weste, position: 0 }] }, ['body', 'pin', 0, 'position']],
      [{ query: 'jacke', hide: ['not-a-uuid'] }, ['body', 'hide', 0]],
      [{ query: 'jacke', filters: { colour: 'red' } }, ['body', 'filters', 'colour']],
    ] as const) {
      const res = await put('bad', body);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.body.detail[0].loc, loc, res.text);
    }
    const badId = await put('no%20spaces', { query: 'jacke', hide: [id.regen] });
    assert.equal(badId.status, 422, badId.text);
    assert.deepEqual(badId.body.detail.map((d: { loc: unknown }) => d.loc), [['path', 'id']]);

    const reader = await t.keyWith(['catalog:read', 'catalog:write', 'knowledge:read', 'knowledge:write']);
    assertInsufficientScope(await t.request('GET', RULES, { key: reader }), 'admin');
    assertInsufficientScope(await t.request('PUT', `${RULES}/x`, { key: reader, body: { query: 'jacke', hide: [id.regen] } }), 'admin');
    assertInsufficientScope(await t.request('DELETE', `${RULES}/x`, { key: reader }), 'admin');
  });

  test('a query without a letter or digit, or holding a control character, is a 422 at query: such a rule would never apply', async () => {
    for (const query of ['   ', '!!! ???', ' - ']) {
      assert422(await put('wordless', { query, hide: [id.regen] }), [err(['body', 'query'], "A rule's query needs a letter or digit to match", 'value_error')]);
    }
    for (const [query, code] of [['jac\u0000ke', 'U+0000'], ['jacke\tsturm', 'U+0009'], ['jacke\n', 'U+000A']]) {
      assert422(await put('control', { query, hide: [id.regen] }), [err(['body', 'query'], `A rule's query may not hold a control character (${code})`, 'value_error')]);
    }
    assertError(await t.request('GET', `${RULES}/wordless`), 404);
    assertError(await t.request('GET', `${RULES}/control`), 404);
    const fine = await put('umlaut', { query: ' Ärmel! ', hide: [id.regen] });
    assert.equal(fine.status, 201, fine.text);
    assert.equal(fine.body.query, 'Ärmel!');
    assert.equal((await t.request('DELETE', `${RULES}/umlaut`)).status, 204);
  });
});
