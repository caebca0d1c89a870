// The storefront search page over real HTTP, on whichever engine the run uses: the tenant's
// facetable attributes (settings), facets on them and on category levels, facets_stats, sorting,
// the rating and category-path filters, facet value search, and highlights with a search key.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assert422 } from '../helpers/assertions.js';
import type { TenantFixture } from '../helpers/stack.js';
import { createSiteHttp, SEARCH_PRODUCTS, searchHttp, upsertHttp } from './fixtures.js';
import { err, stack, useStack } from './api-fixtures.js';

useStack();

const SETTINGS = '/api/knowledge/settings';
const FACET_VALUES = '/api/knowledge/search/facet-values';

const PRODUCTS = [
  { external_id: 'regen', title: 'Regenjacke Sturm', price_current: '89.90', rating_average: '4.5', brand: 'Nordkap', category: 'Herren > Jacken > Regenjacken',
    attributes: { farbe: 'Rot', groesse: ['M', 'L'] }, description: 'Wasserdichte Jacke mit Kapuze. Die Regenjacke hält bei Sturm und Regen trocken.' },
  { external_id: 'leicht', title: 'Leichte Jacke', price_current: '49.00', rating_average: '4.1', brand: 'Nordkap', category: 'Herren > Jacken', attributes: { farbe: 'Blau' } },
  { external_id: 'winter', title: 'Winterjacke Polar', price_current: '149.00', rating_average: '3.9', brand: 'Fjell', category: 'Damen > Jacken', attributes: { farbe: 'Rot' } },
  { external_id: 'hose', title: 'Wanderhose', price_current: '59.00', brand: 'Adler', category: 'Herren > Hosen', attributes: { farbe: 'Grün' } },
];

describe('the storefront search page over HTTP', () => {
  let t: TenantFixture;
  const key: Record<string, string> = {};
  const search = (body: Record<string, unknown>) => searchHttp(t, SEARCH_PRODUCTS, { site_id: 'shop-de', ...body });
  const keysOf = (res: { body: { hits: { id: string }[] } }) => res.body.hits.map((h) => key[h.id]);

  before(async () => {
    t = await stack.tenant();
    await createSiteHttp(t, 'shop-de', 'de');
    for (const p of PRODUCTS) key[(await upsertHttp(t, 'shop-de', { language: 'de', ...p })).id] = p.external_id;
  });

  test('facet_attributes in the settings: empty by default, stored lower-case and once; an attribute not listed is a 422 that says so', async () => {
    assert.deepEqual((await t.request('GET', SETTINGS)).body.facet_attributes, []);
    assert422(await search({ facets: ['attributes.farbe'] }), [err(['body', 'facets', 0],
      'The attribute farbe is not facetable: an admin adds it to facet_attributes (PUT /api/knowledge/settings)', 'facet_not_facetable')]);
    const put = await t.request('PUT', SETTINGS, { body: { facet_attributes: ['Farbe', 'groesse', 'farbe'] } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.facet_attributes, ['farbe', 'groesse']);
    assert.deepEqual((await t.request('GET', SETTINGS)).body.facet_attributes, ['farbe', 'groesse']);
    assert422(await t.request('PUT', SETTINGS, { body: { facet_attributes: ['x'.repeat(101)] } }), [
      err(['body', 'facet_attributes', 0], 'String should have at most 100 characters', 'string_too_long'),
    ]);
  });

  test('an attribute not facetable is a 422 that names none of the configured facet_attributes, to a search-only key or any caller', async () => {
    assert.equal((await t.request('PUT', SETTINGS, { body: { facet_attributes: ['farbe', 'groesse'] } })).status, 200);
    const searchKey = await t.keyWith(['search']);
    for (const k of [searchKey, undefined]) {
      const res = await searchHttp(t, SEARCH_PRODUCTS, { site_id: 'shop-de', facets: ['attributes.secretthing'] }, k ? { key: k } : {});
      assert422(res, [err(['body', 'facets', 0],
        'The attribute secretthing is not facetable: an admin adds it to facet_attributes (PUT /api/knowledge/settings)', 'facet_not_facetable')]);
      for (const name of ['farbe', 'groesse']) assert.ok(!res.text.includes(name), `the 422 does not name ${name}: ${res.text}`);
    }
  });

  test('facets on attributes and category levels, facets_stats for price and rating', async () => {
    const res = await search({ query: 'jacke', facets: ['attributes.Farbe', 'category.lvl0', 'category.lvl1', 'price_current', 'rating_average'] });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.facets, {
      'attributes.farbe': [{ value: 'Rot', count: 2 }, { value: 'Blau', count: 1 }],
      'category.lvl0': [{ value: 'Herren', count: 2 }, { value: 'Damen', count: 1 }],
      'category.lvl1': [{ value: 'Damen > Jacken', count: 1 }, { value: 'Herren > Jacken', count: 2 }].sort((a, b) => b.count - a.count),
    });
    assert.deepEqual(res.body.facets_stats, {
      price_current: { min: 49, max: 149, avg: 95.97, count: 3 },
      rating_average: { min: 3.9, max: 4.5, avg: 4.17, count: 3 },
    });
    assert.equal(res.body.facets_exhaustive, true);
  });

  test('sort: price both ways, rating; a sort entry names one known field; unknown facets and sort fields are 422s', async () => {
    assert.deepEqual(keysOf(await search({ query: 'jacke', sort: [{ price_current: 'asc' }] })), ['leicht', 'regen', 'winter']);
    assert.deepEqual(keysOf(await search({ sort: [{ price_current: 'desc' }] })), ['winter', 'regen', 'hose', 'leicht']);
    assert.deepEqual(keysOf(await search({ sort: [{ rating_average: 'desc' }] })), ['regen', 'leicht', 'winter', 'hose']);
    const twoKeys = await search({ sort: [{ price_current: 'asc', title: 'asc' }] });
    assert.equal(twoKeys.status, 422, twoKeys.text);
    assert.deepEqual(twoKeys.body.detail[0].loc, ['body', 'sort', 0]);
    const unknown = await search({ sort: [{ popularity: 'desc' }] });
    assert.equal(unknown.status, 422, unknown.text);
    assert.deepEqual(unknown.body.detail.map((d: { loc: unknown }) => d.loc), [['body', 'sort', 0, 'popularity']]);
    const upward = await search({ sort: [{ relevance: 'asc' }] });
    assert.equal(upward.status, 422, upward.text);
  });

  test('rating and category path filters', async () => {
    assert.deepEqual(keysOf(await search({ filters: { rating_min: 4.1 }, sort: [{ price_current: 'asc' }] })), ['leicht', 'regen']);
    assert.deepEqual(keysOf(await search({ filters: { category_path: 'Herren > Jacken' }, sort: [{ price_current: 'asc' }] })), ['leicht', 'regen']);
    assert.deepEqual(keysOf(await search({ filters: { category_path: 'herren' }, sort: [{ price_current: 'asc' }] })), ['leicht', 'hose', 'regen']);
  });

  test('facet value search: values by prefix with their counts under the query, the prefix marked', async () => {
    const res = await searchHttp(t, FACET_VALUES, { site_id: 'shop-de', facet: 'brand', facet_query: 'nor' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { facet: 'brand', values: [{ value: 'Nordkap', count: 2, highlighted: '<mark>Nor</mark>dkap' }], facets_exhaustive: true });
    const underQuery = await searchHttp(t, FACET_VALUES, { site_id: 'shop-de', query: 'winterjacke', facet: 'attributes.farbe', facet_query: 'r' });
    assert.deepEqual(underQuery.body.values, [{ value: 'Rot', count: 1, highlighted: '<mark>R</mark>ot' }]);
    const every = await searchHttp(t, FACET_VALUES, { site_id: 'shop-de', facet: 'category.lvl0' });
    assert.deepEqual(every.body.values.map((v: { value: string }) => v.value), ['Herren', 'Damen']);
    assert422(await searchHttp(t, FACET_VALUES, { facet: 'price_current' }), [err(['body', 'facet'],
      'price_current has values only as facets_stats (min, max, avg): it has no values to search', 'value_error')]);
  });

  test('highlight: the matched words marked in title, brand and description, a snippet, the matched words; a search key gets them too', async () => {
    const searchKey = await t.keyWith(['search']);
    for (const k of [undefined, searchKey]) {
      const res = await searchHttp(t, SEARCH_PRODUCTS, { site_id: 'shop-de', query: 'jacke', highlight: true, limit: 1, sort: [{ price_current: 'desc' }], ...(k ? {} : {}) }, k ? { key: k } : {});
      assert.equal(res.status, 200, res.text);
      const regen = (await searchHttp(t, SEARCH_PRODUCTS, { site_id: 'shop-de', query: 'sturm jacke', highlight: true, highlight_pre_tag: '<em>', highlight_post_tag: '</em>' }, k ? { key: k } : {})).body.hits[0];
      assert.equal(regen.highlight.title, '<em>Regenjacke</em> <em>Sturm</em>');
      assert.equal(regen.highlight.brand, 'Nordkap');
      assert.match(regen.highlight.description, /<em>Jacke<\/em> mit Kapuze/);
      assert.match(regen.highlight.snippet, /<em>Sturm<\/em>/);
      assert.deepEqual([...regen.highlight.matched_words].sort(), ['jacke', 'regenjacke', 'sturm']);
      assert.equal(res.body.hits[0].highlight.title, 'Winter<mark>jacke</mark> Polar'.replace('Winter<mark>jacke</mark>', '<mark>Winterjacke</mark>'));
    }
    const plain = await search({ query: 'jacke' });
    assert.ok(plain.body.hits.every((h: Record<string, unknown>) => !('highlight' in h)), 'no highlight unless asked');
  });

  test('understand: a price phrase becomes a price filter, listed in understood; off by default, on by the tenant setting, off again per search', async () => {
    const off = await search({ query: 'jacke unter 90 €' });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(off.body.understood, [], 'the tenant setting is off by default');
    const on = await search({ query: 'jacke unter 90 €', understand: true, sort: [{ price_current: 'asc' }] });
    assert.equal(on.status, 200, on.text);
    assert.deepEqual(keysOf(on), ['leicht', 'regen'], 'the jackets up to 90 €, not the one at 149 €');
    assert.deepEqual(on.body.understood, [{ words: 'unter 90 €', filter: { price_max: 90 } }]);
    // With the search's own filter: both hold.
    assert.deepEqual(keysOf(await search({ query: 'jacke 50-200 €', understand: true, filters: { price_max: 100 } })), ['regen']);
    // Only a price phrase: every product in the range, as browsing.
    assert.deepEqual(keysOf(await search({ query: 'ab 55 euro', understand: true, sort: [{ price_current: 'asc' }] })), ['hose', 'regen', 'winter']);
    // No price phrase: the same answer as without understanding.
    const plain = await search({ query: 'jacke rot', understand: false });
    const read = await search({ query: 'jacke rot', understand: true });
    assert.deepEqual(keysOf(read), keysOf(plain));
    assert.deepEqual(read.body.understood, []);

    assert.equal((await t.request('PUT', SETTINGS, { body: { understand_queries: true } })).status, 200);
    assert.equal((await t.request('GET', SETTINGS)).body.understand_queries, true);
    assert.deepEqual((await search({ query: 'jacke bis 60 euro' })).body.understood, [{ words: 'bis 60 euro', filter: { price_max: 60 } }]);
    assert.deepEqual((await search({ query: 'jacke bis 60 euro', understand: false })).body.understood, [], 'a search turns it off');
    const searchKey = await t.keyWith(['search']);
    const asShopper = await searchHttp(t, SEARCH_PRODUCTS, { site_id: 'shop-de', query: 'jacke günstiger als 60' }, { key: searchKey });
    assert.deepEqual(asShopper.body.understood, [{ words: 'günstiger als 60', filter: { price_max: 60 } }]);
    assert.deepEqual(keysOf(asShopper), ['leicht']);
    assert.equal((await t.request('PUT', SETTINGS, { body: { understand_queries: false } })).status, 200);
    assert422(await search({ query: 'jacke', understand: 'yes' }), [err(['body', 'understand'], 'Input should be a valid boolean', 'bool_type')]);
  });
});
