// Semantic and hybrid search with the real local embedder (use-lite-512-en, English only): the
// workers embed a handful of products and entries, then queries without shared words find them,
// hybrid carries both ranks, a German query (asked in German, or on a German site) falls back to
// keyword and says why, the similarity floor leaves unrelated documents out, and related products
// are the nearest ones. Queries about the ranking itself turn the floor off (min_similarity 0).
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { waitEmbedded } from '../helpers/embedding.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { SEARCH_KNOWLEDGE, SEARCH_PRODUCTS, createSiteHttp, relatedProductsPath, searchHttp, upsertHttp } from './fixtures.js';

let stack: Stack;
let t: TenantFixture;
const product: Record<string, any> = {};
const entry: Record<string, any> = {};

const PRODUCTS: Record<string, Record<string, unknown>> = {
  boots: { title: 'Hiking Boots', description: 'Sturdy waterproof leather boots with ankle support.', availability: 'InStock' },
  runners: { title: 'Running Shoes', description: 'Lightweight sneakers for jogging on roads.', availability: 'InStock' },
  espresso: { title: 'Espresso Machine', description: 'Brews rich coffee with a steam wand for milk.', availability: 'OutOfStock' },
  chair: { title: 'Office Chair', description: 'Ergonomic seat with lumbar support and armrests.', availability: 'InStock' },
  hose: { title: 'Garden Hose', description: 'Twenty metres of flexible tubing for watering plants.', availability: 'InStock' },
};

before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'local' });
  t = await stack.tenant();
  const site = await createSiteHttp(t, 'outdoor', 'en');
  for (const [key, body] of Object.entries(PRODUCTS)) product[key] = await upsertHttp(t, site.slug, { external_id: key, language: 'en', ...body });
  const category = (await t.request('POST', '/api/knowledge/categories', { body: { name: 'Service' } })).body.id;
  const create = async (body: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/knowledge/knowledge-entries', { body: { category_id: category, language: 'en', ...body } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  entry.returns = await create({ title: 'Sending items back', content: 'Customers may return purchases within thirty days for their money.', visibility: 'public', tags: ['returns'] });
  entry.approvals = await create({ title: 'Approval limits', content: 'Managers sign off reimbursements above five hundred euros.', visibility: 'restricted' });
  entry.kettle = await create({ title: 'Broken kettle call', content: 'A caller wanted compensation for a kettle that stopped heating.', visibility: 'public' });
  for (const [key, p] of Object.entries(product)) await waitEmbedded(t, `/api/knowledge/products/${p.id}`, `product ${key}`);
  for (const [key, e] of Object.entries(entry)) await waitEmbedded(t, `/api/knowledge/knowledge-entries/${e.id}`, `entry ${key}`);
  // The vectors reach the engine through the change stream: wait until every product is searched semantically.
  const deadline = Date.now() + 5000;
  for (;;) {
    const res = await searchHttp(t, SEARCH_PRODUCTS, { query: 'anything at all', mode: 'semantic', limit: 100, min_similarity: 0 });
    if (res.body.hits.length === Object.keys(PRODUCTS).length) break;
    assert.ok(Date.now() < deadline, `the engine did not pick up the vectors: ${res.text}`);
    await delay(100);
  }
});
after(() => stack?.close());

const keyOf = (id: string) => Object.entries(product).find(([, p]) => p.id === id)?.[0] ?? Object.entries(entry).find(([, e]) => e.id === id)?.[0] ?? id;

describe('semantic product search with the local embedder', () => {
  test('an English query finds a related product without sharing a word with it', async () => {
    const keyword = await searchHttp(t, SEARCH_PRODUCTS, { query: 'footwear mountain trails', mode: 'keyword' });
    assert.deepEqual(keyword.body.hits, [], 'no shared word: keyword search finds nothing');
    const res = await searchHttp(t, SEARCH_PRODUCTS, { query: 'footwear for mountain trails', mode: 'semantic', limit: 5, min_similarity: 0 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.mode, 'semantic');
    assert.equal(res.body.semantic_fallback, null);
    const found = res.body.hits.map((h: any) => keyOf(h.id));
    assert.equal(found[0], 'boots', `${found}`);
    assert.deepEqual([...found.slice(0, 2)].sort(), ['boots', 'runners'], `the two kinds of shoes come first: ${found}`);
    res.body.hits.forEach((h: any, i: number) => assert.deepEqual(h.ranks, { keyword: null, semantic: i + 1 }));
    assert.ok(res.body.hits[0].score > res.body.hits[2].score);
  });

  test('hybrid: keyword matches first, then semantic candidates; a product found by both carries both ranks', async () => {
    const res = await searchHttp(t, SEARCH_PRODUCTS, { query: 'waterproof boots', limit: 5, min_similarity: 0 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.mode, 'hybrid', 'hybrid is the default and runs');
    assert.equal(res.body.semantic_fallback, null);
    const [first] = res.body.hits;
    assert.equal(keyOf(first.id), 'boots');
    assert.equal(first.ranks.keyword, 1);
    assert.equal(first.ranks.semantic, 1);
    assert.ok(res.body.hits.slice(1).every((h: any) => h.ranks.keyword === null && h.ranks.semantic !== null), 'the others come from the semantic side only');
    assert.equal(res.body.total, Object.keys(PRODUCTS).length, 'total: the keyword match plus the semantic candidates');
  });

  test('a German query (language de) falls back to keyword and names the model\'s languages', async () => {
    const res = await searchHttp(t, SEARCH_PRODUCTS, { query: 'Wanderschuhe', language: 'de' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.mode, 'keyword');
    assert.equal(typeof res.body.semantic_fallback, 'string');
    assert.match(res.body.semantic_fallback, /use-lite-512-en/);
    assert.match(res.body.semantic_fallback, /\ben\b/);
    assert.match(res.body.semantic_fallback, /\bde\b/);
    const semantic = await searchHttp(t, SEARCH_PRODUCTS, { query: 'Wanderschuhe', language: 'de-AT', mode: 'semantic' });
    assert.equal(semantic.body.mode, 'keyword');
    assert.match(semantic.body.semantic_fallback, /de-AT/);
    const english = await searchHttp(t, SEARCH_PRODUCTS, { query: 'boots', language: 'en-GB' });
    assert.equal(english.body.mode, 'hybrid', 'a regional English tag is served');
  });

  test('without a language, the site\'s decides: a search on a German site runs keyword and says why', async () => {
    const site = await createSiteHttp(t, 'laden', 'de');
    const res = await searchHttp(t, SEARCH_PRODUCTS, { query: 'Wanderschuhe', site_id: site.slug });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.mode, 'keyword');
    assert.match(res.body.semantic_fallback, /not de\b/);
    const english = await searchHttp(t, SEARCH_PRODUCTS, { query: 'boots', site_id: 'outdoor' });
    assert.equal(english.body.mode, 'hybrid', 'the English site is served');
  });

  test('semantic candidates below the similarity floor are unrelated and left out: a query with no match answers empty', async () => {
    for (const mode of ['semantic', 'hybrid']) {
      const unrelated = await searchHttp(t, SEARCH_PRODUCTS, { query: 'quarterly tax declaration deadline', mode });
      assert.equal(unrelated.status, 200, unrelated.text);
      assert.equal(unrelated.body.mode, mode);
      assert.deepEqual(unrelated.body.hits, [], `${mode}: ${unrelated.text}`);
      assert.equal(unrelated.body.total, 0);
    }
    const all = await searchHttp(t, SEARCH_PRODUCTS, { query: 'quarterly tax declaration deadline', mode: 'semantic', min_similarity: 0 });
    assert.equal(all.body.hits.length, Object.keys(PRODUCTS).length, 'min_similarity 0 turns the floor off');
    const none = await searchHttp(t, SEARCH_PRODUCTS, { query: 'hiking boots', mode: 'semantic', min_similarity: 1 });
    assert.deepEqual(none.body.hits, []);
    const bad = await searchHttp(t, SEARCH_PRODUCTS, { query: 'boots', min_similarity: 1.5 });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.detail[0].loc, ['body', 'min_similarity']);
  });

  test('an empty query browses by keyword and says so', async () => {
    const res = await searchHttp(t, SEARCH_PRODUCTS, { mode: 'semantic' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.mode, 'keyword');
    assert.match(res.body.semantic_fallback, /empty query/);
    assert.equal(res.body.total, Object.keys(PRODUCTS).length);
  });

  test('related products: the nearest other product first', async () => {
    const res = await t.request('GET', relatedProductsPath(product.runners.id, '?limit=3'));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.mode, 'semantic');
    assert.equal(res.body.semantic_fallback, null);
    const found = res.body.hits.map((h: any) => keyOf(h.id)).filter((k: string) => k !== 'runners');
    assert.equal(found[0], 'boots', `${found}`);
  });

  test('related products never include the product itself', async () => {
    const res = await t.request('GET', relatedProductsPath(product.runners.id, '?limit=3'));
    const found = res.body.hits.map((h: any) => keyOf(h.id));
    assert.ok(!found.includes('runners'), `${found}`);
    assert.equal(found[0], 'boots');
  });

  test('semantic search applies in_stock with a site_id', async () => {
    const res = await searchHttp(t, SEARCH_PRODUCTS, { query: 'coffee', mode: 'semantic', site_id: 'outdoor', filters: { in_stock: true }, min_similarity: 0 });
    assert.equal(res.status, 200, res.text);
    const found = res.body.hits.map((h: any) => keyOf(h.id));
    assert.ok(!found.includes('espresso'), `the out-of-stock espresso machine is filtered out: ${found}`);
  });

  test('semantic search applies in_stock without a site_id', async () => {
    const res = await searchHttp(t, SEARCH_PRODUCTS, { query: 'coffee', mode: 'semantic', filters: { in_stock: true }, min_similarity: 0 });
    const found = res.body.hits.map((h: any) => keyOf(h.id));
    assert.ok(!found.includes('espresso'), `${found}`);
    assert.equal(found.length, 4);
  });
});

describe('semantic knowledge search with the local embedder', () => {
  test('a query without shared words finds the entry; unreadable entries never appear', async () => {
    const publicOnly = await t.keyWith(['knowledge:read']);
    const res = await searchHttp(t, SEARCH_KNOWLEDGE, { query: 'refund policy', mode: 'semantic', min_similarity: 0 }, { key: publicOnly });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.mode, 'semantic');
    const found = res.body.hits.map((h: any) => keyOf(h.id));
    assert.ok(!found.includes('approvals'), `restricted: ${found}`);
    assert.deepEqual([...found].sort(), ['kettle', 'returns']);
  });

  test('total counts only readable entries', async () => {
    const publicOnly = await t.keyWith(['knowledge:read']);
    const res = await searchHttp(t, SEARCH_KNOWLEDGE, { query: 'refund policy', mode: 'semantic', min_similarity: 0 }, { key: publicOnly });
    assert.equal(res.body.total, res.body.hits.length, 'every readable entry fits on the page');
  });

  test('semantic knowledge search applies the tags filter', async () => {
    const res = await searchHttp(t, SEARCH_KNOWLEDGE, { query: 'refund policy', mode: 'semantic', tags: ['returns'], min_similarity: 0 });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.hits.map((h: any) => keyOf(h.id)), ['returns']);
  });
});
