// The InstantSearch adapter (clients/instantsearch) in Node against a real kcs: InstantSearch's
// requests (as algoliasearch-helper builds them) become kcs searches, and kcs's answers come back
// in Algolia's result shape; what kcs cannot express, and kcs's own errors, reject.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSearchClient, type KcsSearchClient, type SearchParams, type SearchResult } from '../../clients/instantsearch/index.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { K, PRODUCTS, tenantFetch, writeProducts } from './fixtures.js';

const PRE = '__ais-highlight__';
const POST = '__/ais-highlight__';

let stack: Stack;
let t: TenantFixture;
let client: KcsSearchClient;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
  t = await stack.tenant();
  await writeProducts(t, 'shop', PRODUCTS);
  const key = (await t.request('POST', `${K}/api-keys`, { body: { name: 'storefront', scopes: ['search'] } })).body.key;
  client = createSearchClient({ baseUrl: `http://${t.tenant.slug}.localhost:${stack.port}`, apiKey: key, fetch: tenantFetch(stack, t.tenant.slug) });
});
after(() => stack.close());

const one = async (params: SearchParams, indexName = 'shop'): Promise<SearchResult> =>
  (await client.search([{ indexName, params }])).results[0] as SearchResult;
const titles = (r: SearchResult) => r.hits.map((h) => h.title).sort();
const titlesWhere = (keep: (p: (typeof PRODUCTS)[number]) => boolean) => PRODUCTS.filter(keep).map((p) => p.title).sort();

describe('searches', () => {
  test("InstantSearch's first request (empty query): the site browsed, facet counts, Algolia's result shape", async () => {
    const r = await one({ query: '', page: 0, hitsPerPage: 3, facets: ['brand', 'category'], highlightPreTag: PRE, highlightPostTag: POST });
    assert.equal(r.nbHits, 8);
    assert.equal(r.nbPages, 3);
    assert.equal(r.hitsPerPage, 3);
    assert.equal(r.page, 0);
    assert.equal(r.hits.length, 3);
    for (const hit of r.hits) {
      assert.equal(hit.objectID, hit.id);
      assert.equal(hit._highlightResult.title?.matchLevel, 'none');
      assert.equal(hit._highlightResult.title?.value, hit.title);
      assert.equal(hit.sync_hash, undefined, 'a search key sees the storefront fields only');
    }
    assert.deepEqual(r.facets, { brand: { Acme: 3, Bosch: 3, Gardena: 2 }, category: { Tools: 6, Garden: 2 } });
    assert.equal(typeof r.processingTimeMS, 'number');
    assert.equal(r.query, '');
    assert.equal(r.index, 'shop');
    assert.equal(r.exhaustiveNbHits, true);
    assert.equal(new URLSearchParams(r.params).get('hitsPerPage'), '3');
    assert.equal(new URLSearchParams(r.params).get('facets'), '["brand","category"]');
  });

  test("a query: its words highlighted in the request's tags, case and diacritics ignored", async () => {
    const r = await one({ query: 'DRILL', hitsPerPage: 20, highlightPreTag: PRE, highlightPostTag: POST });
    assert.deepEqual(titles(r), titlesWhere((p) => p.title.includes('Drill')));
    for (const hit of r.hits) {
      const h = hit._highlightResult.title!;
      assert.match(h.value, new RegExp(`${PRE}Drill${POST}`));
      assert.equal(h.matchLevel, 'full');
      assert.deepEqual(h.matchedWords, ['DRILL']);
    }
    const cafe = await one({ query: 'cafe', highlightPreTag: PRE, highlightPostTag: POST });
    assert.equal(cafe.hits[0]._highlightResult.title!.value, `Impact Drill ${PRE}Café${POST} Edition`);
    const size = await one({ query: 'lawn grosse' });
    assert.equal(size.hits[0]._highlightResult.title!.value, '<em>Lawn</em> Mower <em>Größe</em> XL');
    // No product has all three words, so kcs answers those with most of them: the title matches two of three.
    const partial = await one({ query: 'hose reel xyzzy', highlightPreTag: PRE, highlightPostTag: POST });
    assert.deepEqual(titles(partial), ['Garden Hose Reel']);
    assert.deepEqual({ ...partial.hits[0]._highlightResult.title, value: undefined }, { value: undefined, matchLevel: 'partial', matchedWords: ['hose', 'reel'], fullyHighlighted: false });
  });

  test('facetFilters: OR inside a group, AND across groups; brand, category, availability, in_stock', async () => {
    assert.deepEqual(titles(await one({ facetFilters: [['brand:Acme', 'brand:Gardena']] })), titlesWhere((p) => p.brand !== 'Bosch'));
    assert.deepEqual(titles(await one({ facetFilters: [['brand:Acme', 'brand:Bosch'], ['brand:Bosch']] })), titlesWhere((p) => p.brand === 'Bosch'));
    assert.deepEqual(titles(await one({ facetFilters: ['category:Garden'] })), titlesWhere((p) => p.category === 'Garden'));
    assert.deepEqual(titles(await one({ facetFilters: [['availability:OutOfStock']] })), titlesWhere((p) => p.availability === 'OutOfStock'));
    assert.deepEqual(titles(await one({ facetFilters: ['in_stock:true', 'brand:Acme'] })), titlesWhere((p) => p.availability === 'InStock' && p.brand === 'Acme'));
    const none = await one({ facetFilters: [['brand:Acme'], ['brand:Bosch']], facets: ['brand'] });
    assert.deepEqual([none.nbHits, none.hits, none.facets], [0, [], { brand: {} }]);
  });

  test('numericFilters on the price: >=, <=, >, <, =, and a range', async () => {
    const prices = async (numericFilters: SearchParams['numericFilters']) =>
      (await one({ numericFilters, hitsPerPage: 20 })).hits.map((h) => Number(h.price_current)).sort((a, b) => a - b);
    assert.deepEqual(await prices(['price>=20', 'price<=50']), [20, 30, 40, 50]);
    assert.deepEqual(await prices([['price>20'], ['price<50']]), [30, 40]);
    assert.deepEqual(await prices(['price:30 TO 60']), [30, 40, 50, 60]);
    assert.deepEqual(await prices('price=40'), [40]);
    assert.deepEqual(await prices(['price>=-5', 'price<15']), [10]);
  });

  test('several requests in one call, as a refinement list sends them: the hits, then the disjunctive facet', async () => {
    const { results } = await client.search([
      { indexName: 'shop', params: { query: '', facets: ['brand'], facetFilters: [['brand:Acme']], hitsPerPage: 10 } },
      { indexName: 'shop', params: { query: '', facets: 'brand', hitsPerPage: 0, page: 0, analytics: false, clickAnalytics: false } },
    ]);
    const [hits, facet] = results as SearchResult[];
    assert.deepEqual(titles(hits), titlesWhere((p) => p.brand === 'Acme'));
    assert.deepEqual(hits.facets, { brand: { Acme: 3 } });
    assert.deepEqual([facet.hits, facet.nbHits, facet.hitsPerPage, facet.nbPages], [[], 8, 0, 0]);
    assert.deepEqual(facet.facets, { brand: { Acme: 3, Bosch: 3, Gardena: 2 } });
  });

  test('pages are 0-based and disjoint; hitsPerPage is capped at 100; pages past offset 1000 are empty', async () => {
    const pages = await Promise.all([0, 1, 2].map((page) => one({ page, hitsPerPage: 3 })));
    assert.deepEqual(pages.map((p) => p.hits.length), [3, 3, 2]);
    const ids = pages.flatMap((p) => p.hits.map((h) => h.objectID));
    assert.equal(new Set(ids).size, 8);
    assert.deepEqual((await one({ page: 3, hitsPerPage: 3 })).hits, []);
    const big = await one({ hitsPerPage: 500 });
    assert.deepEqual([big.hitsPerPage, big.hits.length, big.nbPages], [100, 8, 1]);
    const far = await one({ page: 11, hitsPerPage: 100 });
    assert.deepEqual([far.hits, far.nbHits, far.page], [[], 8, 11]);
  });
});

describe('facet values', () => {
  test('searchForFacetValues and a facet request of search(): the values kcs counts, matched by prefix and highlighted', async () => {
    const [brands] = await client.searchForFacetValues([{ indexName: 'shop', params: { facetName: 'brand', facetQuery: 'bo', maxFacetHits: 10 } }]);
    assert.deepEqual(brands.facetHits, [{ value: 'Bosch', count: 3, highlighted: '<em>Bo</em>sch' }]);
    const { results } = await client.search([{ type: 'facet', facet: 'category', indexName: 'shop', params: { facetQuery: '', highlightPreTag: PRE, highlightPostTag: POST } }]);
    assert.deepEqual((results[0] as { facetHits: unknown[] }).facetHits, [{ value: 'Tools', count: 6, highlighted: 'Tools' }, { value: 'Garden', count: 2, highlighted: 'Garden' }]);
  });
});

describe('errors reject with the kcs detail', () => {
  const rejection = async (promise: Promise<unknown>, status: number, message: RegExp) => {
    await assert.rejects(promise, (error: Error & { status?: number }) => {
      assert.equal(error.name, 'KcsSearchError');
      assert.equal(error.status, status);
      assert.match(error.message, message);
      return true;
    });
  };

  test("kcs's own: an unknown key (401), an unknown site (404), an invalid body (422)", async () => {
    const base = `http://${t.tenant.slug}.localhost:${stack.port}`;
    const stranger = createSearchClient({ baseUrl: base, apiKey: 'kcs_00000000-0000-4000-8000-000000000000_aaaaaaaaaaaaaaaaaaaaaaaa', fetch: tenantFetch(stack, t.tenant.slug) });
    await rejection(stranger.search([{ indexName: 'shop', params: { query: 'x' } }]), 401, /^Invalid or expired credentials$/);
    await rejection(client.search([{ indexName: 'nowhere', params: {} }]), 404, /not found/i);
    const key = (await t.request('POST', `${K}/api-keys`, { body: { name: 's', scopes: ['search'] } })).body.key;
    const badLanguage = createSearchClient({ baseUrl: base, apiKey: key, language: 'toolong', fetch: tenantFetch(stack, t.tenant.slug) });
    await rejection(badLanguage.search([{ indexName: 'shop', params: {} }]), 422, /^body\.language: /);
  });

  test('what kcs search cannot express', async () => {
    const cannot = /^kcs search cannot express/;
    await rejection(one({ facetFilters: ['brand:-Acme'] }), 400, cannot);
    await rejection(one({ facetFilters: [['brand:Acme', 'category:Tools']] }), 400, cannot);
    await rejection(one({ facetFilters: [['category:Tools', 'category:Garden']] }), 400, cannot);
    await rejection(one({ facetFilters: ['color:red'] }), 400, cannot);
    await rejection(one({ numericFilters: ['rating>3'] }), 400, cannot);
    await rejection(one({ numericFilters: [['price<10', 'price>50']] }), 400, cannot);
    await rejection(one({ filters: 'brand:Acme' }), 400, cannot);
    await rejection(client.searchForFacetValues([{ indexName: 'shop', params: { facetName: 'color', facetQuery: 'r' } }]), 400, /counts the facets/);
  });
});
