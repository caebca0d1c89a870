// POST /api/knowledge/search/multi over real HTTP: several product searches in one request, each
// answered as /search/products answers it, errors in their place; and the search bodies'
// unknown fields (a 422 naming them, so a client sending `sort_by` is not answered in relevance order).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assert422 } from '../helpers/assertions.js';
import { SEARCH_KNOWLEDGE, SEARCH_PRODUCTS, searchHttp } from './fixtures.js';
import { err, shop, stack, useStack, type Shop } from './api-fixtures.js';

useStack();

const MULTI = '/api/knowledge/search/multi';
const ids = (answer: { hits: { id: string }[] }) => answer.hits.map((h) => h.id);

describe('POST /api/knowledge/search/multi', () => {
  let s: Shop;
  before(async () => {
    s = await shop();
  });

  test('answers each search in order, as /search/products answers it alone', async () => {
    const searches = [{ query: 'lantern' }, { site_id: s.sites.de.slug, facets: ['brand'], limit: 3 }, { query: 'tent', sort: [{ price_current: 'desc' }] }];
    const res = await searchHttp(s.t, MULTI, { searches });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.results.length, 3);
    for (const [i, body] of searches.entries()) {
      const alone = await searchHttp(s.t, SEARCH_PRODUCTS, body);
      // Each counted search is named apart (query_id): the rest is the same.
      const { took_ms: _a, query_id: multiId, ...multi } = res.body.results[i];
      const { took_ms: _b, query_id: singleId, ...single } = alone.body;
      assert.deepEqual(multi, single, `search ${i}`);
      assert.ok(typeof multiId === 'string' && typeof singleId === 'string' && multiId !== singleId, `search ${i}: ${multiId}, ${singleId}`);
    }
  });

  test('an invalid search or an unknown site gets its error in its place; the others are answered', async () => {
    const res = await searchHttp(s.t, MULTI, { searches: [{ limit: 101 }, { query: 'lantern' }, { site_id: 'no-such-site' }, { sort_by: 'price' }] });
    assert.equal(res.status, 200, res.text);
    const [invalid, found, unknownSite, extra] = res.body.results;
    assert.deepEqual(invalid, { error: { status: 422, detail: [err(['body', 'limit'], 'Input should be less than or equal to 100', 'less_than_equal')] } });
    assert.equal(ids(found).length, 2);
    assert.equal(unknownSite.error.status, 404);
    assert.equal(typeof unknownSite.error.detail, 'string');
    assert.deepEqual(extra, { error: { status: 422, detail: [err(['body', 'sort_by'], 'Extra inputs are not permitted', 'extra_forbidden')] } });
  });

  test('the envelope: 1 to 10 searches, nothing else', async () => {
    assert.equal((await searchHttp(s.t, MULTI, { searches: Array.from({ length: 10 }, () => ({ query: 'tent' })) })).status, 200);
    assert422(await searchHttp(s.t, MULTI, { searches: Array.from({ length: 11 }, () => ({})) }), [
      err(['body', 'searches'], 'List should have at most 10 items after validation, not 11', 'too_long'),
    ]);
    assert422(await searchHttp(s.t, MULTI, { searches: [] }), [err(['body', 'searches'], 'List should have at least 1 item after validation, not 0', 'too_short')]);
    assert422(await searchHttp(s.t, MULTI, {}), [err(['body', 'searches'], 'Field required', 'missing')]);
  });

  test('a search-only key gets the storefront view of each product', async () => {
    const key = await s.t.keyWith(['search']);
    const res = await searchHttp(s.t, MULTI, { searches: [{ query: 'lantern' }] }, { key });
    assert.equal(res.status, 200, res.text);
    const product = res.body.results[0].hits[0].product;
    assert.ok(product.title);
    assert.equal(product.external_id, undefined, 'no sync bookkeeping for a public key');
  });
});

describe('unknown fields in search bodies are a 422 naming them', () => {
  test('product search: top level, filters, a sort entry; attribute names stay free', async () => {
    const t = await stack.tenant();
    assert422(await searchHttp(t, SEARCH_PRODUCTS, { query: 'x', sort_by: 'price_current:asc' }), [err(['body', 'sort_by'], 'Extra inputs are not permitted', 'extra_forbidden')]);
    assert422(await searchHttp(t, SEARCH_PRODUCTS, { filters: { colour: 'red' } }), [err(['body', 'filters', 'colour'], 'Extra inputs are not permitted', 'extra_forbidden')]);
    assert422(await searchHttp(t, SEARCH_PRODUCTS, { sort: [{ popularity: 'desc' }] }), [err(['body', 'sort', 0, 'popularity'], 'Extra inputs are not permitted', 'extra_forbidden')]);
    assert.equal((await searchHttp(t, SEARCH_PRODUCTS, { filters: { attributes: { anything: 'goes' } } })).status, 200);
  });

  test('knowledge search and the settings update', async () => {
    const t = await stack.tenant();
    assert422(await searchHttp(t, SEARCH_KNOWLEDGE, { query: 'x', tag: 'a' }), [err(['body', 'tag'], 'Extra inputs are not permitted', 'extra_forbidden')]);
    assert422(await t.request('PUT', '/api/knowledge/settings', { body: { variant: 'all' } }), [err(['body', 'variant'], 'Extra inputs are not permitted', 'extra_forbidden')]);
  });
});
