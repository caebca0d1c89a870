// The InstantSearch adapter (clients/instantsearch) in Node against a real kcs: InstantSearch's
// requests (as algoliasearch-helper builds them) become kcs searches, and kcs's answers come back
// in Algolia's result shape; what kcs cannot express, and kcs's own errors, reject.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSearchClient, type KcsSearchClient, type SearchParams, type SearchResult } from '../../clients/instantsearch/index.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { createRequire } from 'node:module';
import { K, PRODUCTS, SHOP_DE, tenantFetch, writeProducts, writeShopDe } from './fixtures.js';

const PRE = '__ais-highlight__';
const POST = '__/ais-highlight__';

let stack: Stack;
let t: TenantFixture;
let client: KcsSearchClient;
/** What the adapter sent kcs: each request's path and body, in order (reset by the tests that read it). */
let sent: Array<{ path: string; body: any }> = [];
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
  t = await stack.tenant();
  await writeProducts(t, 'shop', PRODUCTS);
  await writeShopDe(t);
  const key = (await t.request('POST', `${K}/api-keys`, { body: { name: 'storefront', scopes: ['search'] } })).body.key;
  const fetch = tenantFetch(stack, t.tenant.slug);
  client = createSearchClient({
    baseUrl: `http://${t.tenant.slug}.localhost:${stack.port}`, apiKey: key,
    fetch: (url, init) => {
      sent.push({ path: new URL(url).pathname, body: JSON.parse(init.body) });
      return fetch(url, init);
    },
  });
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

  test('several requests in one call, as a refinement list sends them: the hits, then the disjunctive facet (one POST /search/multi)', async () => {
    sent = [];
    const { results } = await client.search([
      { indexName: 'shop', params: { query: '', facets: ['brand'], facetFilters: [['brand:Acme']], hitsPerPage: 10 } },
      { indexName: 'shop', params: { query: '', facets: 'brand', hitsPerPage: 0, page: 0, analytics: false, clickAnalytics: false } },
    ]);
    const [hits, facet] = results as SearchResult[];
    assert.deepEqual(titles(hits), titlesWhere((p) => p.brand === 'Acme'));
    assert.deepEqual(hits.facets, { brand: { Acme: 3 } });
    assert.deepEqual([facet.hits, facet.nbHits, facet.hitsPerPage, facet.nbPages], [[], 8, 0, 0]);
    assert.deepEqual(facet.facets, { brand: { Acme: 3, Bosch: 3, Gardena: 2 } });
    assert.deepEqual(sent.map((s) => [s.path, s.body.searches?.length]), [[`${K}/search/multi`, 2]]);
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

  test("insights' userToken goes to kcs as user_token (one of another shape is left out); a facet value search sends none", async () => {
    sent = [];
    await one({ query: 'bohrer', userToken: 'anonymous-7f3c9a2e-1b4d' });
    await one({ query: 'bohrer', userToken: 'has space' });
    await client.searchForFacetValues([{ indexName: 'shop', params: { facetName: 'brand', facetQuery: 'a', userToken: 'anonymous-1' } }]);
    assert.deepEqual(sent.map((s) => s.body.user_token), ['anonymous-7f3c9a2e-1b4d', undefined, undefined]);
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
    await rejection(client.searchForFacetValues([{ indexName: 'shop', params: { facetName: 'price_current', facetQuery: '1' } }]), 400, /counts the facets/);
    await rejection(one({}, 'shop-de/sort/farbe:asc'), 400, cannot);
    await rejection(one({}, 'shop-de/sort/price_current:up'), 400, cannot);
    await rejection(one({}, 'shop-de/sort/_text_match:asc'), 400, cannot);
    await rejection(one({}, 'shop-de/sort/title:asc,price_current:asc,rating_average:desc,created_at:desc'), 400, cannot);
    await rejection(one({ facetFilters: [['category.lvl1:Herren > Jacken', 'category.lvl1:Damen > Jacken']] }, 'shop-de'), 400, cannot);
    await rejection(one({ facetFilters: [['attributes.farbe:Blau'], ['attributes.farbe:Rot']] }, 'shop-de'), 400, cannot);
    await rejection(one({ numericFilters: ['rating_average!=4'] }, 'shop-de'), 400, cannot);
  });

  test('in a batch, one failing search rejects the whole search() with its kcs detail', async () => {
    const batch = (second: SearchParams, indexName = 'shop-de') =>
      client.search([{ indexName: 'shop-de', params: { query: 'jacke' } }, { indexName, params: second }]);
    await rejection(batch({}, 'nowhere'), 404, /not found/i);
    await rejection(batch({ facets: ['attributes.material'], hitsPerPage: 0 }), 422, /material/);
  });
});

// ---- The storefront mappings, on the German shop (SHOP_DE, site shop-de) ----

const de = (params: SearchParams, sort = '') => one({ hitsPerPage: 20, ...params }, sort ? `shop-de/sort/${sort}` : 'shop-de');
const deTitles = (keep: (p: (typeof SHOP_DE)[number]) => boolean) => SHOP_DE.filter(keep).map((p) => p.title).sort();
const prices = (r: SearchResult) => r.hits.map((h) => Number(h.price_current));
const byPrice = [...SHOP_DE].sort((a, b) => a.price - b.price).map((p) => p.title);
/** The body of the one product search the last call sent. */
const lastBody = () => {
  assert.equal(sent.length, 1, JSON.stringify(sent));
  assert.equal(sent[0].path, `${K}/search/products`);
  return sent[0].body;
};

describe('sortBy: index names', () => {
  test('`shop-de` ranks by relevance; `shop-de/sort/<field>:<dir>` sorts by the field (typesense-instantsearch-adapter naming)', async () => {
    sent = [];
    const relevance = await de({});
    assert.equal(relevance.nbHits, 10);
    assert.equal(lastBody().sort, undefined);
    assert.equal(lastBody().site_id, 'shop-de');

    sent = [];
    const asc = await de({}, 'price_current:asc');
    assert.deepEqual(lastBody().sort, [{ price_current: 'asc' }]);
    assert.equal(lastBody().site_id, 'shop-de');
    assert.deepEqual(asc.hits.map((h) => h.title), byPrice);
    assert.equal(asc.index, 'shop-de/sort/price_current:asc');
    assert.deepEqual((await de({}, 'price_current:desc')).hits.map((h) => h.title), [...byPrice].reverse());

    // Unrated products come last in either direction.
    const ratingDesc = (await de({}, 'rating_average:desc')).hits.map((h) => h.title);
    assert.deepEqual(ratingDesc, [...SHOP_DE].filter((p) => p.rating !== undefined).sort((a, b) => b.rating! - a.rating!).map((p) => p.title).concat('Trinkflasche Berg & Tal'));
    const ratingAsc = (await de({}, 'rating_average:asc')).hits.map((h) => h.title);
    assert.equal(ratingAsc.at(-1), 'Trinkflasche Berg & Tal');
    assert.equal(ratingAsc[0], 'Regenhose Basic');
    assert.deepEqual((await de({}, 'title:asc')).hits.map((h) => h.title), SHOP_DE.map((p) => p.title).sort((a, b) => a.localeCompare(b, 'de')));
    // Newest first: the products were written in SHOP_DE's order.
    assert.equal((await de({}, 'created_at:desc')).hits[0].title, 'Mütze Flocke');
  });

  test('several fields joined by `,`; a query keeps its matches, sorted; pages follow the sort', async () => {
    sent = [];
    await de({}, 'rating_average:desc,price_current:asc,_text_match:desc');
    assert.deepEqual(lastBody().sort, [{ rating_average: 'desc' }, { price_current: 'asc' }, { relevance: 'desc' }]);
    const jackets = await de({ query: 'jacke' }, 'price_current:asc');
    assert.ok(jackets.nbHits >= 4, JSON.stringify(jackets.hits.map((h) => h.title)));
    assert.ok(jackets.hits.every((h) => /jacke/i.test(h.title)), JSON.stringify(jackets.hits.map((h) => h.title)));
    assert.deepEqual(prices(jackets), [...prices(jackets)].sort((a, b) => a - b));
    const pages = await Promise.all([0, 1, 2].map((page) => de({ page, hitsPerPage: 4 }, 'price_current:desc')));
    assert.deepEqual(pages.flatMap((p) => p.hits.map((h) => h.title)), [...byPrice].reverse());
  });
});

describe('facets and filters on attributes, the category hierarchy, price and rating', () => {
  test('attributes.<name>: value counts (the tenant lists farbe and groesse in facet_attributes) and filters', async () => {
    sent = [];
    const r = await de({ facets: ['attributes.farbe', 'attributes.groesse', 'brand'], hitsPerPage: 0 });
    assert.deepEqual(lastBody().facets, ['attributes.farbe', 'attributes.groesse', 'brand']);
    assert.deepEqual(r.facets['attributes.farbe'], { Blau: 3, Rot: 3, Schwarz: 2, Grün: 1, Braun: 1 });
    assert.deepEqual(r.facets['attributes.groesse'], { L: 3, M: 2, XL: 1, S: 1, '43': 1, '1 L': 1, Einheitsgröße: 1 });
    assert.deepEqual(r.facets.brand, { Vaude: 3, Schöffel: 3, 'Jack Wolfskin': 2, Meindl: 1, Sigg: 1 });

    sent = [];
    const blue = await de({ facetFilters: [['attributes.farbe:Blau']], facets: ['attributes.groesse'] });
    assert.deepEqual(lastBody().filters, { attributes: { farbe: ['Blau'] } });
    assert.deepEqual(titles(blue), deTitles((p) => p.attributes?.farbe === 'Blau'));
    assert.deepEqual(blue.facets['attributes.groesse'], { L: 1, M: 1, Einheitsgröße: 1 });
    assert.deepEqual(titles(await de({ facetFilters: [['attributes.farbe:Blau', 'attributes.farbe:Rot']] })), deTitles((p) => ['Blau', 'Rot'].includes(p.attributes!.farbe)));
    assert.deepEqual(titles(await de({ facetFilters: [['attributes.farbe:blau'], ['attributes.groesse:L'], ['brand:Vaude']] })), ['Regenjacke Nordkap']);
  });

  test('an attribute the tenant does not list in facet_attributes is a 422 as a facet, and filters as before', async () => {
    await assert.rejects(de({ facets: ['attributes.material'] }), (e: Error & { status?: number }) => e.status === 422 && /material/.test(e.message));
    assert.equal((await de({ facetFilters: ['attributes.material:Leder'] })).nbHits, 0);
  });

  test('hierarchicalMenu: category.lvl0 … lvl2 value counts; a refinement filters by category_path', async () => {
    const r = await de({ facets: ['category.lvl0', 'category.lvl1', 'category.lvl2'], hitsPerPage: 0 });
    assert.deepEqual(r.facets['category.lvl0'], { Herren: 5, Damen: 2, Schuhe: 1, Zubehör: 2 });
    assert.deepEqual(r.facets['category.lvl1'], {
      'Herren > Jacken': 3, 'Herren > Hosen': 2, 'Damen > Jacken': 2, 'Schuhe > Wanderschuhe': 1, 'Zubehör > Flaschen': 1, 'Zubehör > Mützen': 1,
    });
    assert.equal(r.facets['category.lvl2']['Herren > Jacken > Regenjacken'], 1);
    assert.equal(Object.keys(r.facets['category.lvl2']).length, 7);

    sent = [];
    const jackets = await de({ facetFilters: [['category.lvl1:Herren > Jacken']], facets: ['category.lvl0', 'category.lvl1', 'category.lvl2'] });
    assert.deepEqual(lastBody().filters, { category_path: 'Herren > Jacken' });
    assert.deepEqual(titles(jackets), deTitles((p) => p.category.startsWith('Herren > Jacken')));
    assert.deepEqual(jackets.facets['category.lvl2'], { 'Herren > Jacken > Regenjacken': 1, 'Herren > Jacken > Softshelljacken': 1, 'Herren > Jacken > Daunenjacken': 1 });
    assert.deepEqual(titles(await de({ facetFilters: ['category.lvl0:Herren'] })), deTitles((p) => p.category.startsWith('Herren')));
    assert.deepEqual(titles(await de({ facetFilters: [['category.lvl2:herren > jacken > regenjacken']] })), ['Regenjacke Nordkap']);
    // The parent level's filter beside the deeper one (as the helper sends for the parent values): the deeper one counts.
    assert.deepEqual(titles(await de({ facetFilters: [['category.lvl0:Herren'], ['category.lvl1:Herren > Hosen']] })), deTitles((p) => p.category.startsWith('Herren > Hosen')));
    sent = [];
    const none = await de({ facetFilters: [['category.lvl0:Damen'], ['category.lvl1:Herren > Hosen']] });
    assert.deepEqual([none.nbHits, sent.length], [0, 0]);
  });

  test('numericFilters on price_current and rating_average; products without a rating are left out by a rating filter', async () => {
    sent = [];
    const mid = await de({ numericFilters: ['price_current>=50', 'price_current<=130'] });
    assert.deepEqual(lastBody().filters, { price_min: 50, price_max: 130 });
    assert.deepEqual(prices(mid).sort((a, b) => a - b), [69, 79.95, 89, 129.9]);
    sent = [];
    const top = await de({ numericFilters: ['rating_average>=4.5'] });
    assert.deepEqual(lastBody().filters, { rating_min: 4.5 });
    assert.deepEqual(titles(top), deTitles((p) => (p.rating ?? 0) >= 4.5));
    assert.deepEqual(titles(await de({ numericFilters: ['rating_average:4 TO 4.4'] })), deTitles((p) => p.rating !== undefined && p.rating >= 4 && p.rating <= 4.4));
    assert.equal((await de({ numericFilters: ['rating_average>=0'] })).nbHits, 9);
    assert.deepEqual(titles(await de({ numericFilters: [['rating_average>4'], ['price_current<100']] })), deTitles((p) => (p.rating ?? 0) > 4 && p.price < 100));
  });

  test('facets price_current and rating_average answer facets_stats (min, max, avg), under the filters', async () => {
    sent = [];
    const r = await de({ facets: ['price_current', 'rating_average', 'brand'], hitsPerPage: 0 });
    assert.deepEqual(lastBody().facets, ['price_current', 'rating_average', 'brand']);
    assert.deepEqual([r.facets.price_current, r.facets.rating_average], [{}, {}]);
    const stats = (r as SearchResult & { facets_stats: Record<string, { min: number; max: number; avg: number }> }).facets_stats;
    assert.equal(stats.price_current.min, 19.95);
    assert.equal(stats.price_current.max, 199);
    assert.ok(Math.abs(stats.price_current.avg - 98.87) < 0.01, String(stats.price_current.avg));
    assert.deepEqual([stats.rating_average.min, stats.rating_average.max], [3.5, 4.8]);
    assert.ok(Math.abs(stats.rating_average.avg - 38 / 9) < 0.01, String(stats.rating_average.avg));
    const women = (await de({ facets: ['price_current'], facetFilters: ['category.lvl0:Damen'], hitsPerPage: 0 })) as SearchResult & { facets_stats: any };
    assert.deepEqual([women.facets_stats.price_current.min, women.facets_stats.price_current.max, women.facets_stats.price_current.avg], [69, 89, 79]);
    const nothing = (await de({ query: 'xylophon', facets: ['price_current'], hitsPerPage: 0 })) as SearchResult & { facets_stats?: any };
    assert.equal(nothing.facets_stats?.price_current, undefined, 'no match has a price: no stats');
  });

  test("algoliasearch-helper, as InstantSearch drives it: the hierarchical tree, a range's stats, disjunctive counts", async () => {
    const algoliasearchHelper = createRequire(import.meta.url)('algoliasearch-helper');
    const helper = algoliasearchHelper(client, 'shop-de', {
      hierarchicalFacets: [{ name: 'category', attributes: ['category.lvl0', 'category.lvl1', 'category.lvl2'] }],
      disjunctiveFacets: ['price_current', 'attributes.farbe'],
      highlightPreTag: PRE, highlightPostTag: POST, hitsPerPage: 20,
    });
    helper.toggleFacetRefinement('category', 'Herren > Jacken');
    helper.addNumericRefinement('price_current', '>=', 140);
    helper.addDisjunctiveFacetRefinement('attributes.farbe', 'Schwarz');
    sent = [];
    const results = await new Promise<any>((resolve, reject) => {
      helper.once('result', ({ results }: { results: unknown }) => resolve(results));
      helper.once('error', ({ error }: { error: Error }) => reject(error));
      helper.search();
    });
    assert.deepEqual(sent.map((s) => s.path), [`${K}/search/multi`], 'the batch is one request');
    assert.deepEqual(results.hits.map((h: { title: string }) => h.title).sort(), ['Daunenjacke Polar', 'Softshelljacke Alpin']);
    const tree = results.getFacetValues('category', { sortBy: ['name:asc'] });
    const herren = tree.data.find((d: { name: string }) => d.name === 'Herren');
    assert.equal(herren.isRefined, true);
    const jacken = herren.data.find((d: { name: string }) => d.name === 'Jacken');
    assert.equal(jacken.isRefined, true);
    assert.deepEqual(jacken.data.map((d: { name: string; count: number }) => `${d.name} ${d.count}`), ['Daunenjacken 1', 'Softshelljacken 1']);
    // The range's bounds ignore its own refinement, not the others (the disjunctive request): the black men's jackets.
    assert.deepEqual(results.getFacetStats('price_current'), { min: 149, max: 199, avg: 174, sum: 348 });
    const colours = results.getFacetValues('attributes.farbe', { sortBy: ['name:asc'] }).map((v: { name: string; count: number }) => `${v.name} ${v.count}`);
    assert.deepEqual(colours, ['Schwarz 2']);
  });
});

describe('highlight and snippet from kcs', () => {
  test("kcs's highlight (ask highlight: true with the request's tags): stems and compound parts marked, matchLevel, matchedWords", async () => {
    sent = [];
    const r = await de({ query: 'jacke', highlightPreTag: PRE, highlightPostTag: POST });
    assert.deepEqual([lastBody().highlight, lastBody().highlight_pre_tag, lastBody().highlight_post_tag], [true, PRE, POST]);
    const nordkap = r.hits.find((h) => h.title === 'Regenjacke Nordkap')!;
    assert.ok(nordkap, JSON.stringify(r.hits.map((h) => h.title)));
    // A compound holding the word: the browser's prefix highlight would not mark it, kcs does.
    assert.deepEqual(nordkap._highlightResult.title, { value: `${PRE}Regenjacke${POST} Nordkap`, matchLevel: 'full', matchedWords: ['jacke'], fullyHighlighted: false });
    assert.deepEqual(nordkap._highlightResult.brand, { value: 'Vaude', matchLevel: 'none', matchedWords: [], fullyHighlighted: false });
    assert.equal((nordkap as any).highlight, undefined, "kcs's own highlight object is not in the hit");
    const description = (nordkap._highlightResult as any).description;
    assert.match(description.value, new RegExp(`${PRE}Regenjacke${POST} für lange Touren`));
  });

  test('_snippetResult.description: the passage around the match, marked, cut with …; kcs escapes, Algolia does not: values come back raw', async () => {
    const r = await de({ query: 'kapuze', highlightPreTag: PRE, highlightPostTag: POST, attributesToSnippet: ['description:8'] });
    assert.deepEqual(r.hits.map((h) => h.title), ['Regenjacke Nordkap']);
    const snippet = (r.hits[0] as any)._snippetResult.description;
    assert.equal(snippet.matchLevel, 'full');
    assert.match(snippet.value, new RegExp(`${PRE}Kapuze${POST}`));
    assert.match(snippet.value, /…/);
    assert.ok(snippet.value.split(/\s+/).length <= 14, snippet.value);
    assert.equal((r.hits[0]._highlightResult as any).description.matchLevel, 'full');

    const bottle = (await de({ query: 'trinkflasche aluminium', highlightPreTag: PRE, highlightPostTag: POST })).hits[0];
    assert.equal(bottle._highlightResult.title!.value, `${PRE}Trinkflasche${POST} Berg & Tal`);
    assert.equal(bottle._highlightResult.title!.matchLevel, 'partial');
    assert.equal((bottle as any)._snippetResult.description.value, `Auslaufsichere Flasche aus ${PRE}Aluminium${POST} <mit> Schraubverschluss.`);
  });
});

describe('facet value search: POST /search/facet-values', () => {
  test("searchForFacetValues: the values matching the typed prefix (of the value or a word in it, accents ignored), counted under the search's query and filters", async () => {
    sent = [];
    const [brands] = await client.searchForFacetValues([{ indexName: 'shop-de/sort/price_current:asc', params: { facetName: 'brand', facetQuery: 'scho', maxFacetHits: 5, query: '' } }]);
    assert.deepEqual(sent.map((s) => s.path), [`${K}/search/facet-values`]);
    assert.deepEqual(sent[0].body, { query: '', site_id: 'shop-de', facet: 'brand', facet_query: 'scho', max_values: 5 });
    assert.deepEqual(brands.facetHits, [{ value: 'Schöffel', count: 3, highlighted: '<em>Schö</em>ffel' }]);
    assert.equal(brands.exhaustiveFacetsCount, true);
    assert.equal(typeof brands.processingTimeMS, 'number');

    const [wolf] = await client.searchForFacetValues([{ indexName: 'shop-de', params: { facetName: 'brand', facetQuery: 'wolf', highlightPreTag: PRE, highlightPostTag: POST } }]);
    assert.deepEqual(wolf.facetHits, [{ value: 'Jack Wolfskin', count: 2, highlighted: `Jack ${PRE}Wolf${POST}skin` }]);

    sent = [];
    const { results } = await client.search([{
      type: 'facet', facet: 'attributes.farbe', indexName: 'shop-de',
      params: { facetQuery: 'r', query: 'jacke', facetFilters: [['category.lvl0:Damen']], highlightPreTag: PRE, highlightPostTag: POST },
    }]);
    assert.deepEqual(sent[0].body.filters, { category_path: 'Damen' });
    assert.deepEqual((results[0] as any).facetHits, [{ value: 'Rot', count: 2, highlighted: `${PRE}R${POST}ot` }]);

    const [levels] = await client.searchForFacetValues([{ indexName: 'shop-de', params: { facetName: 'category.lvl1', facetQuery: 'jack' } }]);
    assert.deepEqual(levels.facetHits.map((h) => `${h.value} ${h.count}`), ['Herren > Jacken 3', 'Damen > Jacken 2']);
    const [one] = await client.searchForFacetValues([{ indexName: 'shop-de', params: { facetName: 'attributes.groesse', facetQuery: '', maxFacetHits: 1 } }]);
    assert.deepEqual(one.facetHits.map((h) => h.value), ['L']);
  });
});

describe('batches: POST /search/multi', () => {
  test('a batch of 13 searches: two POST /search/multi (10 + 3), the results in order; a lone search goes to /search/products', async () => {
    sent = [];
    const requests = [
      ...byPrice.map((_, page) => ({ indexName: 'shop-de/sort/price_current:asc', params: { page, hitsPerPage: 1 } })),
      { indexName: 'shop', params: { query: 'drill', hitsPerPage: 0 } },
      { indexName: 'shop-de', params: { facets: ['attributes.farbe'], hitsPerPage: 0, facetFilters: ['attributes.farbe:Blau'] } },
      { indexName: 'shop-de', params: { facetFilters: [['brand:Vaude'], ['brand:Meindl']] } },
    ];
    const { results } = await client.search(requests);
    assert.deepEqual(sent.map((s) => [s.path, s.body.searches.length]), [[`${K}/search/multi`, 10], [`${K}/search/multi`, 2]], 'the impossible one is not sent');
    const r = results as SearchResult[];
    assert.deepEqual(r.slice(0, 10).map((x) => x.hits[0].title), byPrice);
    assert.deepEqual(r.slice(0, 10).map((x) => x.page), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(r[10].nbHits, PRODUCTS.filter((p) => p.title.includes('Drill')).length);
    assert.deepEqual(r[11].facets, { 'attributes.farbe': { Blau: 3 } });
    assert.deepEqual([r[12].nbHits, r[12].hits], [0, []]);

    sent = [];
    await client.search([{ indexName: 'shop-de', params: { query: 'jacke' } }, { type: 'facet', facet: 'brand', indexName: 'shop-de', params: { facetQuery: 'v' } }]);
    assert.deepEqual(sent.map((s) => s.path).sort(), [`${K}/search/facet-values`, `${K}/search/products`]);
  });
});
