// Search over real HTTP (issue 5, DESIGN §6) with embedding off: the four routes' answers and
// errors, scopes, the tenant variant strategy, the knowledge read rules with X-Scopes narrowing,
// read-your-writes in the serving process, and tenant isolation.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { assert422, assertError, assertInsufficientScope } from '../helpers/assertions.js';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';
import {
  CATALOGUE, DE_KEYS, EN_KEYS, EXPECTED_ENGINE, SEARCH_KNOWLEDGE, SEARCH_PRODUCTS,
  createSiteHttp, relatedEntriesPath, relatedProductsPath, searchHttp, searchIds, sorted, upsertHttp, writeCatalogueHttp,
} from './fixtures.js';

const ENTRIES = '/api/knowledge/knowledge-entries';
const PRODUCTS = '/api/knowledge/products';
const EMBEDDING_OFF = 'embedding is off (KCS_EMBEDDER=none)';
const ANSWER_KEYS = ['engine', 'facets', 'hits', 'mode', 'semantic_fallback', 'took_ms', 'total'];
/** The hit's fields the answer documents (hits[{id, score, ranks, product|entry}]). */
const hasHitFields = (hit: Record<string, unknown>, doc: 'product' | 'entry') =>
  ['id', 'score', 'ranks', doc].forEach((k) => assert.ok(k in hit, `hit.${k}`));

let stack: Stack;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
});
after(() => stack.close());

// ---- fixtures -----------------------------------------------------------------------------------

interface Shop {
  t: TenantFixture;
  sites: { en: { id: string; slug: string }; de: { id: string; slug: string } };
  /** Fixture key → product (as answered by the upsert). */
  product: Record<string, any>;
  key: Record<string, string>;
}

async function shop(): Promise<Shop> {
  const t = await stack.tenant();
  const sites = { en: await createSiteHttp(t, 'shop-en', 'en'), de: await createSiteHttp(t, 'shop-de', 'de') };
  const product = await writeCatalogueHttp(t, { en: sites.en.slug, de: sites.de.slug });
  const key = Object.fromEntries(Object.entries(product).map(([k, p]) => [p.id, k]));
  return { t, sites, product, key };
}

const keysOfIds = (s: Shop, ids: string[]) => ids.map((id) => s.key[id] ?? id);
const productKeys = async (s: Shop, body: Record<string, unknown>, key?: string) => keysOfIds(s, await searchIds(s.t, SEARCH_PRODUCTS, body, { key }));

interface Library {
  category: string;
  /** Entry key → entry (as created). */
  entry: Record<string, any>;
  key: Record<string, string>;
  other: { userId: string; key: string };
}

/** Entries of every visibility (all holding "policy"), the owner's and a second user's personal ones, an expired memory. */
async function library(t: TenantFixture): Promise<Library> {
  const category = (await t.request('POST', '/api/knowledge/categories', { body: { name: `guides-${randomUUID().slice(0, 6)}` } })).body.id;
  const user = await stack.services.users.create(t.tenant.id, `other-${randomUUID().slice(0, 6)}@x.test`, 'Other');
  const otherKey = (await stack.services.apiKeys.create(t.tenant.id, { userId: user.id, name: 'other', scopes: ['knowledge:read', 'knowledge:write'] })).key;
  const create = async (body: Record<string, unknown>, key?: string) => {
    const personal = body.visibility === 'personal';
    const res = await t.request('POST', personal ? `${ENTRIES}/personal` : ENTRIES, {
      body: { category_id: category, language: 'en', ...body }, ...(key ? { key } : {}),
    });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const entry: Record<string, any> = {
    public: await create({ title: 'Returns policy', content: 'Send goods back.', visibility: 'public' }),
    community: await create({ title: 'Community policy', content: 'Forum rules.', visibility: 'community' }),
    internal: await create({ title: 'Internal policy', content: 'Margins.', visibility: 'internal' }),
    workspace: await create({ title: 'Workspace policy', content: 'Desks.', visibility: 'workspace' }),
    restricted: await create({ title: 'Restricted policy', content: 'Board.', visibility: 'restricted' }),
    mine: await create({ title: 'My policy notes', content: 'Reminders.', visibility: 'personal' }),
    theirs: await create({ title: 'Their policy notes', content: 'Reminders.', visibility: 'personal' }, otherKey),
    expired: await create({ title: 'Expired policy memory', content: 'Once.', visibility: 'public', type: 'memory', metadata: { expires_at: '2001-01-01T00:00:00Z' } }),
  };
  const key = Object.fromEntries(Object.entries(entry).map(([k, e]) => [e.id, k]));
  return { category, entry, key, other: { userId: user.id, key: otherKey } };
}

const entryKeys = async (t: TenantFixture, lib: Library, body: Record<string, unknown>, options: { key?: string; headers?: Record<string, string> } = {}) =>
  (await searchIds(t, SEARCH_KNOWLEDGE, body, options)).map((id) => lib.key[id] ?? id);

const err = (loc: (string | number)[], msg: string, type: string) => ({ loc, msg, type });

// ---- product search -----------------------------------------------------------------------------

describe('POST /api/knowledge/search/products', () => {
  let s: Shop;
  before(async () => {
    s = await shop();
  });

  test('the answer: hits with id, score, ranks and the product as GET shows it; total, facets, mode, fallback, engine, took_ms', async () => {
    const res = await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'lantern', facets: ['brand', 'category', 'availability'] });
    assert.equal(res.status, 200, res.text);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.deepEqual(Object.keys(res.body).sort(), ANSWER_KEYS);
    const { hits, total, facets, mode, semantic_fallback, engine, took_ms } = res.body;
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
    await bad({ limit: 0 }, [err(['body', 'limit'], 'Input should be greater than or equal to 1', 'greater_than_equal')]);
    await bad({ limit: 101 }, [err(['body', 'limit'], 'Input should be less than or equal to 100', 'less_than_equal')]);
    await bad({ offset: 1001 }, [err(['body', 'offset'], 'Input should be less than or equal to 1000', 'less_than_equal')]);
    await bad({ offset: -1 }, [err(['body', 'offset'], 'Input should be greater than or equal to 0', 'greater_than_equal')]);
    await bad({ mode: 'fuzzy' }, [err(['body', 'mode'], "Input should be 'hybrid', 'keyword' or 'semantic'", 'enum')]);
    await bad({ facets: ['brand', 'color'] }, [err(['body', 'facets', 1], "Input should be 'brand', 'category' or 'availability'", 'enum')]);
    await bad({ filters: { price_min: -1 } }, [err(['body', 'filters', 'price_min'], 'Input should be greater than or equal to 0', 'greater_than_equal')]);
    await bad({ filters: { in_stock: 'yes' } }, [err(['body', 'filters', 'in_stock'], 'Input should be a valid boolean', 'bool_type')]);
    await bad({ query: 'x'.repeat(501) }, [err(['body', 'query'], 'String should have at most 500 characters', 'string_too_long')]);
  });

  test('401 without a key, 403 without catalog:read, 404 for an unknown site', async () => {
    const none = await s.t.request('POST', SEARCH_PRODUCTS, { body: {}, key: undefined });
    assertError(none, 401);
    const knowledgeOnly = await s.t.keyWith(['knowledge:read', 'catalog:write']);
    assertInsufficientScope(await searchHttp(s.t, SEARCH_PRODUCTS, {}, { key: knowledgeOnly }), 'catalog:read');
    const narrowed = await searchHttp(s.t, SEARCH_PRODUCTS, {}, { headers: { 'x-scopes': 'knowledge:read' } });
    assertInsufficientScope(narrowed, 'catalog:read');
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

  test('200 with the answer shape; empty without embeddings, and says so', async () => {
    const res = await s.t.request('GET', relatedProductsPath(s.product.shoes.id, '?limit=5'));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ANSWER_KEYS);
    assert.deepEqual(res.body.hits, []);
    assert.equal(res.body.total, 0);
    assert.deepEqual(res.body.facets, {});
    assert.equal(res.body.mode, 'semantic');
    assert.equal(res.body.semantic_fallback, EMBEDDING_OFF);
    assert.equal(res.body.engine, EXPECTED_ENGINE);
    assert.equal((await s.t.request('GET', relatedProductsPath(s.product.shoes.id.toUpperCase()))).status, 200, 'the id is case-insensitive');
  });

  test('404 for an unknown product, 422 for a bad id or paging, 401/403 without a key or catalog:read', async () => {
    assertError(await s.t.request('GET', relatedProductsPath(randomUUID())), 404);
    assert422(await s.t.request('GET', relatedProductsPath('nope')), [err(['path', 'product_id'], 'Input should be a valid UUID', 'uuid_parsing')]);
    assert422(await s.t.request('GET', relatedProductsPath(s.product.shoes.id, '?limit=0')), [err(['query', 'limit'], 'Input should be greater than or equal to 1', 'greater_than_equal')]);
    assert422(await s.t.request('GET', relatedProductsPath(s.product.shoes.id, '?limit=101')), [err(['query', 'limit'], 'Input should be less than or equal to 100', 'less_than_equal')]);
    assert422(await s.t.request('GET', relatedProductsPath(s.product.shoes.id, '?offset=1001')), [err(['query', 'offset'], 'Input should be less than or equal to 1000', 'less_than_equal')]);
    assertError(await s.t.request('GET', relatedProductsPath(s.product.shoes.id), { key: undefined }), 401);
    assertInsufficientScope(await s.t.request('GET', relatedProductsPath(s.product.shoes.id), { key: await s.t.keyWith(['knowledge:read']) }), 'catalog:read');
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
    await bad({ limit: 0 }, [err(['body', 'limit'], 'Input should be greater than or equal to 1', 'greater_than_equal')]);
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

// ---- read-your-writes -------------------------------------------------------------------------------

describe('read-your-writes in the serving process', () => {
  let s: Shop;
  before(async () => {
    s = await shop();
  });
  const found = async (query: string, id: string) => (await searchIds(s.t, SEARCH_PRODUCTS, { query, mode: 'keyword' })).includes(id);

  test('a product answered 2xx is found at once; PUT changes what finds it; DELETE removes it at once', async () => {
    const created = await upsertHttp(s.t, s.sites.en.slug, { external_id: 'kayak', title: 'Kayak Paddle', language: 'en', brand: 'Oarsome' });
    assert.ok(await found('kayak', created.id), 'found right after the 201');
    const res = await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'kayak' });
    assert.deepEqual(res.body.hits[0].product, (await s.t.request('GET', `${PRODUCTS}/${created.id}`)).body);

    const updated = await upsertHttp(s.t, s.sites.en.slug, { external_id: 'kayak', title: 'Canoe Paddle', language: 'en', brand: 'Oarsome' });
    assert.equal(updated.id, created.id);
    assert.ok(!(await found('kayak', created.id)), 'the old title no longer finds it');
    assert.ok(await found('canoe', created.id), 'the new title does');

    const put = await s.t.request('PUT', `${PRODUCTS}/${created.id}`, { body: { external_id: 'kayak', title: 'Rowing Oar', language: 'en' } });
    assert.equal(put.status, 200, put.text);
    assert.ok(await found('rowing', created.id));
    assert.ok(!(await found('canoe', created.id)));
    assert.ok(!(await searchIds(s.t, SEARCH_PRODUCTS, { filters: { brand: ['Oarsome'] } })).includes(created.id), 'filters see the replaced document');

    assert.equal((await s.t.request('DELETE', `${PRODUCTS}/${created.id}`)).status, 204);
    assert.ok(!(await found('rowing', created.id)), 'gone right after the 204');
    const browse = await searchHttp(s.t, SEARCH_PRODUCTS, { site_id: s.sites.en.slug, limit: 100 });
    assert.equal(browse.body.total, EN_KEYS.length, 'total no longer counts it');
  });

  test('a product deleted by site and external_id is gone at once', async () => {
    const p = await upsertHttp(s.t, s.sites.de.slug, { external_id: 'boot', title: 'Schlauchboot', language: 'de' });
    assert.ok(await found('Schlauchboot', p.id));
    const del = await s.t.request('DELETE', `${PRODUCTS}?site_id=${s.sites.de.slug}&external_id=boot`);
    assert.equal(del.status, 204, del.text);
    assert.ok(!(await found('Schlauchboot', p.id)));
  });

  test('a price or availability change (same sync_hash) moves the product in and out of filters at once', async () => {
    const body = { external_id: 'lamp', title: 'Desk Lamp', language: 'en', sync_hash: 'h1', price_current: '10.00', availability: 'InStock' };
    const p = await upsertHttp(s.t, s.sites.en.slug, body);
    const inRange = async () => (await searchIds(s.t, SEARCH_PRODUCTS, { query: 'desk', filters: { price_max: 20, in_stock: true } })).includes(p.id);
    assert.ok(await inRange());
    const res = await s.t.request('POST', `${PRODUCTS}?site_id=${s.sites.en.slug}`, { body: { ...body, price_current: '30.00' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['x-upsert-result'], 'updated');
    assert.ok(!(await inRange()), 'the new price is searched at once');
    await upsertHttp(s.t, s.sites.en.slug, { ...body, availability: 'OutOfStock' });
    assert.ok(!(await inRange()));
    await upsertHttp(s.t, s.sites.en.slug, body);
    assert.ok(await inRange());
  });

  test('knowledge entries: POST, PUT and DELETE are reflected at once', async () => {
    const category = (await s.t.request('POST', '/api/knowledge/categories', { body: { name: 'ryw' } })).body.id;
    const created = await s.t.request('POST', ENTRIES, { body: { title: 'Warranty claims', content: 'Keep the receipt.', category_id: category, visibility: 'internal', language: 'en' } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id;
    const ids = async (query: string, key?: string) => searchIds(s.t, SEARCH_KNOWLEDGE, { query }, { key });
    assert.deepEqual(await ids('warranty'), [id]);
    const put = await s.t.request('PUT', `${ENTRIES}/${id}`, { body: { content: 'Attach a photograph.' } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(await ids('photograph'), [id]);
    assert.deepEqual(await ids('receipt'), []);
    const reader = await s.t.keyWith(['knowledge:read', 'visibility:internal']);
    assert.deepEqual(await ids('warranty', reader), [id]);
    assert.equal((await s.t.request('PUT', `${ENTRIES}/${id}`, { body: { visibility: 'restricted' } })).status, 200);
    assert.deepEqual(await ids('warranty', reader), [], 'raised above the reader\'s ceiling: hidden at once');
    assert.equal((await s.t.request('DELETE', `${ENTRIES}/${id}`)).status, 204);
    assert.deepEqual(await ids('warranty'), []);
    assertError(await s.t.request('GET', relatedEntriesPath(id)), 404);
  });
});

describe('writes made by the workers and background jobs', () => {
  test('products of a bulk import are found within 1.5 s of the job completing (the worker does not refresh; the change stream does)', async (t) => {
    const s = await shop();
    const items = Array.from({ length: 25 }, (_, i) => ({ external_id: `bulk-${i}`, title: `Marmot Blanket ${i}`, language: 'en' }));
    const res = await s.t.request('POST', `${PRODUCTS}/bulk?site_id=${s.sites.en.slug}`, { raw: JSON.stringify(items), headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 202, res.text);
    const job = await s.t.request('GET', `/api/knowledge/jobs/${res.body.job_id}?wait=true`);
    assert.equal(job.body.status, 'completed', job.text);
    const since = performance.now();
    for (;;) {
      const found = await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'marmot', limit: 100 });
      if (found.body.total === items.length) break;
      assert.ok(performance.now() - since < 1500, `only ${found.body.total} of ${items.length} found 1.5 s after the job completed`);
      await new Promise((r) => setTimeout(r, 10));
    }
    t.diagnostic(`all ${items.length} found ${(performance.now() - since).toFixed(0)} ms after the job completed`);
  });

  test("a deleted site's products stop being found (within 5 s, like GET); its site_id is a 404 at once", async (t) => {
    const s = await shop();
    const del = await s.t.request('DELETE', `/api/knowledge/sites/${s.sites.de.slug}`);
    assert.equal(del.status, 204, del.text);
    assertError(await searchHttp(s.t, SEARCH_PRODUCTS, { site_id: s.sites.de.slug }), 404);
    const since = performance.now();
    for (;;) {
      const found = await productKeys(s, { limit: 100 });
      if (!found.some((k) => DE_KEYS.includes(k))) {
        assert.deepEqual(sorted(found), sorted(EN_KEYS), 'the other site stays');
        break;
      }
      assert.ok(performance.now() - since < 5000, `still found after 5 s: ${found.filter((k) => DE_KEYS.includes(k))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    t.diagnostic(`gone after ${(performance.now() - since).toFixed(0)} ms`);
    assert.equal((await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'Häuser' })).body.total, 0);
  });
});

// ---- tenant isolation -------------------------------------------------------------------------------

describe('tenant isolation', () => {
  test('two tenants with identical content never see each other\'s documents', async () => {
    const a = await shop();
    const b = await shop();
    const libA = await library(a.t);
    const libB = await library(b.t);
    for (const [self, peer, selfLib, peerLib] of [[a, b, libA, libB], [b, a, libB, libA]] as const) {
      const own = new Set([...Object.values(self.product).map((p) => p.id), ...Object.values(selfLib.entry).map((e) => e.id)]);
      const foreign = new Set([...Object.values(peer.product).map((p) => p.id), ...Object.values(peerLib.entry).map((e) => e.id)]);
      const answers: HttpResult[] = [
        await searchHttp(self.t, SEARCH_PRODUCTS, { limit: 100 }),
        await searchHttp(self.t, SEARCH_PRODUCTS, { query: 'lantern' }),
        await searchHttp(self.t, SEARCH_PRODUCTS, { query: '4006381333931' }),
        await searchHttp(self.t, SEARCH_PRODUCTS, { query: 'fleece', site_id: 'shop-en', facets: ['brand'] }),
        await searchHttp(self.t, SEARCH_KNOWLEDGE, { query: 'policy', include_expired: true }),
        await searchHttp(self.t, SEARCH_KNOWLEDGE, { limit: 100 }),
      ];
      for (const res of answers) {
        assert.equal(res.status, 200, res.text);
        assert.ok(res.body.hits.length > 0);
        for (const hit of res.body.hits) {
          assert.ok(!foreign.has(hit.id), `a document of the other tenant: ${hit.id}`);
          assert.ok(own.has(hit.id), `an unknown document: ${hit.id}`);
          assert.equal((hit.product ?? hit.entry).tenant_id, self.t.tenant.id);
        }
      }
      const all = await searchHttp(self.t, SEARCH_PRODUCTS, { limit: 100 });
      assert.equal(all.body.total, CATALOGUE.length, 'the total counts only this tenant');
      assertError(await self.t.request('GET', relatedProductsPath(peer.product.shoes.id)), 404);
      assertError(await self.t.request('GET', relatedEntriesPath(peerLib.entry.public.id)), 404);
      // A key of one tenant is no credential at the other.
      const crossed = await stack.request('POST', SEARCH_PRODUCTS, { tenant: self.t.tenant.slug, key: peer.t.key, body: {} });
      assert.equal(crossed.status, 401, crossed.text);
    }
  });
});
