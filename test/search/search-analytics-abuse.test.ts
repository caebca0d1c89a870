// The attacks on click and conversion events and on query suggestions (issue 64), replayed over
// real HTTP on a real Redis, each answered without an inflated count: many event ids on one search
// and product, positions the answer did not show, products of no search of the tenant or its
// site, a search key's events spread over many addresses; one caller's repeated, paged and
// refined searches, rotated user_tokens, semantic searches with the similarity floor lowered
// (real local embedder), against three distinct callers (addresses) making a suggestion; and the
// tenant's block list. Callers are told apart by the loopback address their requests come from.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { keys } from '../../src/store/keys.js';
import { MAX_BLOCKED_SUGGESTIONS } from '../../src/store/searchAnalytics.js';
import { assertError } from '../helpers/assertions.js';
import { waitEmbedded } from '../helpers/embedding.js';
import { eventually } from '../helpers/eventually.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { createSiteHttp, SEARCH_PRODUCTS, upsertHttp } from './fixtures.js';

const K = '/api/knowledge/search';
const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const around = () => ({ from: day(Date.now() - DAY_MS), to: day(Date.now() + DAY_MS) });
const err = (loc: (string | number)[], msg: string, type = 'value_error') => ({ loc, msg, type });
/** Another caller: the n-th loopback address. */
const address = (n: number) => `127.0.0.${10 + n}`;

let stack: Stack;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
});
after(() => stack?.close());

interface Shop {
  t: TenantFixture;
  /** A search-only key, as a shop page carries it. */
  key: string;
  product: Record<string, string>;
}

async function shop(s: Stack = stack): Promise<Shop> {
  const t = await s.tenant();
  await createSiteHttp(t, 'shop', 'en');
  await createSiteHttp(t, 'outlet', 'en');
  const product: Record<string, string> = {};
  const write = async (site: string, external_id: string, title: string, description = '') =>
    (product[external_id] = (await upsertHttp(t, site, { language: 'en', external_id, title, description })).id);
  await write('shop', 'red', 'Red Jacket', 'A waterproof jacket for rainy days.');
  await write('shop', 'blue', 'Blue Jacket', 'A light jacket for windy walks.');
  await write('shop', 'boots', 'Rain Boots', 'Rubber boots that keep feet dry.');
  await write('outlet', 'coat', 'Winter Coat', 'A warm coat for cold weather.');
  return { t, key: await t.keyWith(['search']), product };
}

type Answer = { total: number; hits: { id: string }[]; query_id: string | null };
const search = async (s: Shop, body: Record<string, unknown>, from?: string): Promise<Answer> => {
  const res = await s.t.request('POST', SEARCH_PRODUCTS, { key: s.key, body: { mode: 'keyword', ...body }, ...(from ? { localAddress: from } : {}) });
  assert.equal(res.status, 200, res.text);
  return res.body;
};
const events = (s: Shop, list: unknown[], from?: string) =>
  s.t.request('POST', `${K}/events`, { key: s.key, body: { events: list }, ...(from ? { localAddress: from } : {}) });
const click = (queryId: string | null, position: number, productId: string) => ({ event_id: randomUUID(), type: 'click', query_id: queryId, product_id: productId, position });
const conversion = (queryId: string | null, productId: string) => ({ event_id: randomUUID(), type: 'conversion', query_id: queryId, product_id: productId });
const report = async (s: Shop) => {
  const res = await s.t.request('GET', `${K}/analytics?${new URLSearchParams(around())}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
};
/** The report once it counts `searches` searches (they are written within a second). */
const reportOnce = (s: Shop, searches: number) =>
  eventually(async () => {
    const r = await report(s);
    return r.searches === searches ? r : undefined;
  }, `${searches} searches counted`, { ms: 10_000 });
const suggested = async (s: Shop, query: Record<string, string> = {}) => {
  const res = await s.t.request('GET', `${K}/suggestions?${new URLSearchParams(query)}`, { key: s.key });
  assert.equal(res.status, 200, res.text);
  return (res.body.suggestions as { query: string; count: number }[]).map((q) => `${q.query} ${q.count}`);
};
const settings = async (s: Shop, body: Record<string, unknown>) => assert.equal((await s.t.request('PUT', '/api/knowledge/settings', { body })).status, 200);

describe('click and conversion events', () => {
  test('one search takes one click and one conversion per product: 1,000 distinct event_ids count once', async () => {
    const s = await shop();
    await settings(s, { search_events_rate_per_s: 0, search_events_key_rate_per_s: 0 });
    const { query_id: queryId, hits } = await search(s, { site_id: 'shop', query: 'jacket' });
    assert.equal(hits.length, 2);
    const clicks = Array.from({ length: 1000 }, () => click(queryId, 1, hits[0].id));
    assert.deepEqual((await events(s, clicks)).body, { accepted: 1, duplicates: 999 });
    // Again in many requests, and as conversions.
    const answers = await Promise.all(Array.from({ length: 12 }, () => events(s, [click(queryId, 1, hits[0].id), conversion(queryId, hits[0].id)])));
    assert.deepEqual(answers.map((a) => a.body.accepted).reduce((a, b) => a + b, 0), 1);
    // Its other hit is another product: counted.
    assert.deepEqual((await events(s, [click(queryId, 2, hits[1].id), click(queryId, 2, hits[1].id)])).body, { accepted: 1, duplicates: 1 });
    const r = await reportOnce(s, 1);
    assert.deepEqual([r.clicks, r.conversions, r.click_through_rate, r.conversion_rate, r.average_click_position], [2, 1, 1, 1, 1.5]);
  });

  test('a click is at a position the search showed: outside its page (or with no hits) a 422 at its position, and nothing of the request counted', async () => {
    const s = await shop();
    const { query_id: two, hits } = await search(s, { site_id: 'shop', query: 'jacket' });
    const page2 = await search(s, { site_id: 'shop', query: '', limit: 2, offset: 2 });
    assert.equal(page2.hits.length, 1);
    const none = await search(s, { site_id: 'shop', query: 'zzzz' });
    const res = await events(s, [
      click(two, 1, hits[0].id), click(two, 10_000, hits[0].id), click(two, 3, hits[0].id), click(page2.query_id, 1, page2.hits[0].id), click(none.query_id, 1, hits[0].id),
    ]);
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.body.detail, [
      err(['body', 'events', 1, 'position'], "Not a position the search's answer showed: it showed positions 1–2"),
      err(['body', 'events', 2, 'position'], "Not a position the search's answer showed: it showed positions 1–2"),
      err(['body', 'events', 3, 'position'], "Not a position the search's answer showed: it showed positions 3–3"),
      err(['body', 'events', 4, 'position'], "Not a position the search's answer showed: it showed no hits"),
    ]);
    // A conversion names no position: it is taken for any search.
    assert.deepEqual((await events(s, [click(page2.query_id, 3, page2.hits[0].id), conversion(none.query_id, hits[0].id)])).body, { accepted: 2, duplicates: 0 });
    const r = await reportOnce(s, 3);
    assert.deepEqual([r.clicks, r.average_click_position], [1, 3], 'only the click at position 3');
  });

  test("the product is the tenant's, and the search's site's: an unknown one, another tenant's or another site's is a 422 at its product_id", async () => {
    const s = await shop();
    const other = await shop();
    const { query_id: onShop } = await search(s, { site_id: 'shop', query: '' });
    const { query_id: anySite } = await search(s, { query: '' });
    const res = await events(s, [
      click(onShop, 1, s.product.red), click(onShop, 1, randomUUID()), click(onShop, 2, other.product.red), click(onShop, 3, s.product.coat),
    ]);
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.body.detail, [
      err(['body', 'events', 1, 'product_id'], "Not a product of the search's site"),
      err(['body', 'events', 2, 'product_id'], "Not a product of the search's site"),
      err(['body', 'events', 3, 'product_id'], "Not a product of the search's site"),
    ]);
    const tenantWide = await events(s, [conversion(anySite, other.product.red), conversion(anySite, s.product.coat)]);
    assert.deepEqual(tenantWide.body.detail, [err(['body', 'events', 0, 'product_id'], 'Not a product of this tenant')]);
    // Upper case is the same product.
    assert.deepEqual((await events(s, [click(onShop, 1, s.product.red.toUpperCase()), conversion(anySite, s.product.coat)])).body, { accepted: 2, duplicates: 0 });
    const r = await reportOnce(s, 2);
    assert.deepEqual([r.clicks, r.conversions], [1, 1], 'the refused requests counted nothing');
  });

  test("a search-only key's events are limited per key across addresses (search_events_key_rate_per_s), as well as per key and address", async () => {
    const s = await shop();
    const { query_id: queryId, hits } = await search(s, { site_id: 'shop', query: 'jacket' });
    // 100 a second per address would let 12 requests from 6 addresses through; 2 a second per key does not.
    await settings(s, { search_events_rate_per_s: 100, search_events_key_rate_per_s: 2 });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => events(s, [click(queryId, 1, hits[0].id)], address(i % 6))));
    const limited = answers.filter((r) => r.status === 429);
    assert.ok(limited.length >= 8, answers.map((r) => r.status).join(','));
    assert.ok(answers.some((r) => r.status === 200));
    assertError(limited[0], 429);
    assert.equal(limited[0].body.detail, 'Rate limit exceeded: 2 event requests per second per search key');
    assert.ok(Number(limited[0].headers['retry-after']) >= 1);
    // 0: no limit per key; the per-address bucket still holds.
    await settings(s, { search_events_rate_per_s: 2, search_events_key_rate_per_s: 0 });
    const one = await Promise.all(Array.from({ length: 6 }, () => events(s, [click(queryId, 1, hits[0].id)], address(7))));
    assert.ok(one.filter((r) => r.status === 429).length >= 3, one.map((r) => r.status).join(','));
    assert.equal(one.find((r) => r.status === 429)!.body.detail, 'Rate limit exceeded: 2 event requests per second per search key and address');
  });
});

describe('suggestions need distinct searchers', () => {
  test('one caller counts once a query a day: repeated in one multi-search, paged, refined; three callers make a suggestion', async () => {
    const s = await shop();
    const multi = async (searches: unknown[], from: string) => {
      const res = await s.t.request('POST', `${K}/multi`, { key: s.key, body: { searches }, localAddress: from });
      assert.equal(res.status, 200, res.text);
    };
    // The same query three times in one anonymous request.
    await multi([{ query: 'jacket' }, { query: 'jacket' }, { query: 'jacket' }], address(0));
    // One shopper's page 1, page 2 and a refinement, and another's page 2 only (never counted).
    await search(s, { query: 'rain', limit: 1 }, address(1));
    await search(s, { query: 'rain', limit: 1, offset: 1 }, address(1));
    await search(s, { query: 'rain', filters: { brand: ['none'] } }, address(1));
    await search(s, { query: 'rain', filters: { in_stock: false } }, address(1));
    await search(s, { query: 'rain', limit: 1, offset: 1 }, address(2));
    // Three callers: three addresses (the same key).
    for (const n of [3, 4, 5]) await search(s, { query: 'boots' }, address(n));
    // Without hits, never (whoever searches).
    for (const n of [3, 4, 5]) await search(s, { query: 'zzzz' }, address(n));
    const r = await reportOnce(s, 3 + 5 + 3 + 3);
    // They are searches all the same.
    assert.deepEqual(r.top_queries.map((q: { query: string; count: number }) => `${q.query} ${q.count}`), ['rain 5', 'boots 3', 'jacket 3', 'zzzz 3']);
    assert.deepEqual(await suggested(s), ['boots 3']);
    // Two callers are enough for a threshold of 2: the second rain searcher's page 2 did not count.
    await settings(s, { suggestion_min_searches: 2 });
    assert.deepEqual(await suggested(s), ['boots 3']);
    await settings(s, { suggestion_min_searches: 1 });
    assert.deepEqual(await suggested(s), ['rain 5', 'boots 3', 'jacket 3']);
  });

  test('user_token: rotated from one address the caller counts once; one token from three addresses is one shopper', async () => {
    const s = await shop();
    for (const token of ['t1', 't2', 't3', 't4']) await search(s, { query: 'jacket', user_token: token }, address(0));
    for (const n of [1, 2, 3]) await search(s, { query: 'boots', user_token: 'anonymous-3f2a9c' }, address(n));
    // Three shoppers behind three addresses, each with a token of their own.
    for (const n of [4, 5, 6]) await search(s, { query: 'red jacket', user_token: `shopper-${n}` }, address(n));
    await reportOnce(s, 10);
    assert.deepEqual(await suggested(s), ['red jacket 3']);
    for (const bad of ['', 'has space', 'x'.repeat(130), 'ümlaut']) {
      const res = await s.t.request('POST', SEARCH_PRODUCTS, { key: s.key, body: { query: 'jacket', user_token: bad } });
      assert.equal(res.status, 422, bad);
      assert.deepEqual(res.body.detail[0].loc, ['body', 'user_token']);
    }
  });

  test('no stored key names a shopper: not the address, the key id or the user_token', async () => {
    const s = await shop();
    for (const n of [1, 2, 3]) await search(s, { query: 'boots', user_token: `visible-token-${n}` }, address(n));
    await reportOnce(s, 3);
    const client = await stack.client();
    try {
      const today = day(Date.now());
      const tags = await client.hgetallBuffer(keys.searchSearcherTags(s.t.tenant.id, '*', today));
      assert.deepEqual(Object.entries(tags).map(([q, v]) => [q, v.length]), [['boots', 24]], '3 records of 8 bytes');
      const text = Object.values(tags).map((v) => v.toString('latin1')).join();
      for (const clear of ['visible-token', '127.0.0', s.key.slice(0, 8)]) assert.ok(!text.includes(clear), clear);
    } finally {
      client.disconnect();
    }
  });
});

describe('the block list', () => {
  test('a blocked query is never suggested, at once; list, 201/200, delete 204/404, audited; at most 10,000', async () => {
    const s = await shop();
    for (const n of [1, 2, 3]) {
      await search(s, { query: 'Rain Boots', site_id: 'shop' }, address(n));
      await search(s, { query: 'jacket', site_id: 'shop' }, address(n));
    }
    await reportOnce(s, 6);
    assert.deepEqual(await suggested(s), ['jacket 3', 'rain boots 3']);
    assert.deepEqual(await suggested(s, { site_id: 'shop' }), ['jacket 3', 'rain boots 3']);

    const B = `${K}/suggestions/blocked`;
    const blocked = await s.t.request('POST', B, { body: { query: '  RAIN   boots ' } });
    assert.equal(blocked.status, 201, blocked.text);
    assert.equal(blocked.body.query, 'rain boots');
    assert.ok(Math.abs(Date.parse(blocked.body.blocked_at) - Date.now()) < 60_000);
    assert.deepEqual((await s.t.request('POST', B, { body: { query: 'Rain Boots' } })).body, blocked.body);
    assert.equal((await s.t.request('POST', B, { body: { query: 'rain boots' } })).status, 200);
    // At once in this process, site-wide and tenant-wide (the suggestions were cached).
    assert.deepEqual(await suggested(s), ['jacket 3']);
    assert.deepEqual(await suggested(s, { site_id: 'shop', q: 'ra' }), []);
    assert.deepEqual((await s.t.request('GET', B)).body, { blocked: [blocked.body] });

    const audit = await s.t.request('GET', '/api/knowledge/audit?entity_type=blocked_suggestion');
    assert.equal(audit.status, 200, audit.text);
    assert.deepEqual(audit.body.map((e: { action: string; details: unknown }) => [e.action, e.details]), [['create', { query: 'rain boots' }]]);

    // Admin only; a search key may not list or change it.
    assertError(await s.t.request('GET', B, { key: s.key }), 403);
    assertError(await s.t.request('POST', B, { key: s.key, body: { query: 'jacket' } }), 403);
    assert.deepEqual((await s.t.request('POST', B, { body: { query: '   ' } })).body, { detail: [err(['body', 'query'], 'The query is empty once normalised (whitespace only)')] });

    assertError(await s.t.request('DELETE', `${B}?query=nothing`), 404);
    assert.equal((await s.t.request('DELETE', `${B}?query=${encodeURIComponent('RAIN BOOTS')}`)).status, 204);
    assertError(await s.t.request('DELETE', `${B}?query=rain%20boots`), 404);
    assert.deepEqual(await suggested(s), ['jacket 3', 'rain boots 3']);
    const actions = (await s.t.request('GET', '/api/knowledge/audit?entity_type=blocked_suggestion')).body.map((e: { action: string }) => e.action);
    assert.deepEqual(actions, ['delete', 'create']);

    // The bound, checked in Redis: 10,000 blocked, the next refused.
    const client = await stack.client();
    try {
      const members = Array.from({ length: MAX_BLOCKED_SUGGESTIONS }, (_, i) => [1, `filler ${i}`]).flat();
      for (let i = 0; i < members.length; i += 2000) await client.zadd(keys.suggestionsBlocked(s.t.tenant.id), ...members.slice(i, i + 2000));
    } finally {
      client.disconnect();
    }
    assert.deepEqual((await s.t.request('POST', B, { body: { query: 'jacket' } })).body, {
      detail: [err(['body', 'query'], 'The tenant blocks 10000 queries already, the most it may', 'too_many')],
    });
    assert.equal((await s.t.request('POST', B, { body: { query: 'filler 7' } })).status, 200, 'one blocked already is answered');
    assert.deepEqual(await suggested(s), ['jacket 3', 'rain boots 3']);
  });
});

describe('semantic searches with the similarity floor lowered', () => {
  let semantic: Stack;
  before(async () => {
    semantic = await startStack({ KCS_EMBEDDER: 'local' });
  });
  after(() => semantic?.close());

  test('min_similarity below the model\'s floor finds anything and never counts toward a suggestion; at the floor it does', async () => {
    const s = await shop(semantic);
    for (const [key, id] of Object.entries(s.product)) await waitEmbedded(s.t, `/api/knowledge/products/${id}`, `product ${key}`);
    const spam = 'visit cheap-watches dot example for deals';
    const body = { query: spam, mode: 'semantic', min_similarity: 0 };
    // The vectors reach the engine through the change stream (slowly on a machine the cluster pass's two lanes share).
    let last: unknown = null;
    await eventually(async () => {
      const answer = await search(s, { ...body, analytics: false });
      last = answer;
      return answer.hits.length === 4 ? true : undefined;
    }, 'every product searched semantically', { ms: 30_000 }).catch((error: Error) => assert.fail(`${error.message}; last answer ${JSON.stringify(last)}`));
    const multi = await s.t.request('POST', `${K}/multi`, { key: s.key, body: { searches: [body, body, body] }, localAddress: address(0) });
    assert.equal(multi.status, 200, multi.text);
    for (const n of [1, 2, 3]) {
      assert.equal((await search(s, body, address(n))).hits.length, 4);
      await search(s, { ...body, mode: 'hybrid' }, address(n));
      // At the model's floor (0.55 for the local model) a search counts.
      await search(s, { query: 'red jacket', mode: 'hybrid', min_similarity: 0.55 }, address(n));
    }
    const r = await reportOnce(s, 3 + 9);
    assert.deepEqual(r.top_queries.map((q: { query: string; count: number }) => `${q.query} ${q.count}`), [`${spam} 9`, 'red jacket 3'], 'searches all the same');
    assert.deepEqual(await suggested(s), ['red jacket 3']);
  });
});
