// The cache of recent product search results (search/resultCache.ts) over real HTTP, on whichever
// engine the run uses: a repeated search is answered from it (the /metrics gauges count the
// hits) with the same answer; every answered write is seen by the same search right after it
// (created, changed, deleted; rounds of write-then-search on one query); tenants never share a
// result; the documents of a held result are read fresh; and the held results stay within
// KCS_SEARCH_CACHE_MB, the most recent kept.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { createSiteHttp, SEARCH_PRODUCTS, searchHttp, upsertHttp } from './fixtures.js';

/** The cache gauges of a stack's process, from /metrics. */
async function cacheStats(s: Stack): Promise<Record<'entries' | 'bytes' | 'hits' | 'misses', number>> {
  const text = (await s.request('GET', '/metrics')).text;
  const read = (name: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`kcs_search_cache_${name} `));
    assert.ok(line, `kcs_search_cache_${name} in /metrics`);
    return Number(line.split(' ')[1]);
  };
  return { entries: read('entries'), bytes: read('bytes'), hits: read('hits'), misses: read('misses') };
}

/** The parts of an answer a held result gives (took_ms and query_id are the request's own). */
const sameParts = (body: Record<string, unknown>) => ({ hits: body.hits, total: body.total, facets: body.facets, facets_exhaustive: body.facets_exhaustive });

describe('recent search results', () => {
  let stack: Stack;
  let t: TenantFixture;
  const search = (tenant: TenantFixture, body: Record<string, unknown>) => searchHttp(tenant, SEARCH_PRODUCTS, { site_id: 'shop', mode: 'keyword', ...body });

  before(async () => {
    stack = await startStack({ KCS_EMBEDDER: 'none', KCS_SEARCH_CACHE_MB: '64' });
    t = await stack.tenant();
    await createSiteHttp(t, 'shop', 'de');
  });
  after(() => stack.close());

  test('a repeated search is answered from the cache, with the same answer', async () => {
    await upsertHttp(t, 'shop', { external_id: 'r1', title: 'Regenjacke Nordkap', brand: 'Hafen', language: 'de', price_current: 80 });
    const body = { query: 'regenjacke', facets: ['brand'] };
    const first = await search(t, body);
    assert.equal(first.status, 200, first.text);
    // Right after a write the replica of the built-in engine may apply it once more from the
    // change stream (a new mark, a miss): a few repeats, then the search is held.
    let hit = false;
    for (let i = 0; i < 20 && !hit; i++) {
      const before = await cacheStats(stack);
      const again = await search(t, body);
      assert.deepEqual(sameParts(again.body), sameParts(first.body));
      hit = (await cacheStats(stack)).hits === before.hits + 1;
      if (!hit) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(hit, 'a repeated search was answered from the cache');
  });

  test('every answered write is seen by the same search right after it', async () => {
    const body = { query: 'wanderschuh', facets: ['brand'], limit: 100 };
    const ids: string[] = [];
    for (let round = 0; round < 25; round++) {
      assert.equal((await search(t, body)).status, 200);
      const created = await upsertHttp(t, 'shop', { external_id: `w${round}`, title: `Wanderschuh Modell ${round}`, brand: `Marke ${round % 3}`, language: 'de', price_current: 50 + round });
      ids.push(created.id);
      const res = await search(t, body);
      assert.equal(res.body.total, round + 1, `round ${round}: the new product is counted`);
      assert.deepEqual(res.body.hits.map((h: { id: string }) => h.id).sort(), [...ids].sort(), `round ${round}`);
      const brands = Object.fromEntries(res.body.facets.brand.map((f: { value: string; count: number }) => [f.value, f.count]));
      assert.equal(brands[`Marke ${round % 3}`], Math.floor(round / 3) + 1, `round ${round}: the brand facet counts it`);
    }
    // A change: the filter that excluded it includes it at once, and the other way round.
    const cheap = { ...body, filters: { price_max: 40 } };
    assert.equal((await search(t, cheap)).body.total, 0);
    await upsertHttp(t, 'shop', { external_id: 'w0', title: 'Wanderschuh Modell 0', brand: 'Marke 0', language: 'de', price_current: 30 });
    assert.deepEqual((await search(t, cheap)).body.hits.map((h: { id: string }) => h.id), [ids[0]]);
    // The held result's documents are read fresh: the changed price is in the hit.
    const hit = (await search(t, body)).body.hits.find((h: { id: string }) => h.id === ids[0]);
    assert.equal(Number(hit.product.price_current), 30);
    // A delete: gone from the next search.
    assert.equal((await t.request('DELETE', `/api/knowledge/products/${ids[1]}`)).status, 204);
    const res = await search(t, body);
    assert.equal(res.body.total, 24);
    assert.ok(!res.body.hits.some((h: { id: string }) => h.id === ids[1]));
  });

  test('tenants never share a result', async () => {
    const other = await stack.tenant();
    await createSiteHttp(other, 'shop', 'de');
    await upsertHttp(other, 'shop', { external_id: 'o1', title: 'Regenjacke Sylt', language: 'de' });
    await upsertHttp(other, 'shop', { external_id: 'o2', title: 'Regenjacke Föhr', language: 'de' });
    const body = { query: 'regenjacke', facets: ['brand'] };
    const mine = await search(t, body);
    const theirs = await search(other, body);
    assert.equal(mine.body.total, 1);
    assert.equal(theirs.body.total, 2);
    assert.deepEqual(sameParts((await search(t, body)).body), sameParts(mine.body));
  });
});

describe('the cache stays within KCS_SEARCH_CACHE_MB', () => {
  let stack: Stack;
  let t: TenantFixture;

  before(async () => {
    stack = await startStack({ KCS_EMBEDDER: 'none', KCS_SEARCH_CACHE_MB: '1' });
    t = await stack.tenant();
    await createSiteHttp(t, 'shop', 'en');
    const items = Array.from({ length: 120 }, (_, i) => ({ external_id: `p${i}`, title: `Lamp ${i} bright`, language: 'en', attributes: { n: String(i) } }));
    for (const item of items) await upsertHttp(t, 'shop', item);
  });
  after(() => stack.close());

  test('many distinct searches: the bytes held stay under the limit, the most recent are kept', async () => {
    // Each answer holds 100 hits; the words after "lamp" differ, so each search is its own entry.
    const body = (i: number) => ({ query: `lamp bright ${i}`, mode: 'keyword', limit: 100 });
    for (let i = 0; i < 200; i++) assert.equal((await searchHttp(t, SEARCH_PRODUCTS, body(i))).status, 200);
    const held = await cacheStats(stack);
    assert.ok(held.bytes <= 2 ** 20, `${held.bytes} bytes held`);
    assert.ok(held.entries < 200, `${held.entries} entries held: older ones were dropped`);
    const before = await cacheStats(stack);
    await searchHttp(t, SEARCH_PRODUCTS, body(199));
    assert.equal((await cacheStats(stack)).hits, before.hits + 1, 'the latest search is held');
    await searchHttp(t, SEARCH_PRODUCTS, body(0));
    assert.equal((await cacheStats(stack)).misses, before.misses + 1, 'the first one was dropped');
  });
});
