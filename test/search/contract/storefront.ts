// The SearchEngine contract, the storefront page's cases: sorting (every field, both directions,
// missing values last, ties by relevance, tiers kept, pages), facets on attributes and category
// levels, facets_stats, the rating and category-path filters, and facet value search.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { ProductInput } from '../../../src/domain/products.js';
import type { SearchResult } from '../../../src/search/engine.js';
import { keysOf, productSearch, uniqueSlug, type ProductSearchOver } from '../fixtures.js';
import { domain, engine } from './fixtures.js';

interface ShopSpec {
  key: string;
  title: string;
  price?: string;
  rating?: string;
  category?: string;
  attributes?: Record<string, unknown>;
  brand?: string;
}

// German shop: "jacke" matches six products; the hose none. Prices and ratings tie on purpose.
const SHOP: ShopSpec[] = [
  { key: 'regen', title: 'Regenjacke Sturm', price: '89.90', rating: '4.5', category: 'Herren > Jacken > Regenjacken', attributes: { farbe: 'Rot', groesse: ['M', 'L'] }, brand: 'Nordkap' },
  { key: 'leicht', title: 'Leichte Jacke', price: '49.00', rating: '4.5', category: 'Herren > Jacken', attributes: { farbe: 'Blau', groesse: 'M' }, brand: 'Nordkap' },
  { key: 'winter', title: 'Winterjacke Polar', price: '149.00', rating: '3.9', category: 'Damen > Jacken > Winterjacken', attributes: { farbe: 'rot', groesse: 'S' }, brand: 'Fjell' },
  { key: 'billig', title: 'Jacke Basic', price: '19.99', category: 'Damen > Jacken', attributes: { farbe: 'Schwarz' }, brand: 'Fjell' },
  { key: 'ohne', title: 'Jacke ohne Preis', rating: '5', category: 'Herren', attributes: { farbe: 'Blau' }, brand: 'Adler' },
  { key: 'aermel', title: 'Ärmellose Jacke', price: '49.00', rating: '4.1', category: 'Herren > Westen', brand: 'Adler' },
  { key: 'hose', title: 'Wanderhose', price: '59.00', rating: '4.8', category: 'Herren > Hosen', attributes: { farbe: 'Rot' }, brand: 'Nordkap' },
  { key: 'schirm', title: 'Schirm Sturm', price: '5.00', category: 'Zubehör' },
];

export function storefrontCases(): void {
  describe('the storefront page: sort, facets on attributes and levels, stats, facet value search', () => {
    let tenantId = '';
    const names: Record<string, string> = {};
    const search = (over: ProductSearchOver) => engine.searchProducts(tenantId, productSearch({ language: 'de', ...over }));
    const keys = async (over: ProductSearchOver) => keysOf((await search(over)).hits, names);

    before(async () => {
      const tenant = await domain.services.tenants.create(uniqueSlug('cs'), 'storefront');
      tenantId = tenant.id;
      const site = await domain.services.sites.create(tenant.id, { slug: 'shop', name: 'Shop', language: 'de' });
      for (const [i, p] of SHOP.entries()) {
        const input = {
          title: p.title, language: 'de', external_id: p.key, price_current: p.price ?? null, rating_average: p.rating ?? null,
          category: p.category ?? null, attributes: p.attributes ?? {}, brand: p.brand ?? null,
        } as unknown as ProductInput;
        const written = await domain.services.products.upsert(tenant.id, { siteId: site.id, input, source: 'api' });
        names[written.id] = p.key;
        // created_at follows the order written; a moment apart.
        if (i < SHOP.length - 1) await new Promise((r) => setTimeout(r, 3));
      }
    });

    test('price ascending and descending: products without a price last either way; equal prices by relevance', async () => {
      // leicht and aermel cost the same: relevance decides, as in relevance order.
      const tie = (await keys({ query: 'jacke' })).filter((k) => k === 'leicht' || k === 'aermel');
      assert.deepEqual(await keys({ query: 'jacke', sort: [{ field: 'price_current', direction: 'asc' }] }), ['billig', ...tie, 'regen', 'winter', 'ohne']);
      assert.deepEqual(await keys({ query: 'jacke', sort: [{ field: 'price_current', direction: 'desc' }] }), ['winter', 'regen', ...tie, 'billig', 'ohne']);
      assert.deepEqual(await keys({ query: 'jacke', sort: [{ field: 'price_current', direction: 'desc' }, { field: 'relevance', direction: 'desc' }] }),
        ['winter', 'regen', ...tie, 'billig', 'ohne']);
    });

    test('rating, then price; title (folded: Ä as A); created and updated; browsing sorted (ties newest first)', async () => {
      assert.deepEqual(await keys({ query: 'jacke', sort: [{ field: 'rating_average', direction: 'desc' }, { field: 'price_current', direction: 'asc' }] }),
        ['ohne', 'leicht', 'regen', 'aermel', 'winter', 'billig']);
      assert.deepEqual(await keys({ query: 'jacke', sort: [{ field: 'title', direction: 'asc' }] }), ['aermel', 'billig', 'ohne', 'leicht', 'regen', 'winter']);
      assert.deepEqual(await keys({ sort: [{ field: 'created_at', direction: 'asc' }] }), SHOP.map((p) => p.key));
      assert.deepEqual(await keys({ sort: [{ field: 'updated_at', direction: 'desc' }] }), SHOP.map((p) => p.key).reverse());
      assert.deepEqual(await keys({ sort: [{ field: 'price_current', direction: 'asc' }], limit: 3 }), ['schirm', 'billig', 'aermel']);
    });

    test('pages of a sorted list are disjoint and add up to it; the total is that of relevance order', async () => {
      const sort = [{ field: 'price_current' as const, direction: 'asc' as const }];
      const whole = await keys({ query: 'jacke', sort });
      const pages = [...(await keys({ query: 'jacke', sort, limit: 2 })), ...(await keys({ query: 'jacke', sort, limit: 2, offset: 2 })), ...(await keys({ query: 'jacke', sort, limit: 2, offset: 4 }))];
      assert.deepEqual(pages, whole);
      assert.equal((await search({ query: 'jacke', sort })).total, (await search({ query: 'jacke' })).total);
    });

    test('sorting keeps the tiers: every word first, sorted; then the partial matches, sorted', async () => {
      // "sturm jacke": the storm jacket matches both words; the storm umbrella, cheaper, only the rarer one.
      assert.deepEqual(await keys({ query: 'sturm jacke' }), ['regen', 'schirm']);
      const sorted = await search({ query: 'sturm jacke', sort: [{ field: 'price_current', direction: 'asc' }] });
      assert.deepEqual(keysOf(sorted.hits, names), ['regen', 'schirm']);
      assert.equal(sorted.total, 2);
      assert.deepEqual(sorted.hits.map((h) => h.ranks.keyword), [1, 2]);
    });

    test('facets on attributes (values as written, case variants one value) and category levels', async () => {
      const r = await search({ query: 'jacke', facets: ['attributes.farbe', 'attributes.groesse', 'category.lvl0', 'category.lvl1', 'category.lvl2'] });
      const farbe = Object.fromEntries((r.facets['attributes.farbe'] ?? []).map((f) => [f.value.toLowerCase(), f.count]));
      assert.deepEqual(farbe, { rot: 2, blau: 2, schwarz: 1 });
      assert.deepEqual(counts(r, 'attributes.groesse'), { M: 2, L: 1, S: 1 });
      assert.deepEqual(counts(r, 'category.lvl0'), { Herren: 4, Damen: 2 });
      assert.deepEqual(counts(r, 'category.lvl1'), { 'Herren > Jacken': 2, 'Damen > Jacken': 2, 'Herren > Westen': 1 });
      assert.deepEqual(counts(r, 'category.lvl2'), { 'Herren > Jacken > Regenjacken': 1, 'Damen > Jacken > Winterjacken': 1 });
    });

    test('facets_stats: min, max, average over the matches that have the field', async () => {
      const r = await search({ query: 'jacke', facets: ['brand'], stats: ['price_current', 'rating_average'] });
      assert.deepEqual(r.facetsStats?.price_current, { min: 19.99, max: 149, avg: 71.38, count: 5 });
      assert.deepEqual(r.facetsStats?.rating_average, { min: 3.9, max: 5, avg: 4.4, count: 5 });
      const none = await search({ query: 'wanderhose', stats: ['price_current'], filters: { priceMax: 1 } });
      assert.deepEqual(none.facetsStats?.price_current, { min: null, max: null, avg: null, count: 0 });
    });

    test('rating and category path filters', async () => {
      assert.deepEqual((await keys({ query: 'jacke', filters: { ratingMin: 4.5 } })).sort(), ['leicht', 'ohne', 'regen']);
      assert.deepEqual((await keys({ query: 'jacke', filters: { ratingMin: 4, ratingMax: 4.4 } })).sort(), ['aermel']);
      assert.deepEqual((await keys({ filters: { categoryPath: 'herren > jacken' } })).sort(), ['leicht', 'regen']);
      assert.deepEqual((await keys({ filters: { categoryPath: 'herren' } })).sort(), ['aermel', 'hose', 'leicht', 'ohne', 'regen']);
      assert.deepEqual(await keys({ filters: { categoryPath: 'herren > jack' } }), [], 'a path matches whole levels');
    });

    test('limit 0: no hits, the total, facets and stats of the matches (a facet-only search), sorted or not', async () => {
      for (const sort of [undefined, [{ field: 'price_current' as const, direction: 'asc' as const }]]) {
        const r = await search({ query: 'jacke', limit: 0, facets: ['brand'], stats: ['price_current'], sort });
        assert.deepEqual(r.hits, []);
        assert.equal(r.total, 6);
        assert.deepEqual(counts(r, 'brand'), { Nordkap: 2, Fjell: 2, Adler: 2 });
        assert.equal(r.facetsStats?.price_current?.count, 5);
      }
      assert.equal((await search({ limit: 0 })).total, SHOP.length);
    });

    test('facet value search: values matching a prefix (of the value or a word of it, folded), counted under the query', async () => {
      const r = await search({ query: 'jacke', facets: ['brand'], facetPrefix: 'no', facetValues: 10 });
      assert.deepEqual(r.facets.brand, [{ value: 'Nordkap', count: 2 }]);
      const levels = await search({ facets: ['category.lvl1'], facetPrefix: 'jack', facetValues: 10 });
      assert.deepEqual(counts(levels, 'category.lvl1'), { 'Herren > Jacken': 2, 'Damen > Jacken': 2 });
    });
  });
}

const counts = (r: SearchResult, name: string) => Object.fromEntries((r.facets[name as keyof typeof r.facets] ?? []).map((f) => [f.value, f.count]));
