// Search-only keys (DESIGN §2): the `search` scope opens product search and related products and
// nothing else; the storefront routes take catalog:read or search; a search-only caller's products
// leave out what `search` does not grant; allowed_origins is validated, normalised and listed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { STOREFRONT_PRODUCT_FIELDS } from '../../../src/schemas/products.js';
import { assertError, assertInsufficientScope } from '../../helpers/assertions.js';
import { startStack, type Stack, type TenantFixture } from '../../helpers/stack.js';
import { catalogue, K, keyWith, mintKey, SEARCH, type Catalogue } from './fixtures.js';

let stack: Stack;
let t: TenantFixture;
let shop: Catalogue;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
  t = await stack.tenant();
  shop = await catalogue(t);
});
after(() => stack.close());

const search = (key: string, body: Record<string, unknown> = { query: 'drill', site_id: 'shop' }, headers: Record<string, string> = {}) =>
  t.request('POST', SEARCH, { key, body, headers });

describe('the search scope', () => {
  test('opens product search and related products', async () => {
    const key = await keyWith(t, ['search']);
    const found = await search(key);
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.total, 3);
    const related = await t.request('GET', `${K}/products/${shop.productIds[0]}/related`, { key });
    assert.equal(related.status, 200, related.text);
  });

  test('and nothing else: every other route is a 403 naming the scope it needs', async () => {
    const key = await keyWith(t, ['search']);
    const id = shop.productIds[0];
    const cases: Array<[string, string, string, unknown?]> = [
      ['GET', `${K}/products?site_id=shop`, 'catalog:read'],
      ['GET', `${K}/products/${id}`, 'catalog:read'],
      ['GET', `${K}/sites`, 'catalog:read'],
      ['GET', `${K}/categories`, 'catalog:read'],
      ['GET', `${K}/embedding`, 'catalog:read'],
      ['POST', `${K}/products?site_id=shop`, 'catalog:write', { title: 'x', language: 'en' }],
      ['POST', `${K}/search/knowledge`, 'knowledge:read', { query: 'x' }],
      ['GET', `${K}/knowledge-entries`, 'knowledge:read'],
      ['GET', `${K}/api-keys`, 'admin'],
      ['GET', `${K}/settings`, 'admin'],
    ];
    for (const [method, path, scope, body] of cases) {
      const res = await t.request(method, path, { key, body });
      assertInsufficientScope(res, scope);
      assert.equal(res.body.detail, `Missing scope: ${scope}`, `${method} ${path}`);
    }
  });

  test('routes open to any credential refuse a search-only key: whoami and MCP', async () => {
    const key = await keyWith(t, ['search']);
    const beyond = 'catalog:read catalog:write knowledge:read knowledge:write admin visibility:community visibility:internal visibility:restricted';
    const whoami = await t.request('GET', `${K}/whoami`, { key });
    assertInsufficientScope(whoami, beyond);
    assert.match(whoami.body.detail, /^Missing scope: one of catalog:read, /);
    const mcp = await t.request('POST', '/mcp', {
      key, headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    assertInsufficientScope(mcp, beyond);
    // A key with search and anything else is not search-only.
    const both = await keyWith(t, ['search', 'knowledge:read']);
    assert.equal((await t.request('GET', `${K}/whoami`, { key: both })).status, 200);
  });

  test('the storefront routes take catalog:read or search; without either, the 403 names both', async () => {
    const reader = await keyWith(t, ['catalog:read']);
    assert.equal((await search(reader)).status, 200);
    const other = await keyWith(t, ['knowledge:read']);
    for (const res of [await search(other), await t.request('GET', `${K}/products/${shop.productIds[0]}/related`, { key: other })]) {
      assertInsufficientScope(res, 'catalog:read search');
      assert.equal(res.body.detail, 'Missing scope: one of catalog:read, search');
    }
  });

  test('X-Scopes narrows: to search alone a catalog:read key sees storefront products; it never adds search', async () => {
    const both = await keyWith(t, ['catalog:read', 'search']);
    const narrowed = await search(both, undefined, { 'X-Scopes': 'search' });
    assert.equal(narrowed.status, 200, narrowed.text);
    assert.deepEqual(Object.keys(narrowed.body.hits[0].product).sort(), [...STOREFRONT_PRODUCT_FIELDS].sort());
    assert.equal((await t.request('GET', `${K}/sites`, { key: both, headers: { 'X-Scopes': 'search' } })).status, 403);
    assertInsufficientScope(await search(both, undefined, { 'X-Scopes': 'knowledge:read' }), 'catalog:read search');
    const searchOnly = await keyWith(t, ['search']);
    assertInsufficientScope(await t.request('GET', `${K}/sites`, { key: searchOnly, headers: { 'X-Scopes': 'catalog:read search' } }), 'catalog:read');
  });
});

describe("a search-only caller's products", () => {
  const withheld = ['tenant_id', 'external_id', 'translation_group_id', 'search_keywords', 'has_similarity_anchor', 'source', 'sync_hash',
    'last_synced_at', 'created_at', 'updated_at', 'embedding_status', 'similarity_text', 'embedding_text_description'];

  test('hold exactly the storefront fields; the answer around them is unchanged', async () => {
    const key = await keyWith(t, ['search']);
    const res = await search(key, { query: 'drill', site_id: 'shop', facets: ['brand'] });
    assert.equal(res.status, 200, res.text);
    for (const hit of res.body.hits) {
      assert.deepEqual(Object.keys(hit.product).sort(), [...STOREFRONT_PRODUCT_FIELDS].sort());
      for (const field of withheld) assert.ok(!(field in hit.product), `${field} is withheld`);
      assert.ok(!JSON.stringify(hit).includes('secret synonym'));
      assert.ok(!JSON.stringify(hit).includes('shopware-connector'));
    }
    assert.deepEqual(res.body.hits[0].product.attributes, { color: 'blue' });
    assert.deepEqual(res.body.facets.brand, [{ value: 'Acme', count: 2 }, { value: 'Bosch', count: 1 }]);
    assert.deepEqual(Object.keys(res.body).sort(), ['applied_rules', 'engine', 'facets', 'facets_exhaustive', 'hits', 'mode', 'query_id', 'semantic_fallback', 'synonyms_applied', 'took_ms', 'total', 'understood']);
    assert.deepEqual(Object.keys(res.body.hits[0]).sort(), ['id', 'product', 'ranks', 'score']);
  });

  test('a catalog:read caller still gets whole products', async () => {
    const res = await search(await keyWith(t, ['catalog:read']));
    const product = res.body.hits[0].product;
    assert.equal(product.source, 'shopware-connector');
    assert.match(product.sync_hash, /^hash-/);
    assert.deepEqual(product.search_keywords, ['secret synonym']);
  });
});

describe('allowed_origins', () => {
  test('is normalised as browsers send origins (lower case, no default port), deduplicated, and listed', async () => {
    const res = await mintKey(t, {
      scopes: ['search'],
      allowed_origins: ['HTTPS://Shop.Example', 'https://shop.example:443', 'http://localhost:3000', 'http://[::1]:8080', 'http://127.0.0.1:80'],
    });
    assert.equal(res.status, 201, res.text);
    const expected = ['https://shop.example', 'http://localhost:3000', 'http://[::1]:8080', 'http://127.0.0.1'];
    assert.deepEqual(res.body.allowed_origins, expected);
    const listed = (await t.request('GET', `${K}/api-keys`)).body.find((k: { id: string }) => k.id === res.body.id);
    assert.deepEqual(listed.allowed_origins, expected);
    const plain = await mintKey(t, { scopes: ['catalog:read'], allowed_origins: null });
    assert.deepEqual(plain.body.allowed_origins, []);
    assert.deepEqual((await mintKey(t, { scopes: ['catalog:read'] })).body.allowed_origins, []);
  });

  test('anything but scheme://host[:port] is a 422 at its index; nothing is created', async () => {
    const before = (await t.request('GET', `${K}/api-keys`)).body.length;
    const bad = ['https://shop.example/', 'https://shop.example/path', 'ftp://shop.example', '*', 'https://*.shop.example', 'shop.example',
      'null', 'https://shop.example?x=1', 'https://user@shop.example', 'https://shop.example:', 'https://-shop.example'];
    for (const origin of bad) {
      const res = await mintKey(t, { scopes: ['search'], allowed_origins: ['https://fine.example', origin] });
      assert.equal(res.status, 422, `${origin}: ${res.text}`);
      assert.deepEqual(res.body.detail.map((d: { loc: unknown[] }) => d.loc), [['body', 'allowed_origins', 1]], origin);
      assert.equal(res.body.detail[0].type, 'string_pattern_mismatch', origin);
    }
    for (const origin of ['https://shop.example:99999', 'http://shop.example:0']) {
      const res = await mintKey(t, { scopes: ['search'], allowed_origins: [origin] });
      assert.equal(res.status, 422, `${origin}: ${res.text}`);
      assert.deepEqual(res.body.detail[0].loc, ['body', 'allowed_origins', 0]);
      assert.equal(res.body.detail[0].type, 'value_error');
      assert.match(res.body.detail[0].msg, /scheme:\/\/host\[:port\]/);
    }
    const many = await mintKey(t, { scopes: ['search'], allowed_origins: Array.from({ length: 51 }, (_, i) => `https://s${i}.example`) });
    assert.equal(many.status, 422);
    assert.equal(many.body.detail[0].type, 'too_long');
    assert.equal((await mintKey(t, { scopes: ['search'], allowed_origins: Array.from({ length: 50 }, (_, i) => `https://s${i}.example`) })).status, 201);
    const notList = await mintKey(t, { scopes: ['search'], allowed_origins: 'https://shop.example' });
    assert.equal(notList.status, 422);
    const notString = await mintKey(t, { scopes: ['search'], allowed_origins: [42] });
    assert.deepEqual(notString.body.detail.map((d: { type: string }) => d.type), ['string_type']);
    assert.equal((await t.request('GET', `${K}/api-keys`)).body.length, before + 1, 'only the 50-origin key was created');
  });

  test('a key never holds a scope its creator lacks: search included', async () => {
    const adminOnly = await keyWith(t, ['admin', 'catalog:read']);
    assertInsufficientScope(await mintKey(t, { scopes: ['search'], allowed_origins: ['https://shop.example'] }, adminOnly), 'search');
    const withSearch = await keyWith(t, ['admin', 'search']);
    const made = await mintKey(t, { scopes: ['search'], allowed_origins: ['https://shop.example'] }, withSearch);
    assert.equal(made.status, 201, made.text);
    const narrowed = await t.request('POST', `${K}/api-keys`, { key: withSearch, headers: { 'X-Scopes': 'admin' }, body: { name: 'n', scopes: ['search'] } });
    assertInsufficientScope(narrowed, 'search');
  });

  test('an unknown key on a storefront route is a 401', async () => {
    const res = await search('kcs_00000000-0000-4000-8000-000000000000_aaaaaaaaaaaaaaaaaaaaaaaa');
    assertError(res, 401);
  });
});
