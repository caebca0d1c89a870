// Closed bodies over real HTTP: a key a search body does not name (top level or in `filters`) and
// a key the settings update does not name are a 422 extra_forbidden naming the key, while
// `filters.attributes` takes any attribute names and product writes still ignore unknown keys.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assert422 } from '../helpers/assertions.js';
import { SEARCH_KNOWLEDGE, SEARCH_PRODUCTS, searchHttp, sorted, upsertHttp } from './fixtures.js';
import { err, productKeys, shop, stack, useStack, type Shop } from './api-fixtures.js';

useStack();

const extra = (loc: (string | number)[], _input: unknown) => err(loc, 'Extra inputs are not permitted', 'extra_forbidden');

describe('unknown fields in a search body', () => {
  let s: Shop;
  before(async () => {
    s = await shop();
  });

  test('product search: a key at the top level is a 422 naming it', async () => {
    assert422(await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'lantern', sort_by: 'price' }), [extra(['body', 'sort_by'], 'price')]);
    // A name every object inherits is no field either.
    assert422(await searchHttp(s.t, SEARCH_PRODUCTS, { toString: { a: [1] } }), [extra(['body', 'toString'], { a: [1] })]);
  });

  test('product search: a key inside filters is a 422 at ["body","filters",key]', async () => {
    assert422(await searchHttp(s.t, SEARCH_PRODUCTS, { filters: { brand: ['Acme'], x: 1 } }), [extra(['body', 'filters', 'x'], 1)]);
    // An attribute belongs under filters.attributes.
    assert422(await searchHttp(s.t, SEARCH_PRODUCTS, { filters: { color: 'red' } }), [extra(['body', 'filters', 'color'], 'red')]);
  });

  test('every error of the body is listed: the fields\' own, then the unknown keys', async () => {
    assert422(await searchHttp(s.t, SEARCH_PRODUCTS, { limit: -1, page: 2, filters: { price_min: -1, priceMax: 5 } }), [
      err(['body', 'limit'], 'Input should be greater than or equal to 0', 'greater_than_equal'),
      err(['body', 'filters', 'price_min'], 'Input should be greater than or equal to 0', 'greater_than_equal'),
      extra(['body', 'filters', 'priceMax'], 5),
      extra(['body', 'page'], 2),
    ]);
  });

  test('filters.attributes stays open: any attribute names filter as before', async () => {
    assert.deepEqual(sorted(await productKeys(s, { filters: { attributes: { color: 'RED' } } })), ['jacket', 'shoes']);
    assert.deepEqual(sorted(await productKeys(s, { filters: { attributes: { size: ['s', 'm'], color: ['blue'] } } })), ['hoodie-m', 'hoodie-s']);
    assert.deepEqual(await productKeys(s, { filters: { attributes: { 'no such attribute': 'x', sort_by: 'y', toString: 'z' } } }), [], 'names no product has: nothing matches, no 422');
  });

  test('knowledge search: an unknown field is a 422', async () => {
    assert422(await searchHttp(s.t, SEARCH_KNOWLEDGE, { query: 'policy', visibilty: 'public' }), [extra(['body', 'visibilty'], 'public')]);
    assert.equal((await searchHttp(s.t, SEARCH_KNOWLEDGE, { query: 'policy', visibility: 'public' })).status, 200);
  });

  test('product writes still ignore unknown keys (the interface spec lets clients send what they like)', async () => {
    const p = await upsertHttp(s.t, s.sites.en.slug, { title: 'Open body', language: 'en', made_up_field: 1 });
    assert.equal(p.made_up_field, undefined);
  });
});

describe('unknown fields in the settings update', () => {
  test('PUT /settings: a key it does not name is a 422, and nothing changes', async () => {
    const t = await stack.tenant();
    const before = await t.request('GET', '/api/knowledge/settings');
    assert.equal(before.status, 200, before.text);
    assert422(await t.request('PUT', '/api/knowledge/settings', { body: { variant_strategy: 'children_only', varient: true } }), [extra(['body', 'varient'], true)]);
    assert.deepEqual((await t.request('GET', '/api/knowledge/settings')).body, before.body);
    const ok = await t.request('PUT', '/api/knowledge/settings', { body: { variant_strategy: 'children_only' } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.variant_strategy, 'children_only');
  });
});
