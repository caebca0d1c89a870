// The SearchEngine contract: one suite over the port (src/search/engine.ts), run against every
// engine. Data is written through the real domain services (ProductService, KnowledgeService) on a
// real Redis, vectors through VectorRepository.store (the embed worker's path, for the stored
// thash), then the engine under test is built, started, and asked through the port only.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { ProductInput } from '../../src/domain/products.js';
import { createLogger, type Logger } from '../../src/log.js';
import { fuseRanks, type EngineProgress, type Hit, type SearchEngine, type SearchResult } from '../../src/search/engine.js';
import type { EngineKind } from '../../src/search/index.js';
import { connectRedis, type Store } from '../../src/store/redis.js';
import {
  ALL_VISIBILITY, DE_KEYS, DIM, EN_KEYS, MODEL, VISIBLE_UNDER,
  access, axis, caller, cosine, keysOf, knowledgeSearch, openDomain, productSearch, randomUnit, seeded, sorted, storeVectors, uniqueSlug,
  within, writeCatalogue, writeKnowledge,
  type Catalogue, type Domain, type KnowledgeBase, type KnowledgeSearchOver, type PrivateRedis, type ProductSearchOver,
} from './fixtures.js';

export interface EngineTarget {
  /** Shown in the suite's name. */
  name: string;
  /** The Redis the documents are written to and the engine runs against. */
  redis(): Promise<PrivateRedis>;
  /** A new, unstarted engine on this connection, searching vectors of model MODEL (dimension DIM). */
  create(redis: Store, log: Logger, options: { modelId: string; dimension: number }): Promise<SearchEngine> | SearchEngine;
  /** The engine documents are written for (their search fields, a new tenant's indexes). */
  kind: EngineKind;
}

/** How long another process may take to see a write (DESIGN: within 1 s; slack for a loaded 2-core machine). */
const OTHER_PROCESS_MS = 1500;

interface TenantData {
  tenantId: string;
  ownerId: string;
  cat: Catalogue;
  kb: KnowledgeBase;
}

const ranksOf = (hits: Hit[]) => hits.map((h) => h.ranks);

/** Scores best first (ties allowed). */
function assertDescending(hits: Hit[], what: string): void {
  for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score, `${what}: scores descend at ${i}: ${hits[i - 1].score} < ${hits[i].score}`);
}

/** Keyword-only hits: ranks 1..n (after the offset), no semantic rank. */
function assertKeywordRanks(hits: Hit[], offset = 0): void {
  hits.forEach((h, i) => assert.deepEqual(h.ranks, { keyword: offset + i + 1, semantic: null }, `hit ${i}`));
}

/** `actual` is the exact nearest-first order of `expected` (ids with their exact cosine), allowing swaps of near-ties. */
function assertExactNearest(actual: string[], expected: { id: string; score: number }[], k: number, eps = 2e-3): void {
  const want = [...expected].sort((a, b) => b.score - a.score).slice(0, k);
  assert.equal(actual.length, want.length, `${want.length} hits`);
  const scoreOf = new Map(expected.map((e) => [e.id, e.score]));
  actual.forEach((id, i) => {
    assert.ok(scoreOf.has(id), `hit ${i} (${id}) is one of the allowed documents`);
    assert.ok(Math.abs(scoreOf.get(id)! - want[i].score) <= eps, `hit ${i}: cosine ${scoreOf.get(id)} where the exact ${i + 1}. nearest has ${want[i].score}`);
  });
  assert.equal(new Set(actual).size, actual.length, 'no duplicates');
}

export function searchEngineContract(target: EngineTarget): void {
  describe(`SearchEngine contract: ${target.name}`, () => {
    const log = createLogger('silent', 'search-contract');
    let backend: PrivateRedis;
    /** Writes answered by "this process": the services call the engine's refresh. */
    let domain: Domain;
    /** Writes of "another process": no refresh, the engine hears of them through the change streams. */
    let other: Domain;
    let engineRedis: Store;
    let engine: SearchEngine;
    let engineRef: SearchEngine | null = null;
    let readyBeforeStart: boolean;
    const progress: EngineProgress[] = [];
    let A: TenantData;
    let B: TenantData;
    /** Selectivity tenant: 1000 products on a big site, 10 on a small one, 10 of the big site "rare". */
    let C: { tenantId: string; small: string; vectors: Map<string, Float32Array>; smallIds: string[]; rareIds: string[] };

    const tenantData = async (prefix: string): Promise<TenantData> => {
      const tenant = await domain.services.tenants.create(uniqueSlug(prefix), prefix);
      const owner = await domain.services.users.create(tenant.id, `owner@${tenant.slug}.test`, 'Owner');
      const cat = await writeCatalogue(domain, tenant.id);
      const kb = await writeKnowledge(domain, tenant.id, owner.id);
      return { tenantId: tenant.id, ownerId: owner.id, cat, kb };
    };

    before(async () => {
      backend = await target.redis();
      domain = await openDomain(backend.url, (tenantId, changed) => engineRef?.refresh(tenantId, changed) ?? Promise.resolve(), target.kind);
      other = await openDomain(backend.url, undefined, target.kind);
      A = await tenantData('ca');
      B = await tenantData('cb');

      const tenant = await domain.services.tenants.create(uniqueSlug('cc'), 'selectivity');
      const big = await domain.services.sites.create(tenant.id, { slug: 'big', name: 'Big', language: 'en' });
      const small = await domain.services.sites.create(tenant.id, { slug: 'small', name: 'Small', language: 'en' });
      const rand = seeded(42);
      const requests = Array.from({ length: 1010 }, (_, i) => {
        const inSmall = i >= 1000;
        const rare = !inSmall && i % 100 === 7;
        const input = { title: `Item number ${i}`, language: 'en', external_id: `item-${i}`, attributes: { edition: rare ? 'rare' : 'common' } } as ProductInput;
        return { siteId: inSmall ? small.id : big.id, input, source: 'api' };
      });
      const ids: string[] = [];
      for (let i = 0; i < requests.length; i += 250) ids.push(...(await other.services.products.upsertMany(tenant.id, requests.slice(i, i + 250))).map((o) => o.id));
      const vectors = new Map<string, Float32Array>();
      await Promise.all(ids.map((id) => {
        const v = randomUnit(rand);
        vectors.set(id, v);
        return storeVectors(other.redis, tenant.id, 'product', id, { description: v });
      }));
      C = {
        tenantId: tenant.id, small: small.id, vectors,
        smallIds: ids.slice(1000),
        rareIds: ids.filter((_, i) => i < 1000 && i % 100 === 7),
      };

      engineRedis = connectRedis(backend.url);
      await engineRedis.connect();
      engine = await target.create(engineRedis, log, { modelId: MODEL, dimension: DIM });
      readyBeforeStart = engine.ready;
      await engine.start((p) => progress.push({ ...p }));
      engineRef = engine;
    });

    after(async () => {
      engineRef = null;
      await engine?.close();
      engineRedis?.disconnect();
      domain?.close();
      other?.close();
      await backend?.stop();
    });

    const products = (t: TenantData, search: ProductSearchOver) => engine.searchProducts(t.tenantId, productSearch(search));
    const productKeys = async (t: TenantData, search: ProductSearchOver) => keysOf((await products(t, search)).hits, t.cat.key);
    const browse = async (filters: ProductSearchOver['filters']) => sorted(await productKeys(A, { filters }));
    const entries = (t: TenantData, search: KnowledgeSearchOver) => engine.searchKnowledge(t.tenantId, knowledgeSearch(search));
    const entryKeys = async (t: TenantData, search: KnowledgeSearchOver) => keysOf((await entries(t, search)).hits, t.kb.key);

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

      test('hybrid fuses both lists by reciprocal rank; hits found by both carry both ranks', async () => {
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
        const fused = fuseRanks(keyword.hits.map((h) => h.id), semantic.hits.map((h) => h.id)).slice(0, 10);
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

      test('paging; a product without vectors has no related products; an unknown id is null', async () => {
        const two = await relatedKeys(A, 'vest', { limit: 2 });
        const second = await relatedKeys(A, 'vest', { limit: 1, offset: 1 });
        assert.deepEqual(second, two.slice(1, 2));
        const unembedded = await related(A, 'fahrrad');
        assert.ok(unembedded, 'a known product is never null');
        assert.deepEqual(unembedded.hits, []);
        assert.equal(await engine.relatedProducts(A.tenantId, randomUUID(), { limit: 10, offset: 0, variantStrategy: 'all' }), null);
      });
    });

    // ---- knowledge ---------------------------------------------------------------------------

    describe('knowledge search and the read rules', () => {
      const policy = async (userId: string, visibilities: readonly string[], includeExpired = false, query = 'policy') =>
        sorted(await entryKeys(A, { query, filters: { access: access(userId, visibilities, includeExpired) } }));

      test('the ceiling (visibilities), own personal entries only, expired memories hidden', async () => {
        const owner = A.kb.owner;
        assert.deepEqual(await policy(owner, VISIBLE_UNDER.public), ['fresh', 'glossary', 'mine', 'public']);
        assert.deepEqual(await policy(owner, VISIBLE_UNDER.community), ['community', 'fresh', 'glossary', 'mine', 'public']);
        assert.deepEqual(await policy(owner, VISIBLE_UNDER.internal), ['community', 'fresh', 'glossary', 'internal', 'mine', 'public', 'workspace']);
        assert.deepEqual(await policy(owner, VISIBLE_UNDER.restricted), ['community', 'fresh', 'glossary', 'internal', 'mine', 'public', 'restricted', 'workspace']);
        assert.deepEqual(await policy(owner, VISIBLE_UNDER.restricted, true), ['community', 'expired', 'fresh', 'glossary', 'internal', 'mine', 'public', 'restricted', 'workspace']);
        assert.deepEqual(await policy(A.kb.other, VISIBLE_UNDER.public), ['fresh', 'glossary', 'public', 'theirs']);
        assert.deepEqual(await policy(randomUUID(), VISIBLE_UNDER.restricted, true), ['community', 'expired', 'fresh', 'glossary', 'internal', 'public', 'restricted', 'workspace'], 'a stranger: no personal entries at all');
      });

      test('the same rules when browsing without a query', async () => {
        assert.deepEqual(await policy(A.kb.owner, VISIBLE_UNDER.public, false, ''), ['fresh', 'glossary', 'mine', 'public']);
        const all = await entries(A, { filters: { access: access(A.kb.other, VISIBLE_UNDER.restricted, true) } });
        assert.equal(all.total, 10 - 1);
        assertKeywordRanks(all.hits);
      });

      test('expiry is judged against access.now', async () => {
        const later = { ...access(A.kb.owner, VISIBLE_UNDER.public), now: Date.now() + 2 * 86_400_000 };
        assert.ok(!keysOf((await entries(A, { query: 'policy', filters: { access: later } })).hits, A.kb.key).includes('fresh'));
        const earlier = { ...access(A.kb.owner, VISIBLE_UNDER.public), now: Date.parse('2000-01-01T00:00:00Z') };
        assert.ok(keysOf((await entries(A, { query: 'policy', filters: { access: earlier } })).hits, A.kb.key).includes('expired'));
      });

      test('list filters: type, category, project, visibility, layer, tags, language', async () => {
        const everything = access(A.kb.owner, VISIBLE_UNDER.restricted, true);
        const f = async (filters: Record<string, unknown>, who = everything) => sorted(await entryKeys(A, { query: 'policy', filters: { access: who, ...filters } }));
        assert.deepEqual(await f({ type: 'memory' }), ['expired', 'fresh']);
        assert.deepEqual(await f({ type: 'memory' }, access(A.kb.owner, VISIBLE_UNDER.restricted)), ['fresh']);
        assert.deepEqual(await f({ categoryId: A.kb.categories.glossary }), ['glossary']);
        assert.deepEqual(await f({ projectId: A.kb.projectId }), ['glossary']);
        assert.deepEqual(await f({ visibility: 'internal' }), ['internal']);
        assert.deepEqual(await f({ visibility: 'personal' }), ['mine']);
        assert.deepEqual(await f({ visibility: 'restricted' }, access(A.kb.owner, VISIBLE_UNDER.internal)), [], 'a visibility filter never lifts the ceiling');
        assert.deepEqual(await f({ layer: 'core' }), ['glossary']);
        assert.deepEqual(await f({ tags: ['nope', 'terms'] }), ['glossary']);
        assert.deepEqual(await f({ language: 'de' }), ['glossary']);
      });

      test('semantic knowledge search: nearest readable entries only', async () => {
        const result = await entries(A, { mode: 'semantic', vector: axis(8), filters: { access: access(A.kb.owner, VISIBLE_UNDER.public) } });
        const found = keysOf(result.hits, A.kb.key);
        assert.equal(found[0], 'public');
        assert.equal(found[1], 'mine');
        for (const hidden of ['restricted', 'theirs', 'expired', 'community', 'internal']) assert.ok(!found.includes(hidden), `${hidden} is not readable`);
        result.hits.forEach((h, i) => assert.deepEqual(h.ranks, { keyword: null, semantic: i + 1 }));
      });

      test('semantic knowledge search applies the list filters', async () => {
        const who = access(A.kb.owner, VISIBLE_UNDER.restricted);
        const memories = await entryKeys(A, { mode: 'semantic', vector: axis(8), filters: { access: who, type: 'memory' } });
        assert.deepEqual(memories, ['fresh'], 'memories only, and not the expired one');
        // The glossary entry is German: semantic ranking needs a model that serves de.
        const glossary = await entryKeys(A, { mode: 'semantic', vector: axis(8), semanticLanguages: ['en', 'de'], filters: { access: who, tags: ['faq'], categoryId: A.kb.categories.glossary } });
        assert.deepEqual(glossary, ['glossary']);
        const englishOnly = await entryKeys(A, { mode: 'semantic', vector: axis(8), filters: { access: who, tags: ['faq'], categoryId: A.kb.categories.glossary } });
        assert.deepEqual(englishOnly, [], 'a German entry is not ranked by an English-only model');
        const internal = await entryKeys(A, { mode: 'semantic', vector: axis(8), filters: { access: who, visibility: 'internal', language: 'de' } });
        assert.deepEqual(internal, []);
      });

      test('hybrid knowledge search carries both ranks', async () => {
        const result = await entries(A, { query: 'returns', mode: 'hybrid', vector: axis(8), filters: { access: access(A.kb.owner, VISIBLE_UNDER.public) } });
        assert.equal(keysOf(result.hits, A.kb.key)[0], 'public');
        assert.deepEqual(result.hits[0].ranks, { keyword: 1, semantic: 1 });
      });

      test('paging and total (equal scores page consistently)', async () => {
        const who = access(A.kb.owner, VISIBLE_UNDER.restricted, true);
        const full = await entries(A, { query: 'policy', filters: { access: who } });
        assert.equal(full.total, 9);
        const pages: string[] = [];
        for (let offset = 0; offset < 9; offset += 4) {
          const page = await entries(A, { query: 'policy', limit: 4, offset, filters: { access: who } });
          assert.equal(page.total, 9, `total on the page at ${offset}`);
          assertKeywordRanks(page.hits, offset);
          pages.push(...page.hits.map((h) => h.id));
        }
        assert.deepEqual(pages, full.hits.map((h) => h.id));
        const beyond = await entries(A, { query: 'policy', limit: 4, offset: 20, filters: { access: who } });
        assert.deepEqual(beyond.hits, []);
        assert.equal(beyond.total, 9);
      });
    });

    describe('relatedEntries', () => {
      const related = (entryKey: string, userId: string, visibilities: readonly string[], includeExpired = false, t: TenantData = A) =>
        engine.relatedEntries(t.tenantId, t.kb.id[entryKey], { limit: 20, offset: 0, access: access(userId, visibilities, includeExpired) });

      test('nearest readable entries, never the origin, never unreadable ones', async () => {
        const low = await related('public', A.kb.owner, VISIBLE_UNDER.public);
        assert.ok(low);
        const lowKeys = keysOf(low.hits, A.kb.key);
        assert.equal(lowKeys[0], 'mine');
        for (const hidden of ['public', 'restricted', 'theirs', 'expired', 'community', 'internal', 'workspace']) assert.ok(!lowKeys.includes(hidden), `${hidden}: ${lowKeys}`);
        const high = await related('public', A.kb.owner, VISIBLE_UNDER.restricted);
        assert.deepEqual(keysOf(high!.hits, A.kb.key).slice(0, 4), ['restricted', 'community', 'internal', 'mine']);
        const withExpired = await related('public', A.kb.owner, VISIBLE_UNDER.public, true);
        assert.ok(keysOf(withExpired!.hits, A.kb.key).includes('expired'));
      });

      test('null for an origin the reader may not read, an expired one, or an unknown one', async () => {
        assert.equal(await related('theirs', A.kb.owner, VISIBLE_UNDER.restricted), null);
        assert.equal(await related('restricted', A.kb.owner, VISIBLE_UNDER.internal), null);
        assert.equal(await related('expired', A.kb.owner, VISIBLE_UNDER.public), null);
        assert.ok(await related('expired', A.kb.owner, VISIBLE_UNDER.public, true));
        assert.ok(await related('theirs', A.kb.other, VISIBLE_UNDER.public), 'its owner may');
        assert.equal(await engine.relatedEntries(A.tenantId, randomUUID(), { limit: 10, offset: 0, access: access(A.kb.owner, VISIBLE_UNDER.restricted) }), null);
      });
    });

    // ---- read-your-writes --------------------------------------------------------------------

    describe('refresh and the change streams', () => {
      const enSite = () => A.cat.sites.en;
      const findsProduct = async (query: string, id: string) => (await products(A, { query })).hits.some((h) => h.id === id);

      test('a write refreshed through the hook is found at once; an update and a delete too', async () => {
        const { id } = await domain.services.products.upsert(A.tenantId, { siteId: enSite(), input: { title: 'Kayak Paddle', language: 'en', external_id: 'paddle' } as ProductInput, source: 'api' });
        assert.ok(await findsProduct('kayak', id), 'found right after the write');
        await domain.services.products.upsert(A.tenantId, { siteId: enSite(), input: { title: 'Canoe Oar', language: 'en', external_id: 'paddle' } as ProductInput, source: 'api' });
        assert.ok(!(await findsProduct('kayak', id)), 'the old title is gone');
        assert.ok(await findsProduct('canoe', id), 'the new title is found');
        await domain.services.products.delete(A.tenantId, id);
        assert.ok(!(await findsProduct('canoe', id)), 'gone right after the delete');
        assert.equal(await engine.relatedProducts(A.tenantId, id, { limit: 5, offset: 0, variantStrategy: 'all' }), null);
      });

      test('refresh() makes a write of this process visible before it returns', async () => {
        const { id } = await other.services.products.upsert(A.tenantId, { siteId: enSite(), input: { title: 'Snorkel Mask', language: 'en' } as ProductInput, source: 'api' });
        await engine.refresh(A.tenantId, [{ kind: 'product', id }]);
        assert.ok(await findsProduct('snorkel', id));
        await storeVectors(other.redis, A.tenantId, 'product', id, { description: axis(5) });
        await engine.refresh(A.tenantId, [{ kind: 'product', id }]);
        assert.equal((await products(A, { mode: 'semantic', vector: axis(5), limit: 1 })).hits[0]?.id, id, 'its new vector is searched');
        await other.services.products.delete(A.tenantId, id);
        await engine.refresh(A.tenantId, [{ kind: 'product', id }]);
        assert.ok(!(await findsProduct('snorkel', id)));
        assert.ok(!(await products(A, { mode: 'semantic', vector: axis(5) })).hits.some((h) => h.id === id), 'its vector is gone too');
        await engine.refresh(A.tenantId, [{ kind: 'product', id: randomUUID() }, { kind: 'entry', id: randomUUID() }]);
      });

      test('knowledge writes: create, update and delete are visible at once', async () => {
        const who = caller(A.kb.owner, ALL_VISIBILITY);
        const reader = access(A.kb.owner, VISIBLE_UNDER.restricted);
        const find = async (query: string) => keysOf((await entries(A, { query, filters: { access: reader } })).hits, {});
        const created = await domain.services.knowledge.create(A.tenantId, who, { title: 'Warranty claims', content: 'Send the receipt.', category_id: A.kb.categories.main, visibility: 'internal', language: 'en' } as never, false);
        assert.deepEqual(await find('warranty'), [created.id]);
        await domain.services.knowledge.update(A.tenantId, who, created.id, { content: 'Attach a photograph.' } as never, null);
        assert.deepEqual(await find('photograph'), [created.id]);
        assert.deepEqual(await find('receipt'), []);
        await domain.services.knowledge.update(A.tenantId, who, created.id, { visibility: 'restricted' } as never, null);
        assert.deepEqual(keysOf((await entries(A, { query: 'warranty', filters: { access: access(A.kb.owner, VISIBLE_UNDER.internal) } })).hits, {}), [], 'a raised visibility hides it at once');
        await domain.services.knowledge.delete(A.tenantId, who, created.id, null);
        assert.deepEqual(await find('warranty'), []);
      });

      test(`writes of another process (no refresh) are found within ${OTHER_PROCESS_MS} ms, deletes gone as fast`, async (t) => {
        const { id } = await other.services.products.upsert(A.tenantId, { siteId: enSite(), input: { title: 'Trekking Poles', language: 'en' } as ProductInput, source: 'api' });
        const seen = await within(OTHER_PROCESS_MS, 'the other process\'s write', () => findsProduct('trekking', id));
        await storeVectors(other.redis, A.tenantId, 'product', id, { description: unitTail() });
        const embedded = await within(OTHER_PROCESS_MS, 'the worker\'s vectors', async () => (await products(A, { mode: 'semantic', vector: unitTail(), limit: 1 })).hits[0]?.id === id);
        await other.services.products.delete(A.tenantId, id);
        const gone = await within(OTHER_PROCESS_MS, 'the other process\'s delete', async () => !(await findsProduct('trekking', id)));
        t.diagnostic(`visible after ${seen.toFixed(0)} ms, vectors after ${embedded.toFixed(0)} ms, gone after ${gone.toFixed(0)} ms`);
      });

      test('a tenant created after start is searchable, and follows its writes', async () => {
        const tenant = await domain.services.tenants.create(uniqueSlug('cd'), 'late');
        const site = await domain.services.sites.create(tenant.id, { slug: 'late', name: 'Late', language: 'en' });
        const first = await domain.services.products.upsert(tenant.id, { siteId: site.id, input: { title: 'Late Lantern', language: 'en' } as ProductInput, source: 'api' });
        const search = async () => (await engine.searchProducts(tenant.id, productSearch({ query: 'lantern' }))).hits.map((h) => h.id);
        assert.deepEqual(await search(), [first.id]);
        const second = await domain.services.products.upsert(tenant.id, { siteId: site.id, input: { title: 'Later Lantern', language: 'en' } as ProductInput, source: 'api' });
        assert.deepEqual(sorted(await search()), sorted([first.id, second.id]));
        const third = await other.services.products.upsert(tenant.id, { siteId: site.id, input: { title: 'Latest Lantern', language: 'en' } as ProductInput, source: 'api' });
        await within(OTHER_PROCESS_MS, 'a write of another process to the new tenant', async () => (await search()).includes(third.id));
      });
    });

    // ---- tenants and paging ------------------------------------------------------------------

    describe('tenant isolation', () => {
      test("no search of tenant A ever returns one of tenant B's documents, and back", async () => {
        for (const [self, peer] of [[A, B], [B, A]] as const) {
          const own = new Set([...Object.values(self.cat.id), ...Object.values(self.kb.id)]);
          const foreign = new Set([...Object.values(peer.cat.id), ...Object.values(peer.kb.id)]);
          const results: SearchResult[] = [
            await products(self, {}),
            await products(self, { query: 'lantern' }),
            await products(self, { query: 'ACME-TR-001' }),
            await products(self, { mode: 'semantic', vector: axis(0) }),
            await products(self, { query: 'fleece', mode: 'hybrid', vector: axis(6) }),
            (await engine.relatedProducts(self.tenantId, self.cat.id.vest, { limit: 100, offset: 0, variantStrategy: 'all' }))!,
            await entries(self, { filters: { access: access(self.kb.owner, VISIBLE_UNDER.restricted, true) } }),
            await entries(self, { query: 'policy', mode: 'hybrid', vector: axis(8), filters: { access: access(self.kb.owner, VISIBLE_UNDER.restricted, true) } }),
            (await engine.relatedEntries(self.tenantId, self.kb.id.public, { limit: 100, offset: 0, access: access(self.kb.owner, VISIBLE_UNDER.restricted, true) }))!,
          ];
          for (const result of results) {
            assert.ok(result.hits.length > 0);
            for (const hit of result.hits) {
              assert.ok(!foreign.has(hit.id), `a hit of the other tenant: ${hit.id}`);
              assert.ok(own.has(hit.id), `an unknown id: ${hit.id}`);
            }
          }
          assert.equal(await engine.relatedProducts(self.tenantId, peer.cat.id.vest, { limit: 10, offset: 0, variantStrategy: 'all' }), null);
          assert.equal(await engine.relatedEntries(self.tenantId, peer.kb.id.public, { limit: 10, offset: 0, access: access(peer.kb.owner, VISIBLE_UNDER.restricted) }), null);
        }
      });

      test('a tenant without documents finds nothing', async () => {
        const empty = randomUUID();
        const result = await engine.searchProducts(empty, productSearch({ query: 'lantern', facets: ['brand'] }));
        assert.deepEqual(result.hits, []);
        assert.equal(result.total, 0);
        assert.deepEqual((await engine.searchKnowledge(empty, knowledgeSearch({ filters: { access: access(A.kb.owner, VISIBLE_UNDER.restricted) } }))).hits, []);
      });
    });

    describe('paging', () => {
      test('offset and limit page through the same order; total stays', async () => {
        const full = await products(A, { filters: { siteId: A.cat.sites.en } });
        assert.equal(full.total, EN_KEYS.length);
        const pages: string[] = [];
        for (let offset = 0; offset < EN_KEYS.length; offset += 3) {
          const page = await products(A, { filters: { siteId: A.cat.sites.en }, limit: 3, offset });
          assert.equal(page.total, EN_KEYS.length);
          assertKeywordRanks(page.hits, offset);
          pages.push(...page.hits.map((h) => h.id));
        }
        assert.deepEqual(pages, full.hits.map((h) => h.id));
        const fleece = await products(A, { query: 'fleece' });
        const fleecePage = await products(A, { query: 'fleece', limit: 2, offset: 2 });
        assert.deepEqual(fleecePage.hits.map((h) => h.id), fleece.hits.slice(2, 4).map((h) => h.id));
        assert.equal(fleecePage.total, 4);
        const semantic = await products(A, { mode: 'semantic', vector: axis(0), limit: 5 });
        const semanticPage = await products(A, { mode: 'semantic', vector: axis(0), limit: 2, offset: 3 });
        assert.deepEqual(semanticPage.hits.map((h) => h.id), semantic.hits.slice(3, 5).map((h) => h.id));
        assert.deepEqual(semanticPage.hits.map((h) => h.ranks.semantic), [4, 5]);
        const beyond = await products(A, { query: 'fleece', offset: 50, limit: 10 });
        assert.deepEqual(beyond.hits, []);
        assert.equal(beyond.total, 4);
      });

      test('pages stay consistent when documents tie (same created_at, equal keyword scores)', async () => {
        // The selectivity tenant's products were written 250 at a time: each batch shares one created_at.
        // An update (same created_at, a title of the same length) moves a product to the end of the
        // engine's internal lists, so ties are no longer offered in document order.
        await other.services.products.upsert(C.tenantId, {
          siteId: C.small, source: 'api',
          input: { title: 'Item number renewed', language: 'en', external_id: 'item-1000', attributes: { edition: 'common' }, price_current: '1.00' } as ProductInput,
        });
        await engine.refresh(C.tenantId, [{ kind: 'product', id: C.smallIds[0] }]);
        const pageThrough = async (search: ProductSearchOver, size: number, count: number) => {
          const full = (await engine.searchProducts(C.tenantId, productSearch({ ...search, limit: count }))).hits.map((h) => h.id);
          const pages: string[] = [];
          for (let offset = 0; offset < count; offset += size) {
            pages.push(...(await engine.searchProducts(C.tenantId, productSearch({ ...search, limit: size, offset }))).hits.map((h) => h.id));
          }
          assert.equal(new Set(pages).size, pages.length, 'no document on two pages');
          assert.deepEqual(pages, full);
        };
        await pageThrough({ filters: { siteId: C.small } }, 3, 10);
        await pageThrough({ query: 'item number' }, 7, 35);
      });
    });
  });
}

/** The last axis: only products of the "another process" test point there. */
const unitTail = () => axis(DIM - 1);
