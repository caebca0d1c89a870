// Search over real HTTP (DESIGN §6) with embedding off: the four routes' answers and
// errors, scopes, the tenant variant strategy, and the knowledge read rules with X-Scopes narrowing.
// Writes and tenant isolation: api-writes.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { assert422, assertError, assertInsufficientScope } from '../helpers/assertions.js';
import type { TenantFixture } from '../helpers/stack.js';
import {
  CATALOGUE, DE_KEYS, EN_KEYS, EXPECTED_ENGINE, SEARCH_KNOWLEDGE, SEARCH_PRODUCTS,
  relatedEntriesPath, relatedProductsPath, searchHttp, searchIds, sorted, upsertHttp,
} from './fixtures.js';
import {
  stack, useStack, ENTRIES, PRODUCTS, EMBEDDING_OFF, ANSWER_KEYS, hasHitFields,
  type Shop, shop, keysOfIds, productKeys, type Library, library, entryKeys, err,
} from './api-fixtures.js';

useStack();

// ---- product search -----------------------------------------------------------------------------

describe('POST /api/knowledge/search/products', () => {
  let s: Shop;
  before(async () => {
    s = await shop();
  });

  test('the answer: hits with id, score, ranks and the product as GET shows it; total, facets, facets_exhaustive, mode, fallback, engine, took_ms', async () => {
    const res = await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'lantern', facets: ['brand', 'category', 'availability'] });
    assert.equal(res.status, 200, res.text);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.deepEqual(Object.keys(res.body).sort(), [...ANSWER_KEYS, 'facets_exhaustive', 'query_id', 'synonyms_applied', 'applied_rules', 'understood'].sort());
    const { hits, total, facets, facets_exhaustive, mode, semantic_fallback, engine, took_ms } = res.body;
    assert.equal(facets_exhaustive, true, 'two matches: counted exactly');
    assert.deepEqual(keysOfIds(s, hits.map((h: any) => h.id)), ['lantern', 'tent']);
    assert.equal(total, 2);
    for (const [i, hit] of hits.entries()) {
      hasHitFields(hit, 'product');
      assert.equal(typeof hit.score, 'number');
      assert.deepEqual(hit.ranks, { keyword: i + 1, semantic: null });
      const got = await s.t.request('GET', `${PRODUCTS}/${hit.id}`);
      assert.equal(got.status, 200);
      assert.deepEqual(hit.product, got.body, 'the product exactly as GET answers it');
    }
    assert.ok(hits[0].score > hits[1].score);
    assert.deepEqual(facets, {
      brand: [{ value: 'Acme', count: 1 }, { value: 'Lumo', count: 1 }],
      category: [{ value: 'Lighting', count: 1 }, { value: 'Tents', count: 1 }],
      availability: [{ value: 'InStock', count: 1 }, { value: 'OutOfStock', count: 1 }],
    });
    assert.equal(mode, 'keyword', 'hybrid (the default) falls back to keyword without an embedder');
    assert.equal(semantic_fallback, EMBEDDING_OFF);
    assert.equal(engine, EXPECTED_ENGINE);
    assert.equal(typeof took_ms, 'number');
    assert.ok(took_ms >= 0 && took_ms < 5000, String(took_ms));
  });

  test('a hit carries exactly id, score, ranks and product (no internal fields)', async () => {
    const res = await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'lantern' });
    for (const hit of res.body.hits) assert.deepEqual(Object.keys(hit).sort(), ['id', 'product', 'ranks', 'score']);
  });

  test('mode: hybrid and semantic fall back to keyword and say why; keyword has no fallback', async () => {
    for (const requested of ['hybrid', 'semantic'] as const) {
      const res = await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'lantern', mode: requested });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.mode, 'keyword');
      assert.equal(typeof res.body.semantic_fallback, 'string');
      assert.match(res.body.semantic_fallback, /embedding is off/);
      assert.ok(res.body.hits.every((h: any) => h.ranks.semantic === null));
    }
    const keyword = await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'lantern', mode: 'keyword' });
    assert.equal(keyword.body.mode, 'keyword');
    assert.equal(keyword.body.semantic_fallback, null);
    const empty = await searchHttp(s.t, SEARCH_PRODUCTS, {});
    assert.equal(empty.status, 200);
    assert.equal(empty.body.total, CATALOGUE.length, 'an empty query browses everything');
    assert.deepEqual(empty.body.facets, {});
  });

  test('site_id (UUID or slug), language, category and the filters', async () => {
    assert.deepEqual(sorted(await productKeys(s, { site_id: s.sites.en.slug })), sorted(EN_KEYS));
    assert.deepEqual(sorted(await productKeys(s, { site_id: s.sites.de.id })), sorted(DE_KEYS));
    assert.deepEqual(sorted(await productKeys(s, { site_id: s.sites.de.id.toUpperCase() })), sorted(DE_KEYS));
    assert.deepEqual(sorted(await productKeys(s, { language: 'de' })), sorted(DE_KEYS));
    assert.deepEqual(sorted(await productKeys(s, { category: 'FOOTWEAR' })), ['laces', 'shoes']);
    assert.deepEqual(sorted(await productKeys(s, { filters: { brand: ['acme', 'Bolt'] }, site_id: s.sites.en.slug, query: 'fleece' })), ['hoodie', 'hoodie-m', 'hoodie-s', 'vest']);
    assert.deepEqual(sorted(await productKeys(s, { filters: { availability: ['OutOfStock'] } })), ['hoodie-m', 'schuhe', 'tent']);
    assert.deepEqual(sorted(await productKeys(s, { filters: { price_min: 50, price_max: 100 } })), ['hoodie', 'hoodie-m', 'hoodie-s', 'jacket', 'shoes']);
    assert.deepEqual(sorted(await productKeys(s, { filters: { in_stock: false }, language: 'en' })), ['hoodie-m', 'tent', 'vest']);
    assert.deepEqual(sorted(await productKeys(s, { filters: { attributes: { color: 'RED' } } })), ['jacket', 'shoes'], 'a single value');
    assert.deepEqual(sorted(await productKeys(s, { filters: { attributes: { size: ['s', 'm'], color: ['blue'] } } })), ['hoodie-m', 'hoodie-s'], 'lists, every attribute');
    assert.deepEqual(await productKeys(s, { query: 'ACME-TR-001' }).then((k) => k[0]), 'shoes', 'a sku puts its product first');
    assert.deepEqual(await productKeys(s, { query: 'Häuser' }).then((k) => k[0]), 'haus');
  });

  test('facets count every match under the filters, most frequent first', async () => {
    const res = await searchHttp(s.t, SEARCH_PRODUCTS, { site_id: s.sites.en.slug, facets: ['brand'], limit: 1 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.hits.length, 1);
    assert.equal(res.body.total, EN_KEYS.length);
    assert.deepEqual(res.body.facets, { brand: [{ value: 'Acme', count: 6 }, { value: 'Bolt', count: 2 }, { value: 'Lumo', count: 2 }] });
  });

  test('limit and offset page through the hits; total stays', async () => {
    const full = await searchHttp(s.t, SEARCH_PRODUCTS, { site_id: s.sites.en.slug, limit: 100 });
    assert.equal(full.body.total, EN_KEYS.length);
    const pages: string[] = [];
    for (let offset = 0; offset < EN_KEYS.length; offset += 4) {
      const page = await searchHttp(s.t, SEARCH_PRODUCTS, { site_id: s.sites.en.slug, limit: 4, offset });
      assert.equal(page.status, 200, page.text);
      assert.equal(page.body.total, EN_KEYS.length);
      assert.deepEqual(page.body.hits.map((h: any) => h.ranks.keyword), page.body.hits.map((_: unknown, i: number) => offset + i + 1));
      pages.push(...page.body.hits.map((h: any) => h.id));
    }
    assert.deepEqual(pages, full.body.hits.map((h: any) => h.id));
    const deflt = await searchHttp(s.t, SEARCH_PRODUCTS, {});
    assert.equal(deflt.body.hits.length, Math.min(20, CATALOGUE.length), 'limit defaults to 20');
    const beyond = await searchHttp(s.t, SEARCH_PRODUCTS, { offset: 1000, limit: 100 });
    assert.equal(beyond.status, 200, beyond.text);
    assert.deepEqual(beyond.body.hits, []);
    assert.equal(beyond.body.total, CATALOGUE.length);
  });

  test('422 for bad input, with the exact detail', async () => {
    const bad = async (body: unknown, detail: unknown[]) => assert422(await searchHttp(s.t, SEARCH_PRODUCTS, body), detail);
    await bad({ limit: -1 }, [err(['body', 'limit'], 'Input should be greater than or equal to 0', 'greater_than_equal')]);
    await bad({ limit: 101 }, [err(['body', 'limit'], 'Input should be less than or equal to 100', 'less_than_equal')]);
    await bad({ offset: 1001 }, [err(['body', 'offset'], 'Input should be less than or equal to 1000', 'less_than_equal')]);
    await bad({ offset: -1 }, [err(['body', 'offset'], 'Input should be greater than or equal to 0', 'greater_than_equal')]);
    await bad({ mode: 'fuzzy' }, [err(['body', 'mode'], "Input should be 'hybrid', 'keyword' or 'semantic'", 'enum')]);
    await bad({ facets: ['brand', 'color'] }, [err(['body', 'facets', 1],
      "color is not a facet: brand, category, availability, category.lvl0 … category.lvl3, attributes.<name> of the settings' facet_attributes, price_current, rating_average",
      'facet_unknown')]);
    await bad({ filters: { price_min: -1 } }, [err(['body', 'filters', 'price_min'], 'Input should be greater than or equal to 0', 'greater_than_equal')]);
    await bad({ filters: { in_stock: 'yes' } }, [err(['body', 'filters', 'in_stock'], 'Input should be a valid boolean', 'bool_type')]);
    await bad({ query: 'x'.repeat(501) }, [err(['body', 'query'], 'String should have at most 500 characters', 'string_too_long')]);
  });

  test('401 without a key, 403 without catalog:read or search, 404 for an unknown site', async () => {
    const none = await s.t.request('POST', SEARCH_PRODUCTS, { body: {}, key: undefined });
    assertError(none, 401);
    const knowledgeOnly = await s.t.keyWith(['knowledge:read', 'catalog:write']);
    assertInsufficientScope(await searchHttp(s.t, SEARCH_PRODUCTS, {}, { key: knowledgeOnly }), 'catalog:read search');
    const narrowed = await searchHttp(s.t, SEARCH_PRODUCTS, {}, { headers: { 'x-scopes': 'knowledge:read' } });
    assertInsufficientScope(narrowed, 'catalog:read search');
    const readOnly = await s.t.keyWith(['catalog:read']);
    assert.equal((await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'lantern' }, { key: readOnly })).status, 200);
    assertError(await searchHttp(s.t, SEARCH_PRODUCTS, { site_id: 'no-such-site' }), 404);
    assertError(await searchHttp(s.t, SEARCH_PRODUCTS, { site_id: randomUUID() }), 404);
  });
});

// ---- variant strategy -----------------------------------------------------------------------------

describe('the tenant variant_strategy', () => {
  test('children_only hides parents, parents_only hides variants, all shows both (set through PUT /settings)', async () => {
    const s = await shop();
    const fleece = async () => sorted(await productKeys(s, { query: 'fleece' }));
    const setStrategy = async (variant_strategy: string) => {
      const res = await s.t.request('PUT', '/api/knowledge/settings', { body: { variant_strategy } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.variant_strategy, variant_strategy);
    };
    assert.deepEqual(await fleece(), ['hoodie', 'hoodie-m', 'hoodie-s', 'vest']);
    await setStrategy('children_only');
    assert.deepEqual(await fleece(), ['hoodie-m', 'hoodie-s', 'vest']);
    const counted = await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'fleece', facets: ['brand'] });
    assert.equal(counted.body.total, 3);
    assert.deepEqual(counted.body.facets.brand, [{ value: 'Acme', count: 2 }, { value: 'Bolt', count: 1 }]);
    await setStrategy('parents_only');
    assert.deepEqual(await fleece(), ['hoodie', 'vest']);
    await setStrategy('all');
    assert.deepEqual(await fleece(), ['hoodie', 'hoodie-m', 'hoodie-s', 'vest']);
  });
});

// ---- related products -----------------------------------------------------------------------------

describe('GET /api/knowledge/products/{id}/related', () => {
  let s: Shop;
  before(async () => {
    s = await shop();
  });

  test('200 with the answer shape; without embeddings by keyword similarity, and says so', async () => {
    const res = await s.t.request('GET', relatedProductsPath(s.product.shoes.id, '?limit=5'));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ANSWER_KEYS);
    assert.equal(res.body.hits[0]?.product.id, s.product.laces.id, `a shoe, its brand and category: ${res.text}`);
    assert.ok(res.body.total >= res.body.hits.length && res.body.hits.length <= 5);
    for (const hit of res.body.hits) assert.equal(hit.product.site_id, s.sites.en.id, 'its own site only');
    res.body.hits.forEach((h: { ranks: unknown }, i: number) => assert.deepEqual(h.ranks, { keyword: i + 1, semantic: null }));
    assert.deepEqual(res.body.facets, {});
    assert.equal(res.body.mode, 'keyword');
    assert.equal(res.body.semantic_fallback, EMBEDDING_OFF);
    assert.equal(res.body.engine, EXPECTED_ENGINE);
    assert.equal((await s.t.request('GET', relatedProductsPath(s.product.shoes.id.toUpperCase()))).status, 200, 'the id is case-insensitive');
  });

  test('by keywords: never the product itself or its own variants; the variant strategy applies', async () => {
    const keys = async (key: string) => keysOfIds(s, (await s.t.request('GET', relatedProductsPath(s.product[key].id, '?limit=20'))).body.hits.map((h: { id: string }) => h.id));
    const hoodie = await keys('hoodie');
    assert.equal(hoodie[0], 'vest', `fleece and clothing: ${hoodie}`);
    assert.ok(!hoodie.some((k) => k.startsWith('hoodie')), `not itself, not its variants: ${hoodie}`);
    assert.ok((await keys('vest')).includes('hoodie'));
    assert.equal((await s.t.request('PUT', '/api/knowledge/settings', { body: { variant_strategy: 'children_only' } })).status, 200);
    try {
      const vest = await keys('vest');
      assert.ok(!vest.includes('hoodie') && vest.includes('hoodie-s'), `children only: ${vest}`);
    } finally {
      assert.equal((await s.t.request('PUT', '/api/knowledge/settings', { body: { variant_strategy: 'all' } })).status, 200);
    }
  });

  test('404 for an unknown product, 422 for a bad id or paging, 401/403 without a key or catalog:read or search', async () => {
    assertError(await s.t.request('GET', relatedProductsPath(randomUUID())), 404);
    assert422(await s.t.request('GET', relatedProductsPath('nope')), [err(['path', 'product_id'], 'Input should be a valid UUID', 'uuid_parsing')]);
    assert422(await s.t.request('GET', relatedProductsPath(s.product.shoes.id, '?limit=0')), [err(['query', 'limit'], 'Input should be greater than or equal to 1', 'greater_than_equal')]);
    assert422(await s.t.request('GET', relatedProductsPath(s.product.shoes.id, '?limit=101')), [err(['query', 'limit'], 'Input should be less than or equal to 100', 'less_than_equal')]);
    assert422(await s.t.request('GET', relatedProductsPath(s.product.shoes.id, '?offset=1001')), [err(['query', 'offset'], 'Input should be less than or equal to 1000', 'less_than_equal')]);
    assertError(await s.t.request('GET', relatedProductsPath(s.product.shoes.id), { key: undefined }), 401);
    assertInsufficientScope(await s.t.request('GET', relatedProductsPath(s.product.shoes.id), { key: await s.t.keyWith(['knowledge:read']) }), 'catalog:read search');
  });

  test('a deleted product is a 404 at once', async () => {
    const p = await upsertHttp(s.t, s.sites.en.slug, { title: 'Short-lived', language: 'en' });
    assert.equal((await s.t.request('GET', relatedProductsPath(p.id))).status, 200);
    assert.equal((await s.t.request('DELETE', `${PRODUCTS}/${p.id}`)).status, 204);
    assertError(await s.t.request('GET', relatedProductsPath(p.id)), 404);
  });
});

// ---- knowledge search -------------------------------------------------------------------------------

describe('POST /api/knowledge/search/knowledge', () => {
  let t: TenantFixture;
  let lib: Library;
  before(async () => {
    t = await stack.tenant();
    lib = await library(t);
  });

  test('the answer: hits with id, score, ranks and the entry as GET shows it', async () => {
    const res = await searchHttp(t, SEARCH_KNOWLEDGE, { query: 'returns' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ANSWER_KEYS);
    assert.equal(res.body.hits.length, 1);
    const [hit] = res.body.hits;
    hasHitFields(hit, 'entry');
    assert.equal(hit.id, lib.entry.public.id);
    assert.deepEqual(hit.ranks, { keyword: 1, semantic: null });
    const got = await t.request('GET', `${ENTRIES}/${hit.id}`);
    assert.deepEqual(hit.entry, got.body);
    assert.equal(res.body.total, 1);
    assert.deepEqual(res.body.facets, {});
    assert.equal(res.body.mode, 'keyword');
    assert.equal(res.body.semantic_fallback, EMBEDDING_OFF);
    assert.equal(res.body.engine, EXPECTED_ENGINE);
  });

  test('a hit carries exactly id, score, ranks and entry (no internal fields)', async () => {
    const res = await searchHttp(t, SEARCH_KNOWLEDGE, { query: 'policy' });
    for (const hit of res.body.hits) assert.deepEqual(Object.keys(hit).sort(), ['entry', 'id', 'ranks', 'score']);
  });

  test('the visibility ceiling of the key, own personal entries only, expired memories only on request', async () => {
    const all = ['community', 'internal', 'mine', 'public', 'restricted', 'workspace'];
    assert.deepEqual(sorted(await entryKeys(t, lib, { query: 'policy' })), all);
    assert.deepEqual(sorted(await entryKeys(t, lib, { query: 'policy', include_expired: true })), sorted([...all, 'expired']));
    assert.deepEqual(sorted(await entryKeys(t, lib, {})), all, 'browsing applies the same rules');
    const publicOnly = await t.keyWith(['knowledge:read']);
    assert.deepEqual(sorted(await entryKeys(t, lib, { query: 'policy' }, { key: publicOnly })), ['mine', 'public']);
    const internal = await t.keyWith(['knowledge:read', 'visibility:internal']);
    assert.deepEqual(sorted(await entryKeys(t, lib, { query: 'policy' }, { key: internal })), ['community', 'internal', 'mine', 'public', 'workspace']);
    assert.deepEqual(sorted(await entryKeys(t, lib, { query: 'policy' }, { key: lib.other.key })), ['public', 'theirs'], "another user: its own personal entry, not the owner's");
    const res = await searchHttp(t, SEARCH_KNOWLEDGE, { query: 'policy' }, { key: publicOnly });
    assert.equal(res.body.total, 2, 'total counts only what the caller may read');
  });

  test('X-Scopes narrows the ceiling', async () => {
    assert.deepEqual(sorted(await entryKeys(t, lib, { query: 'policy' }, { headers: { 'x-scopes': 'knowledge:read' } })), ['mine', 'public']);
    assert.deepEqual(sorted(await entryKeys(t, lib, { query: 'policy' }, { headers: { 'x-scopes': 'knowledge:read visibility:community' } })), ['community', 'mine', 'public']);
    assert.deepEqual(
      sorted(await entryKeys(t, lib, { query: 'policy' }, { headers: { 'x-scopes': 'knowledge:read visibility:internal' } })),
      ['community', 'internal', 'mine', 'public', 'workspace'],
    );
    const publicOnly = await t.keyWith(['knowledge:read']);
    assert.deepEqual(sorted(await entryKeys(t, lib, { query: 'policy' }, { key: publicOnly, headers: { 'x-scopes': 'knowledge:read visibility:restricted' } })), ['mine', 'public'], 'X-Scopes never widens');
  });

  test('list filters: type, visibility, category_id, tags, layer, language', async () => {
    const cat2 = (await t.request('POST', '/api/knowledge/categories', { body: { name: `g-${randomUUID().slice(0, 6)}` } })).body.id;
    const glossary = await t.request('POST', ENTRIES, {
      body: { title: 'Glossar policy', content: 'Begriffe.', category_id: cat2, visibility: 'public', type: 'glossary', tags: ['faq'], layer: 'core', language: 'de' },
    });
    assert.equal(glossary.status, 201, glossary.text);
    const ids = (body: Record<string, unknown>) => searchIds(t, SEARCH_KNOWLEDGE, { query: 'policy', ...body });
    assert.deepEqual(await ids({ type: 'glossary' }), [glossary.body.id]);
    assert.deepEqual(await ids({ category_id: cat2.toUpperCase() }), [glossary.body.id]);
    assert.deepEqual(await ids({ tags: ['faq', 'other'] }), [glossary.body.id]);
    assert.deepEqual(await ids({ layer: 'core' }), [glossary.body.id]);
    assert.deepEqual(await ids({ language: 'de' }), [glossary.body.id]);
    assert.deepEqual(await ids({ visibility: 'internal' }), [lib.entry.internal.id]);
    assert.deepEqual(await ids({ visibility: 'personal' }), [lib.entry.mine.id]);
    assert.deepEqual(await ids({ type: 'memory' }), []);
    assert.deepEqual(await ids({ type: 'memory', include_expired: true }), [lib.entry.expired.id]);
  });

  test('422 for bad input, 401 without a key, 403 without knowledge:read', async () => {
    const bad = async (body: unknown, detail: unknown[]) => assert422(await searchHttp(t, SEARCH_KNOWLEDGE, body), detail);
    await bad({ limit: -1 }, [err(['body', 'limit'], 'Input should be greater than or equal to 0', 'greater_than_equal')]);
    await bad({ limit: 101 }, [err(['body', 'limit'], 'Input should be less than or equal to 100', 'less_than_equal')]);
    await bad({ offset: 1001 }, [err(['body', 'offset'], 'Input should be less than or equal to 1000', 'less_than_equal')]);
    await bad({ mode: 'vector' }, [err(['body', 'mode'], "Input should be 'hybrid', 'keyword' or 'semantic'", 'enum')]);
    await bad({ category_id: 'x' }, [err(['body', 'category_id'], 'Input should be a valid UUID', 'uuid_parsing')]);
    await bad({ visibility: 'secret' }, [err(['body', 'visibility'], "Input should be 'public', 'internal', 'personal', 'restricted', 'community' or 'workspace'", 'enum')]);
    await bad({ include_expired: 'maybe' }, [err(['body', 'include_expired'], 'Input should be a valid boolean', 'bool_type')]);
    assertError(await t.request('POST', SEARCH_KNOWLEDGE, { body: {}, key: undefined }), 401);
    assertInsufficientScope(await searchHttp(t, SEARCH_KNOWLEDGE, {}, { key: await t.keyWith(['catalog:read', 'knowledge:write']) }), 'knowledge:read');
  });
});

describe('GET /api/knowledge/knowledge-entries/{id}/related', () => {
  let t: TenantFixture;
  let lib: Library;
  before(async () => {
    t = await stack.tenant();
    lib = await library(t);
  });

  test('200 for a readable entry (empty without embeddings); 404 for unknown or unreadable ones', async () => {
    const res = await t.request('GET', relatedEntriesPath(lib.entry.public.id));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ANSWER_KEYS);
    assert.deepEqual(res.body.hits, []);
    assert.equal(res.body.mode, 'semantic');
    assert.equal(res.body.semantic_fallback, EMBEDDING_OFF);
    assertError(await t.request('GET', relatedEntriesPath(randomUUID())), 404);
    assertError(await t.request('GET', relatedEntriesPath(lib.entry.theirs.id)), 404);
    assert.equal((await t.request('GET', relatedEntriesPath(lib.entry.theirs.id), { key: lib.other.key })).status, 200, 'its owner may');
    assertError(await t.request('GET', relatedEntriesPath(lib.entry.restricted.id), { key: await t.keyWith(['knowledge:read']) }), 404);
    assertError(await t.request('GET', relatedEntriesPath(lib.entry.internal.id), { headers: { 'x-scopes': 'knowledge:read' } }), 404);
    assertError(await t.request('GET', relatedEntriesPath(lib.entry.expired.id)), 404);
    assert.equal((await t.request('GET', relatedEntriesPath(lib.entry.expired.id, '?include_expired=true'))).status, 200);
  });

  test('422 for a bad id or paging, 401/403', async () => {
    assert422(await t.request('GET', relatedEntriesPath('nope')), [err(['path', 'entry_id'], 'Input should be a valid UUID', 'uuid_parsing')]);
    assert422(await t.request('GET', relatedEntriesPath(lib.entry.public.id, '?limit=0')), [err(['query', 'limit'], 'Input should be greater than or equal to 1', 'greater_than_equal')]);
    assertError(await t.request('GET', relatedEntriesPath(lib.entry.public.id), { key: undefined }), 401);
    assertInsufficientScope(await t.request('GET', relatedEntriesPath(lib.entry.public.id), { key: await t.keyWith(['catalog:read']) }), 'knowledge:read');
  });
});
