// The SearchEngine contract: semantic and hybrid product search (filters, languages, selectivity,
// recall) and related products.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { fuseRanks } from '../../../src/search/engine.js';
import { DE_KEYS, EN_KEYS, axis, cosine, keysOf, productSearch, randomUnit, seeded, sorted } from '../fixtures.js';
import {
  A, C, engine, type TenantData, ranksOf, assertDescending, assertKeywordRanks, assertExactNearest, products, productKeys,
} from './fixtures.js';

export function semanticCases(): void {
  // ---- semantic and hybrid -----------------------------------------------------------------

  describe('semantic', () => {
    test('nearest first, semantic ranks only', async () => {
      const result = await products(A, { mode: 'semantic', vector: axis(0) });
      const found = keysOf(result.hits, A.cat.key);
      assert.deepEqual(found.slice(0, 2), ['lantern', 'tent']);
      result.hits.forEach((h, i) => assert.deepEqual(h.ranks, { keyword: null, semantic: i + 1 }));
      assertDescending(result.hits, 'semantic');
      assert.ok(result.hits[0].score > result.hits[1].score);
      assert.ok(found.every((k) => EN_KEYS.includes(k)), `only English products: ${found}`);
    });

    test('semanticLanguages restricts semantic ranking to the served languages', async () => {
      const en = keysOf((await products(A, { mode: 'semantic', vector: axis(0), semanticLanguages: ['en'] })).hits, A.cat.key);
      assert.ok(!en.includes('haus'), 'the German product with the same vector is left out');
      const de = keysOf((await products(A, { mode: 'semantic', vector: axis(0), semanticLanguages: ['de'] })).hits, A.cat.key);
      assert.equal(de[0], 'haus');
      assert.ok(de.every((k) => DE_KEYS.includes(k)), `only German products: ${de}`);
      const none = await products(A, { mode: 'semantic', vector: axis(0), semanticLanguages: [] });
      assert.deepEqual(none.hits, []);
      assert.equal(none.total, 0);
    });

    test('semantic search applies the filters', async () => {
      assert.equal((await productKeys(A, { mode: 'semantic', vector: axis(0), filters: { brand: ['acme'] } }))[0], 'tent');
      const footwear = await productKeys(A, { mode: 'semantic', vector: axis(3), filters: { category: 'Footwear' } });
      assert.deepEqual(footwear, ['shoes', 'laces']);
      const fleece = await productKeys(A, { mode: 'semantic', vector: axis(6), filters: { variantStrategy: 'children_only' } });
      assert.ok(!fleece.includes('hoodie'), 'the variant strategy applies');
    });

    test('semantic search with an exact-value filter (category, site, brand) still applies every other filter', async () => {
      const clothing = await productKeys(A, { mode: 'semantic', vector: axis(6), filters: { category: 'Clothing', inStock: true } });
      assert.deepEqual(sorted(clothing), ['hoodie', 'hoodie-s', 'jacket', 'socks'], 'in stock only (not hoodie-m, not vest)');
      const children = await productKeys(A, { mode: 'semantic', vector: axis(6), filters: { siteId: A.cat.sites.en, variantStrategy: 'children_only' } });
      assert.ok(!children.includes('hoodie'), `the variant strategy applies: ${children}`);
      const cheap = await productKeys(A, { mode: 'semantic', vector: axis(3), filters: { brand: ['acme', 'bolt', 'lumo'], priceMax: 20 } });
      assert.deepEqual(sorted(cheap), ['laces', 'socks']);
    });

    test('semantic search with an exact-value filter still honours semanticLanguages', async () => {
      const result = await products(A, { mode: 'semantic', vector: axis(0), semanticLanguages: ['en'], filters: { category: 'Garten' } });
      assert.deepEqual(keysOf(result.hits, A.cat.key), [], 'the German products are not ranked by an English-only model');
      const site = await products(A, { mode: 'semantic', vector: axis(0), semanticLanguages: ['en'], filters: { siteId: A.cat.sites.de } });
      assert.deepEqual(keysOf(site.hits, A.cat.key), []);
    });

    test('hybrid ranks keyword matches first, re-ordered a little by semantic rank, then semantic candidates; hits found by both carry both ranks', async () => {
      const request = { query: 'lantern', vector: axis(0) };
      const hybrid = await products(A, { ...request, mode: 'hybrid', limit: 10 });
      const found = keysOf(hybrid.hits, A.cat.key);
      assert.equal(found[0], 'lantern');
      assert.deepEqual(hybrid.hits[0].ranks, { keyword: 1, semantic: 1 });
      assert.deepEqual(hybrid.hits[1].ranks, { keyword: 2, semantic: 2 });
      assert.equal(found[1], 'tent');
      for (const h of hybrid.hits.slice(2)) assert.equal(h.ranks.keyword, null, 'only lantern and tent match the word');
      assertDescending(hybrid.hits, 'hybrid');

      const keyword = await products(A, { ...request, mode: 'keyword' });
      const semantic = await products(A, { ...request, mode: 'semantic' });
      const fused = fuseRanks({ ids: keyword.hits.map((h) => h.id), full: keyword.hits.length }, semantic.hits.map((h) => h.id)).slice(0, 10);
      assert.deepEqual(hybrid.hits.map((h) => h.id), fused.map((f) => f.id));
      assert.deepEqual(ranksOf(hybrid.hits), fused.map((f) => f.ranks));
      hybrid.hits.forEach((h, i) => assert.ok(Math.abs(h.score - fused[i].score) < 1e-9, `RRF score of hit ${i}`));
      assert.equal(hybrid.total, new Set([...keyword.hits, ...semantic.hits].map((h) => h.id)).size, 'total: keyword matches plus semantic candidates');
    });

    test('keyword mode ignores the vector; semantic mode without a vector runs as keyword', async () => {
      const keyword = await products(A, { query: 'lantern', mode: 'keyword', vector: axis(6) });
      assert.deepEqual(keysOf(keyword.hits, A.cat.key), ['lantern', 'tent']);
      assertKeywordRanks(keyword.hits);
      const noVector = await products(A, { query: 'lantern', mode: 'semantic', vector: null });
      assert.deepEqual(keysOf(noVector.hits, A.cat.key), ['lantern', 'tent']);
    });

    test('filtered vector search at 1% selectivity returns the exact nearest among the allowed documents', async () => {
      const rand = seeded(7);
      for (let round = 0; round < 3; round++) {
        const q = randomUnit(rand);
        const exact = (ids: string[]) => ids.map((id) => ({ id, score: cosine(q, C.vectors.get(id)!) }));
        const bySite = await engine.searchProducts(C.tenantId, productSearch({ mode: 'semantic', vector: q, limit: 10, filters: { siteId: C.small } }));
        assertExactNearest(bySite.hits.map((h) => h.id), exact(C.smallIds), 10);
        const byAttribute = await engine.searchProducts(C.tenantId, productSearch({ mode: 'semantic', vector: q, limit: 5, filters: { attributes: { edition: ['rare'] } } }));
        assertExactNearest(byAttribute.hits.map((h) => h.id), exact(C.rareIds), 5);
      }
    });

    test('unfiltered vector search finds at least 9 of the exact 10 nearest of 1,010', async () => {
      const rand = seeded(11);
      const all = [...C.vectors.keys()];
      let found = 0;
      const rounds = 5;
      for (let round = 0; round < rounds; round++) {
        const q = randomUnit(rand);
        const truth = new Set(all.map((id) => ({ id, s: cosine(q, C.vectors.get(id)!) })).sort((a, b) => b.s - a.s).slice(0, 10).map((x) => x.id));
        const hits = (await engine.searchProducts(C.tenantId, productSearch({ mode: 'semantic', vector: q, limit: 10 }))).hits;
        assert.equal(hits.length, 10);
        found += hits.filter((h) => truth.has(h.id)).length;
      }
      assert.ok(found / (rounds * 10) >= 0.9, `recall@10 ${found / (rounds * 10)}`);
    });
  });

  // ---- related products --------------------------------------------------------------------

  describe('relatedProducts', () => {
    const related = async (t: TenantData, key: string, over: Partial<{ limit: number; offset: number; variantStrategy: 'all' | 'children_only' | 'parents_only' }> = {}) =>
      engine.relatedProducts(t.tenantId, t.cat.id[key], { limit: 20, offset: 0, variantStrategy: 'all', ...over });
    const relatedKeys = async (...args: Parameters<typeof related>) => {
      const result = await related(...args);
      assert.ok(result, 'not null');
      return keysOf(result.hits, args[0].cat.key);
    };

    test('uses the similarity anchor when there is one; stays on the same site; semantic ranks', async () => {
      const result = await related(A, 'shoes');
      assert.ok(result);
      const found = keysOf(result.hits, A.cat.key);
      const others = found.filter((k) => k !== 'shoes');
      assert.equal(others[0], 'laces', `the anchor (axis 4) is nearest to the laces, not the description twin (socks): ${found}`);
      assert.ok(found.every((k) => EN_KEYS.includes(k)), `same site only: ${found}`);
      result.hits.forEach((h, i) => assert.deepEqual(h.ranks, { keyword: null, semantic: i + 1 }));
      assertDescending(result.hits, 'related');
    });

    test('never the product itself, never twice', async () => {
      for (const key of ['shoes', 'hoodie', 'vest', 'lantern']) {
        const found = await relatedKeys(A, key);
        assert.ok(!found.includes(key), `${key} is not related to itself: ${found}`);
        assert.equal(new Set(found).size, found.length, `no duplicates: ${found}`);
      }
    });

    test('the description vector stands in without an anchor', async () => {
      const found = (await relatedKeys(A, 'hoodie')).filter((k) => !k.startsWith('hoodie'));
      assert.equal(found[0], 'vest');
    });

    test("a product's own variants are excluded", async () => {
      const found = await relatedKeys(A, 'hoodie');
      assert.ok(!found.includes('hoodie-s') && !found.includes('hoodie-m'), `no own variants: ${found}`);
      assert.equal(found[0], 'vest');
    });

    test('the variant strategy applies to related products', async () => {
      assert.deepEqual(sorted((await relatedKeys(A, 'vest')).slice(0, 3)), ['hoodie', 'hoodie-m', 'hoodie-s']);
      const children = await relatedKeys(A, 'vest', { variantStrategy: 'children_only' });
      assert.deepEqual(sorted(children.slice(0, 2)), ['hoodie-m', 'hoodie-s']);
      assert.ok(!children.includes('hoodie'), `${children}`);
      const parents = await relatedKeys(A, 'vest', { variantStrategy: 'parents_only' });
      assert.equal(parents[0], 'hoodie');
      assert.ok(!parents.includes('hoodie-s') && !parents.includes('hoodie-m'), `${parents}`);
    });

    test('a German product relates to German products of its site only', async () => {
      const found = await relatedKeys(A, 'haus');
      assert.ok(found.includes('schuh'), `${found}`);
      assert.ok(found.every((k) => DE_KEYS.includes(k)), `${found}`);
    });

    test('paging; an unknown id is null', async () => {
      const two = await relatedKeys(A, 'vest', { limit: 2 });
      const second = await relatedKeys(A, 'vest', { limit: 1, offset: 1 });
      assert.deepEqual(second, two.slice(1, 2));
      assert.equal((await related(A, 'vest'))?.relatedBy, 'vectors');
      assert.equal(await engine.relatedProducts(A.tenantId, randomUUID(), { limit: 10, offset: 0, variantStrategy: 'all' }), null);
    });

    test('a product without vectors relates by keywords (title, brand, category), on its site, keyword ranks', async () => {
      const bike = await related(A, 'fahrrad');
      assert.ok(bike, 'a known product is never null');
      assert.equal(bike.relatedBy, 'keywords');
      assert.deepEqual(keysOf(bike.hits, A.cat.key), ['fussball'], 'the only other product of brand Kicker and category Sport');
      bike.hits.forEach((h, i) => assert.deepEqual(h.ranks, { keyword: i + 1, semantic: null }));
      const can = await related(A, 'giesskanne');
      assert.ok(can);
      const found = keysOf(can.hits, A.cat.key);
      assert.deepEqual(found, ['haus', 'taschenlampe'], 'brand Holzwerk and category Garten first, then category Garten alone');
      assert.equal(can.total, 2);
      assertDescending(can.hits, 'related by keywords');
      assert.deepEqual(keysOf((await related(A, 'giesskanne', { limit: 1, offset: 1 }))!.hits, A.cat.key), ['taschenlampe'], 'paging');
    });
  });
}
