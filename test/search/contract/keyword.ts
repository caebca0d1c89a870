// The SearchEngine contract, first cases: the engine's start, keyword ranking, filters, facets and
// the variant strategy.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ProductInput } from '../../../src/domain/products.js';
import { PARTIAL_TIER_BELOW } from '../../../src/search/coverage.js';
import { DE_KEYS, EN_KEYS, keysOf, productSearch, sorted } from '../fixtures.js';
import {
  A, domain, engine, progress, readyBeforeStart, assertDescending, assertKeywordRanks, products, productKeys, browse,
} from './fixtures.js';

export function keywordCases(): void {
  // ---- start -------------------------------------------------------------------------------

  test('is not ready before start, ready after; progress ends with every tenant loaded', () => {
    assert.equal(readyBeforeStart, false);
    assert.equal(engine.ready, true);
    assert.ok(engine.name === 'builtin' || engine.name === 'redis-query-engine');
    if (progress.length > 0) {
      const last = progress[progress.length - 1];
      assert.equal(last.tenantsLoaded, last.tenants, JSON.stringify(last));
      assert.ok(last.tenants >= 3, JSON.stringify(last));
    }
  });

  // ---- keyword ranking ---------------------------------------------------------------------

  describe('keyword ranking', () => {
    test('an exact title match ranks above a description-only match', async () => {
      const result = await products(A, { query: 'lantern' });
      const found = keysOf(result.hits, A.cat.key);
      assert.deepEqual(found, ['lantern', 'tent']);
      assert.equal(result.total, 2);
      assertKeywordRanks(result.hits);
      assertDescending(result.hits, 'lantern');
      assert.ok(result.hits[0].score > result.hits[1].score, 'the title match scores strictly higher');
    });

    test('search_keywords synonyms find the product', async () => {
      assert.deepEqual(await productKeys(A, { query: 'anorak' }), ['jacket']);
      assert.deepEqual(await productKeys(A, { query: 'Windbreaker' }), ['jacket']);
    });

    test('German plural and umlaut variants: Häuser finds Haus, Schuhe and Schuh find each other', async () => {
      assert.equal((await productKeys(A, { query: 'Häuser' }))[0], 'haus');
      assert.equal((await productKeys(A, { query: 'Häuser', filters: { language: 'de' } }))[0], 'haus');
      assert.deepEqual(await productKeys(A, { query: 'HAUS' }), ['haus']);
      for (const query of ['Schuhe', 'Schuh', 'schuhen']) {
        const found = await productKeys(A, { query });
        assert.deepEqual(sorted(found.filter((k) => DE_KEYS.includes(k))), ['schuh', 'schuhe'], query);
      }
    });

    test('the typo budget is that of the typed word: "Häuser" (stem "haus") does not match "aus", "running" (stem "run") not "rug"', async () => {
      // "Gießkanne aus Zink": "aus" is one edit from the stem "haus" but three from "häuser"; a
      // four-letter stem gets no typo allowance of its own.
      assert.deepEqual(await productKeys(A, { query: 'Häuser' }), ['haus']);
      assert.deepEqual(await productKeys(A, { query: 'Häuser', filters: { language: 'de' } }), ['haus']);
      // English: "running" (7 letters, one edit) stems to "run", which must not match "rug".
      const rug = await domain.services.products.upsert(A.tenantId, { siteId: A.cat.sites.en, input: { title: 'Wool Rug', language: 'en' } as ProductInput, source: 'api' });
      try {
        assert.deepEqual(await productKeys(A, { query: 'running' }), ['shoes']);
      } finally {
        await domain.services.products.delete(A.tenantId, rug.id);
      }
    });

    test('ß and ss fold together', async () => {
      assert.deepEqual(await productKeys(A, { query: 'Giesskanne' }), ['giesskanne']);
      assert.deepEqual(await productKeys(A, { query: 'Gießkanne' }), ['giesskanne']);
      assert.deepEqual(await productKeys(A, { query: 'Fußball' }), ['fussball']);
      assert.deepEqual(await productKeys(A, { query: 'Fussball' }), ['fussball']);
    });

    test('typos: one edit from five letters, two from nine, none below five', async () => {
      assert.deepEqual((await productKeys(A, { query: 'lanturn' }))[0], 'lantern');
      assert.deepEqual(await productKeys(A, { query: 'Fahrad' }), ['fahrrad']);
      assert.deepEqual(await productKeys(A, { query: 'Taschenlmape' }), ['taschenlampe']);
      assert.deepEqual(await productKeys(A, { query: 'Tant' }), [], 'a four-letter word gets no typo allowance');
    });

    test('the last word matches as a prefix (search as you type)', async () => {
      assert.equal((await productKeys(A, { query: 'Camping Lant' }))[0], 'lantern');
      assert.deepEqual(sorted(await productKeys(A, { query: 'flee' })), ['hoodie', 'hoodie-m', 'hoodie-s', 'vest']);
      assert.deepEqual(await productKeys(A, { query: 'Gieß' }), ['giesskanne']);
    });

    test('the word being typed completes to names, not to words only a description holds', async () => {
      assert.deepEqual(await productKeys(A, { query: 'mudd' }), [], '"muddy" stands in a description only');
      assert.deepEqual(await productKeys(A, { query: 'muddy' }), ['shoes'], 'the whole word matches');
      assert.deepEqual(await productKeys(A, { query: 'Acm' }).then(sorted), sorted(await productKeys(A, { query: 'acme' })), 'brands complete');
      assert.deepEqual(await productKeys(A, { query: 'Cloth' }).then(sorted), ['hoodie', 'hoodie-m', 'hoodie-s', 'jacket', 'socks', 'vest'], 'categories complete');
      // Read as one compound, with its parts apart and the last one completing.
      for (const query of ['Taschen Lampe', 'Garten Taschen Lampe']) assert.equal((await productKeys(A, { query }))[0], 'taschenlampe', query);
    });

    test('a word the Query Engine\'s parser reads as its own ("ismissing") is a word like any other', async () => {
      assert.deepEqual(await productKeys(A, { query: 'ismissing' }), []);
      assert.equal((await productKeys(A, { query: 'Camping Lantern ismissing' }))[0], 'lantern');
    });

    test('a sku or gtin query puts that product first, within the filters', async () => {
      const bySku = await productKeys(A, { query: 'ACME-TR-001' });
      assert.equal(bySku[0], 'shoes');
      assert.ok(bySku.includes('laces'), 'a product mentioning the code in its text is still found');
      assert.equal((await productKeys(A, { query: 'acme-tr-001' }))[0], 'shoes', 'case-insensitive');
      assert.equal((await productKeys(A, { query: '4006381333931' }))[0], 'shoes');
      assert.deepEqual(await productKeys(A, { query: '4006381333931', filters: { siteId: A.cat.sites.de } }), [], 'the code does not bypass the filters');
    });

    test('every hit is a live product of the tenant; scores descend; browse without a query lists all', async () => {
      const all = await products(A, { query: '' });
      assert.deepEqual(sorted(keysOf(all.hits, A.cat.key)), sorted([...EN_KEYS, ...DE_KEYS]));
      assert.equal(all.total, EN_KEYS.length + DE_KEYS.length);
      assertKeywordRanks(all.hits);
      const fleece = await products(A, { query: 'fleece' });
      assertDescending(fleece.hits, 'fleece');
      assertKeywordRanks(fleece.hits);
    });

    test(`documents matching enough of the words follow only while fewer than ${PARTIAL_TIER_BELOW} match every word`, async () => {
      // "zephyr" is rare and "widget" common: a Zephyr gadget covers most of "zephyr widget" without matching it all.
      const tenant = await domain.services.tenants.create(`partial-${randomUUID().slice(0, 8)}`, 'partial tier');
      const site = await domain.services.sites.create(tenant.id, { slug: 'shop', name: 'Shop', language: 'en' });
      const write = (titles: string[]) => domain.services.products.upsertMany(tenant.id, titles.map((title) => ({ siteId: site.id, input: { title, language: 'en' } as ProductInput, source: 'api' })));
      const full = await write(Array.from({ length: PARTIAL_TIER_BELOW + 10 }, (_, i) => `Zephyr widget ${i}`));
      await write(Array.from({ length: 600 }, (_, i) => `Widget ${i}`));
      const [gadget] = await write(['Zephyr gadget']);
      const search = () => engine.searchProducts(tenant.id, productSearch({ query: 'zephyr widget', limit: 100, offset: 100, facets: ['brand'] }));
      const many = await search();
      assert.equal(many.total, PARTIAL_TIER_BELOW + 10, 'every word matched often enough: those alone');
      assert.ok(!many.hits.some((h) => h.id === gadget.id));
      for (const { id } of full.slice(0, 20)) await domain.services.products.delete(tenant.id, id);
      const few = await search();
      assert.equal(few.total, PARTIAL_TIER_BELOW - 10 + 1, 'fewer match every word: the partial match follows them');
      assert.deepEqual((await engine.searchProducts(tenant.id, productSearch({ query: 'zephyr widget', limit: 1, offset: PARTIAL_TIER_BELOW - 10 }))).hits.map((h) => h.id), [gadget.id]);
    });
  });

  // ---- filters and facets ------------------------------------------------------------------

  describe('filters', () => {
    test('site and language', async () => {
      assert.deepEqual(await browse({ siteId: A.cat.sites.en }), sorted(EN_KEYS));
      assert.deepEqual(await browse({ siteId: A.cat.sites.de }), sorted(DE_KEYS));
      assert.deepEqual(await browse({ language: 'de' }), sorted(DE_KEYS));
      assert.deepEqual(await browse({ language: 'en' }), sorted(EN_KEYS));
      assert.deepEqual(await browse({ siteId: A.cat.sites.en, language: 'de' }), []);
      assert.deepEqual(await browse({ siteId: randomUUID() }), []);
    });

    test('category (case-insensitive)', async () => {
      assert.deepEqual(await browse({ category: 'footwear' }), ['laces', 'shoes']);
      assert.deepEqual(await browse({ category: 'Garten' }), ['giesskanne', 'haus', 'taschenlampe']);
      assert.deepEqual(await browse({ category: 'nothing' }), []);
    });

    test('brand list: any of them, case-insensitive', async () => {
      assert.deepEqual(await browse({ brand: ['acme', 'BOLT'] }), sorted(['tent', 'jacket', 'shoes', 'laces', 'hoodie', 'hoodie-s', 'hoodie-m', 'vest']));
      assert.deepEqual(await browse({ brand: ['Läufer'] }), ['schuh', 'schuhe']);
    });

    test('availability list', async () => {
      assert.deepEqual(await browse({ availability: ['outofstock'] }), ['hoodie-m', 'schuhe', 'tent']);
      assert.deepEqual(await browse({ availability: ['InStock', 'lieferbar'] }), ['haus', 'hoodie', 'hoodie-s', 'jacket', 'lantern', 'schuh', 'socks']);
    });

    test('price range (inclusive; products without a price never match)', async () => {
      assert.deepEqual(await browse({ priceMin: 50, priceMax: 100 }), ['hoodie', 'hoodie-m', 'hoodie-s', 'jacket', 'shoes']);
      assert.deepEqual(await browse({ priceMin: 499 }), ['haus']);
      assert.deepEqual(await browse({ priceMax: 4.5 }), ['laces']);
      assert.deepEqual(await browse({ priceMin: 0 }), sorted(['lantern', 'tent', 'jacket', 'shoes', 'laces', 'socks', 'hoodie', 'hoodie-s', 'hoodie-m', 'haus', 'schuh']));
    });

    test('in stock', async () => {
      assert.deepEqual(await browse({ inStock: true }), sorted(['lantern', 'jacket', 'shoes', 'laces', 'socks', 'hoodie', 'hoodie-s', 'haus', 'schuh']));
      assert.deepEqual(await browse({ inStock: false }), sorted(['tent', 'hoodie-m', 'vest', 'schuhe', 'giesskanne', 'fussball', 'fahrrad', 'taschenlampe']));
    });

    test('attributes: any listed value of each attribute, every attribute, case-insensitive', async () => {
      assert.deepEqual(await browse({ attributes: { color: ['RED'] } }), ['jacket', 'shoes']);
      assert.deepEqual(await browse({ attributes: { color: ['grey'] } }), ['socks', 'tent'], 'a list-valued attribute matches any element');
      assert.deepEqual(await browse({ attributes: { size: ['s', 'm'] } }), ['hoodie-m', 'hoodie-s', 'jacket']);
      assert.deepEqual(await browse({ attributes: { color: ['red'], size: ['m'] } }), ['jacket']);
      assert.deepEqual(await browse({ attributes: { material: ['wool'] } }), []);
    });

    test('filters combine with a query', async () => {
      assert.deepEqual(sorted(await productKeys(A, { query: 'fleece', filters: { siteId: A.cat.sites.en, brand: ['Acme'], inStock: true } })), ['hoodie', 'hoodie-s']);
      assert.deepEqual(await productKeys(A, { query: 'lantern', filters: { brand: ['acme'] } }), ['tent']);
    });
  });

  describe('facets', () => {
    const byValue = (list: { value: string; count: number }[] | undefined) => [...(list ?? [])].sort((a, b) => a.value.localeCompare(b.value));
    const assertCountsDescend = (list: { count: number }[] | undefined) => {
      for (let i = 1; i < (list ?? []).length; i++) assert.ok(list![i - 1].count >= list![i].count, 'facet values by count, most first');
    };

    test('brand, category and availability counts over every match, not only the page', async () => {
      const result = await products(A, { filters: { siteId: A.cat.sites.en }, facets: ['brand', 'category', 'availability'], limit: 1 });
      assert.equal(result.hits.length, 1);
      assert.equal(result.total, EN_KEYS.length);
      assert.deepEqual(byValue(result.facets.brand), [{ value: 'Acme', count: 6 }, { value: 'Bolt', count: 2 }, { value: 'Lumo', count: 2 }]);
      assert.deepEqual(byValue(result.facets.category), [
        { value: 'Clothing', count: 6 }, { value: 'Footwear', count: 2 }, { value: 'Lighting', count: 1 }, { value: 'Tents', count: 1 },
      ]);
      assert.deepEqual(byValue(result.facets.availability), [
        { value: 'https://schema.org/InStock', count: 1 }, { value: 'InStock', count: 5 }, { value: 'LimitedAvailability', count: 1 }, { value: 'OutOfStock', count: 2 },
      ]);
      for (const name of ['brand', 'category', 'availability'] as const) assertCountsDescend(result.facets[name]);
    });

    test('only the facets asked for; counts follow the query and filters', async () => {
      const none = await products(A, { query: 'fleece' });
      assert.deepEqual(none.facets, {});
      const fleece = await products(A, { query: 'fleece', facets: ['brand'] });
      assert.deepEqual(Object.keys(fleece.facets), ['brand']);
      assert.deepEqual(byValue(fleece.facets.brand), [{ value: 'Acme', count: 3 }, { value: 'Bolt', count: 1 }]);
      const filtered = await products(A, { query: 'fleece', facets: ['availability'], filters: { brand: ['acme'] } });
      assert.deepEqual(byValue(filtered.facets.availability), [{ value: 'InStock', count: 2 }, { value: 'OutOfStock', count: 1 }]);
    });

    test('exact up to the bound; beyond it counted over a sample, scaled to every match, and said so', async () => {
      const search = { filters: { siteId: A.cat.sites.en }, facets: ['brand', 'category'] as ('brand' | 'category')[], limit: 1 };
      const exact = await products(A, { ...search, facetExactLimit: EN_KEYS.length });
      assert.equal(exact.facetsExhaustive ?? true, true);
      assert.deepEqual(byValue(exact.facets.brand), [{ value: 'Acme', count: 6 }, { value: 'Bolt', count: 2 }, { value: 'Lumo', count: 2 }]);
      const sampled = await products(A, { ...search, facetExactLimit: 4 });
      assert.equal(sampled.facetsExhaustive, false);
      assert.equal(sampled.total, EN_KEYS.length, 'the total stays exact');
      for (const name of ['brand', 'category'] as const) {
        const list = sampled.facets[name] ?? [];
        assert.ok(list.length > 0 && list.length <= exact.facets[name]!.length, `${name}: values of the sample`);
        const known = new Set(exact.facets[name]!.map((f) => f.value));
        for (const { value, count } of list) {
          assert.ok(known.has(value), `${name}: ${value} is a value of the matches`);
          assert.ok(count >= 1 && count <= EN_KEYS.length, `${name}: ${value} scaled to the matches (${count})`);
        }
        assertCountsDescend(list);
      }
      // Four of the matches, scaled by matches ÷ 4: the counts add up to about every match.
      const sum = (sampled.facets.brand ?? []).reduce((n, f) => n + f.count, 0);
      assert.ok(Math.abs(sum - EN_KEYS.length) <= 3, `brand counts sum to about ${EN_KEYS.length} (${sum})`);
      const query = await products(A, { query: 'fleece', facets: ['brand'], facetExactLimit: 1 });
      assert.equal(query.facetsExhaustive, false, 'a query with more matches than the bound');
    });
  });

  describe('variant strategy', () => {
    test('all, children_only (no parents), parents_only (no variants)', async () => {
      const fleece = async (variantStrategy: 'all' | 'children_only' | 'parents_only') =>
        sorted(await productKeys(A, { query: 'fleece', filters: { variantStrategy } }));
      assert.deepEqual(await fleece('all'), ['hoodie', 'hoodie-m', 'hoodie-s', 'vest']);
      assert.deepEqual(await fleece('children_only'), ['hoodie-m', 'hoodie-s', 'vest']);
      assert.deepEqual(await fleece('parents_only'), ['hoodie', 'vest']);
      const counted = await products(A, { query: 'fleece', filters: { variantStrategy: 'children_only' }, facets: ['brand'] });
      assert.equal(counted.total, 3);
      assert.deepEqual(counted.facets.brand?.find((f) => f.value === 'Acme')?.count, 2, 'facets count what the strategy shows');
    });
  });
}
