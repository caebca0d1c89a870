// Search analytics over real HTTP on a real Redis: searches counted per site and tenant-wide (the
// counts reach Redis within a second, so the report is polled), the query's normal form, queries
// without results, the report's shape, analytics: false and facet-only searches not counted,
// click and conversion events for a query_id (a retry counted once, CTR and average position),
// bad events and query_ids refused whole, the events' rate limit for a search-only key, the
// report's range rules, query suggestions (searched by distinct callers: addresses), the tenant
// setting, and the bound on a day's queries. The attacks on events and suggestions are in
// search-analytics-abuse.test.ts.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { QueryIdKey } from '../../src/domain/queryIdKey.js';
import { QueryIds } from '../../src/domain/queryIds.js';
import { MAX_QUERY_CHARS, normaliseQuery, SearchCounter } from '../../src/domain/searchCounter.js';
import { keys } from '../../src/store/keys.js';
import { ALL_SITES, SearchAnalyticsRepository } from '../../src/store/searchAnalytics.js';
import { assertError, assertInsufficientScope } from '../helpers/assertions.js';
import { eventually } from '../helpers/eventually.js';
import type { TenantFixture } from '../helpers/stack.js';
import { err, stack, useStack } from './api-fixtures.js';
import { createSiteHttp, SEARCH_PRODUCTS, upsertHttp } from './fixtures.js';

useStack();

const K = '/api/knowledge/search';
const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Yesterday to tomorrow: a run across midnight (UTC) still finds its searches. */
const around = () => ({ from: day(Date.now() - DAY_MS), to: day(Date.now() + DAY_MS) });

const PRODUCTS = {
  shop: [{ external_id: 'red', title: 'Red Jacket' }, { external_id: 'blue', title: 'Blue Jacket' }, { external_id: 'boots', title: 'Rain Boots' }],
  outlet: [{ external_id: 'coat', title: 'Winter Coat' }],
};

async function tenantWithShop(): Promise<{ t: TenantFixture; shop: string; outlet: string; product: Record<string, string> }> {
  const t = await stack.tenant();
  const shop = (await createSiteHttp(t, 'shop', 'en')).id;
  const outlet = (await createSiteHttp(t, 'outlet', 'en')).id;
  const product: Record<string, string> = {};
  for (const [site, products] of Object.entries(PRODUCTS)) for (const p of products) product[p.external_id] = (await upsertHttp(t, site, { language: 'en', ...p })).id;
  return { t, shop, outlet, product };
}

/** A product search; `from`: the loopback address to send it from (another caller for the suggestions). */
const search = async (t: TenantFixture, body: Record<string, unknown>, key?: string, from?: string) => {
  const res = await t.request('POST', SEARCH_PRODUCTS, { body: { mode: 'keyword', ...body }, ...(key ? { key } : {}), ...(from ? { localAddress: from } : {}) });
  assert.equal(res.status, 200, res.text);
  return res.body as { total: number; query_id: string | null };
};
const report = (t: TenantFixture, query: Record<string, string> = {}, key?: string) =>
  t.request('GET', `${K}/analytics?${new URLSearchParams({ ...around(), ...query })}`, key ? { key } : {});
/** The report once it counts `searches` searches (the counts are written within a second). */
const reportOnce = (t: TenantFixture, searches: number, query: Record<string, string> = {}) =>
  eventually(async () => {
    const res = await report(t, query);
    assert.equal(res.status, 200, res.text);
    return res.body.searches === searches ? res.body : undefined;
  }, `${searches} searches counted`, { ms: 10_000 });
const events = (t: TenantFixture, list: unknown[], key?: string) => t.request('POST', `${K}/events`, { body: { events: list }, ...(key ? { key } : {}) });
const click = (queryId: string | null, position: number, productId: string, eventId: string = randomUUID()) => ({ event_id: eventId, type: 'click', query_id: queryId, product_id: productId, position });
const suggestions = (t: TenantFixture, query: Record<string, string>, key?: string) =>
  t.request('GET', `${K}/suggestions?${new URLSearchParams(query)}`, key ? { key } : {});

test('the normal form of a query: NFKC, lower case, trimmed, one space, at most 100 characters', () => {
  assert.equal(normaliseQuery('  Ｒｅｄ \t  JACKET '), 'red jacket');
  assert.equal(normaliseQuery('x'.repeat(150)), 'x'.repeat(MAX_QUERY_CHARS));
  // Cut at a character, not inside a surrogate pair.
  assert.equal(normaliseQuery('😀'.repeat(120)), '😀'.repeat(MAX_QUERY_CHARS));
});

test('query_ids: the site, time and positions shown they name; any changed character, another tenant or another secret is refused', async () => {
  const secret = randomBytes(32);
  const ids = new QueryIds(async () => secret);
  const site = randomUUID();
  const now = Date.now();
  const fresh = await ids.issue('tenant-a', site, now, { first: 21, last: 40 });
  const earlier = await ids.issue('tenant-a', null, now - 3_600_000, { first: 1, last: 0 });
  assert.match(fresh, /^[A-Za-z0-9_-]{58}$/);
  assert.deepEqual(await ids.check('tenant-a', fresh, now), { ok: true, siteId: site, atMs: Math.floor(now / 1000) * 1000, positions: { first: 21, last: 40 } });
  assert.deepEqual(await ids.check('tenant-a', earlier, now), { ok: true, siteId: null, atMs: Math.floor(now / 1000) * 1000 - 3_600_000, positions: { first: 1, last: 0 } });
  // The same search second and site, other positions: another tag.
  const other = await ids.issue('tenant-a', site, now, { first: 1, last: 20 });
  assert.deepEqual(await ids.check('tenant-a', `${other.slice(0, 27)}${fresh.slice(27, 41)}${other.slice(41)}`, now), { ok: false, why: 'invalid' });
  assert.deepEqual(await new QueryIds(async () => secret).check('tenant-a', fresh, now), (await ids.check('tenant-a', fresh, now)), 'another process with the same secret');
  for (let i = 0; i < fresh.length; i++) {
    const changed = `${fresh.slice(0, i)}${fresh[i] === 'A' ? 'B' : 'A'}${fresh.slice(i + 1)}`;
    assert.deepEqual(await ids.check('tenant-a', changed, now), { ok: false, why: 'invalid' }, `character ${i}`);
  }
  assert.deepEqual(await ids.check('tenant-b', fresh, now), { ok: false, why: 'invalid' });
  assert.deepEqual(await new QueryIds(async () => randomBytes(32)).check('tenant-a', fresh, now), { ok: false, why: 'invalid' });
  assert.deepEqual(await ids.check('tenant-a', fresh, now + DAY_MS + 1000), { ok: false, why: 'expired' });

  // Version 1 (no positions: issued before an upgrade, taken for its day) names any position a search can answer.
  const v1 = Buffer.alloc(27 + 12);
  v1[0] = 1;
  v1.writeUInt32BE(Math.floor(now / 1000), 1);
  randomBytes(6).copy(v1, 5);
  v1.write(site.replaceAll('-', ''), 11, 16, 'hex');
  new QueryIdKey(secret).tag('tenant-a', v1.subarray(0, 27)).copy(v1, 27);
  const old = v1.toString('base64url');
  assert.match(old, /^[A-Za-z0-9_-]{52}$/);
  assert.deepEqual(await ids.check('tenant-a', old, now), { ok: true, siteId: site, atMs: Math.floor(now / 1000) * 1000, positions: { first: 1, last: 1100 } });
  assert.deepEqual(await ids.check('tenant-b', old, now), { ok: false, why: 'invalid' });
});

describe('search analytics over HTTP', () => {
  let a: Awaited<ReturnType<typeof tenantWithShop>>;
  before(async () => {
    a = await tenantWithShop();
  });

  test('searches are counted per site and tenant-wide: normal form, hits, no-result queries, per day and per hour', async () => {
    const { t, shop, outlet } = a;
    const started = Date.now();
    const ids: (string | null)[] = [];
    for (const query of ['Jacket', 'jacket', '  jacket ', 'JACKET', 'boots', 'zzzz', 'ZZZZ', '']) ids.push((await search(t, { site_id: 'shop', query })).query_id);
    await search(t, { site_id: outlet, query: 'coat' });
    await search(t, { query: 'Jacket' });
    // Not counted: asked not to be, and a facet-only search (limit 0).
    assert.equal((await search(t, { site_id: 'shop', query: 'jacket', analytics: false })).query_id, null);
    assert.equal((await search(t, { site_id: 'shop', query: 'jacket', limit: 0, facets: ['brand'] })).query_id, null);
    assert.ok(ids.every((id) => typeof id === 'string' && /^[A-Za-z0-9_-]{58}$/.test(id)), String(ids));
    assert.equal(new Set(ids).size, ids.length, 'every search its own query_id');

    const all = await reportOnce(t, 10);
    assert.equal(all.site_id, null);
    assert.deepEqual(all.top_queries, [{ query: 'jacket', count: 5, hits: 2 }, { query: 'zzzz', count: 2, hits: 0 }, { query: 'boots', count: 1, hits: 1 }, { query: 'coat', count: 1, hits: 1 }]);
    const site = (await report(t, { site_id: 'shop' })).body;
    const range = around();
    assert.deepEqual({ ...site, per_day: undefined, per_hour: undefined }, {
      from: range.from, to: range.to, site_id: shop, searches: 8, no_result_searches: 2, no_result_rate: 0.25, clicks: 0, conversions: 0,
      click_through_rate: 0, conversion_rate: 0, average_click_position: null,
      top_queries: [{ query: 'jacket', count: 4, hits: 2 }, { query: 'zzzz', count: 2, hits: 0 }, { query: 'boots', count: 1, hits: 1 }],
      no_result_queries: [{ query: 'zzzz', count: 2 }], per_day: undefined, per_hour: undefined,
    });
    assert.deepEqual((await report(t, { site_id: outlet })).body.top_queries, [{ query: 'coat', count: 1, hits: 1 }]);
    assert.deepEqual((await report(t, { site_id: 'shop', limit: '1' })).body.top_queries, [{ query: 'jacket', count: 4, hits: 2 }]);

    // Every day and every hour of the range, zeros included.
    const days = [range.from, day(Date.parse(range.from) + DAY_MS), range.to];
    assert.deepEqual(site.per_day.map((d: { date: string }) => d.date), days);
    assert.equal(site.per_day.reduce((s: number, d: { searches: number }) => s + d.searches, 0), 8);
    assert.equal(site.per_day.reduce((s: number, d: { no_result_searches: number }) => s + d.no_result_searches, 0), 2);
    assert.equal(site.per_hour.length, 72);
    assert.deepEqual(site.per_hour.slice(0, 2).map((h: { hour: string }) => h.hour), [`${range.from}T00:00:00.000Z`, `${range.from}T01:00:00.000Z`]);
    assert.equal(site.per_hour.reduce((s: number, h: { searches: number }) => s + h.searches, 0), 8);
    const hours = new Set([Math.floor(started / 3_600_000), Math.floor(Date.now() / 3_600_000)].map((h) => new Date(h * 3_600_000).toISOString()));
    for (const h of site.per_hour) if (h.searches > 0) assert.ok(hours.has(h.hour), `searches counted in ${h.hour}`);

    // Multi-search: each counted search its own query_id; a facet-only one none.
    const multi = await t.request('POST', `${K}/multi`, { body: { searches: [{ query: 'jacket', site_id: 'shop' }, { query: 'jacket', limit: 0 }] } });
    assert.equal(multi.status, 200, multi.text);
    assert.match(multi.body.results[0].query_id, /^[A-Za-z0-9_-]{58}$/);
    assert.equal(multi.body.results[1].query_id, null);
    await reportOnce(t, 11);
  });

  test('the report: admin or catalog:read, the range rules, an unknown site', async () => {
    const { t } = a;
    assertInsufficientScope(await report(t, {}, await t.keyWith(['search'])), 'admin catalog:read');
    assert.equal((await report(t, {}, await t.keyWith(['catalog:read']))).status, 200);
    const defaults = await t.request('GET', `${K}/analytics`);
    assert.equal(defaults.status, 200, defaults.text);
    assert.deepEqual([defaults.body.from, defaults.body.to, defaults.body.per_day.length], [day(Date.now() - 6 * DAY_MS), day(Date.now()), 7]);
    const times = await report(t, { from: '2026-03-01T23:30:00+01:00', to: '2026-03-02T10:00:00Z' });
    assert.deepEqual([times.body.from, times.body.to], ['2026-03-01', '2026-03-02']);
    const q = (from: string, to: string) => t.request('GET', `${K}/analytics?from=${from}&to=${to}`);
    assert.deepEqual((await q('2026-03-02', '2026-03-01')).body, { detail: [err(['query', 'from'], 'from (2026-03-02) is after to (2026-03-01)', 'value_error')] });
    assert.equal((await q('2026-01-01', '2026-04-02')).status, 200, '92 days');
    assert.deepEqual((await q('2026-01-01', '2026-04-03')).body, { detail: [err(['query', 'to'], 'The range spans 93 days; a report covers at most 92', 'value_error')] });
    assert.deepEqual((await q('2026-02-30', '2026-03-01')).body, { detail: [err(['query', 'from'], 'Input should be a valid date (YYYY-MM-DD) or date-time', 'date_parsing')] });
    assert.equal((await report(t, { limit: '101' })).status, 422);
    assertError(await report(t, { site_id: 'nowhere' }), 404);
  });

  test('click and conversion events: counted once per event_id, CTR and average position', async () => {
    const { t, product } = await tenantWithShop();
    const searchKey = await t.keyWith(['search']);
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await search(t, { site_id: 'shop', query: 'jacket' }, searchKey)).query_id!);
    const [q1, q2] = ids;
    const batch = [
      click(q1, 1, product.red, 'e1'), click(q1, 2, product.blue, 'e2'), click(q2, 2, product.blue, 'e3'),
      { event_id: 'e4', type: 'conversion', query_id: q1, product_id: product.red },
    ];
    const sent = await events(t, batch, searchKey);
    assert.equal(sent.status, 200, sent.text);
    assert.deepEqual(sent.body, { accepted: 4, duplicates: 0 });
    // A retry after a timeout: nothing counted twice.
    assert.deepEqual((await events(t, batch, searchKey)).body, { accepted: 0, duplicates: 4 });
    assert.deepEqual((await events(t, [batch[0], { event_id: 'e5', type: 'conversion', query_id: q2, product_id: product.blue, position: 2 }, batch[0]])).body, { accepted: 1, duplicates: 2 });

    const expected = { clicks: 3, conversions: 2, click_through_rate: 0.5, conversion_rate: 0.5, average_click_position: 1.67 };
    for (const query of [{}, { site_id: 'shop' }] as Record<string, string>[]) {
      const r = await reportOnce(t, 4, query);
      assert.deepEqual({ clicks: r.clicks, conversions: r.conversions, click_through_rate: r.click_through_rate, conversion_rate: r.conversion_rate, average_click_position: r.average_click_position }, expected);
    }
    assert.equal((await report(t, { site_id: 'outlet' })).body.clicks, 0);
  });

  test('bad events are 422s and nothing of the request is counted: forged, malformed, foreign, expired query_ids, bad fields', async () => {
    const { t, product } = await tenantWithShop();
    const own = (await search(t, { site_id: 'shop', query: 'jacket' })).query_id!;
    const foreign = (await search(a.t, { site_id: 'shop', query: 'jacket' })).query_id!;
    const forged = `${own.slice(0, 20)}${own[20] === 'A' ? 'B' : 'A'}${own.slice(21)}`;
    const client = await stack.client();
    const secret = Buffer.from((await client.get(keys.analyticsSecret))!, 'base64');
    client.disconnect();
    const old = await new QueryIds(async () => secret).issue(t.tenant.id, null, Date.now() - DAY_MS - 60_000, { first: 1, last: 20 });
    const good = click(own, 1, product.red, 'good');
    const res = await events(t, [good, click(forged, 1, product.red), click('abc', 1, product.red), click(foreign, 1, product.red), click(old, 1, product.red)]);
    const notOurs = "Not a query_id of this tenant's product search answers";
    assert.deepEqual(res.body, {
      detail: [
        err(['body', 'events', 1, 'query_id'], notOurs, 'value_error'),
        err(['body', 'events', 2, 'query_id'], notOurs, 'value_error'),
        err(['body', 'events', 3, 'query_id'], notOurs, 'value_error'),
        err(['body', 'events', 4, 'query_id'], 'The query_id is older than 24 hours: events are taken for a day after the search', 'value_error'),
      ],
    });
    assert.equal(res.status, 422);
    const missing = await events(t, [good, { event_id: 'x', type: 'click', query_id: own, product_id: product.red }]);
    assert.deepEqual(missing.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type]), [[['body', 'events', 1, 'position'], 'missing']]);
    for (const bad of [{ ...good, position: 0 }, { ...good, type: 'view' }, { ...good, event_id: 'has space' }, { ...good, event_id: '' }, { ...good, product_id: 'p1' }]) {
      const refused = await events(t, [bad]);
      assert.equal(refused.status, 422, JSON.stringify(bad));
      assert.deepEqual(refused.body.detail[0].loc.slice(0, 3), ['body', 'events', 0]);
    }
    assert.equal((await t.request('POST', `${K}/events`, { body: { events: [] } })).status, 422);
    assert.equal((await t.request('POST', `${K}/events`, { body: { events: Array.from({ length: 1001 }, () => good) } })).status, 422);
    // Nothing was counted: the good event is new.
    assert.deepEqual((await events(t, [good])).body, { accepted: 1, duplicates: 0 });
    assert.equal((await reportOnce(t, 1)).clicks, 1);
  });

  test('from a shop page: the preflight, CORS for an allowed origin, Algolia fields beyond the ones counted ignored', async () => {
    const { t } = a;
    const origin = 'https://shop.example';
    const created = await t.request('POST', '/api/knowledge/api-keys', { body: { name: 'shop', scopes: ['search'], allowed_origins: [origin] } });
    assert.equal(created.status, 201, created.text);
    const preflight = await t.request('OPTIONS', `${K}/events`, { key: undefined, headers: { origin, 'access-control-request-method': 'POST' } });
    assert.equal(preflight.status, 204, preflight.text);
    assert.equal(preflight.headers['access-control-allow-origin'], origin);
    const queryId = (await search(t, { site_id: 'shop', query: 'boots' }, created.body.key)).query_id!;
    const boots = a.product.boots;
    const sent = await t.request('POST', `${K}/events`, {
      key: created.body.key, headers: { origin },
      body: { events: [{ ...click(queryId, 1, boots), userToken: 'shopper-42', eventName: 'Product Clicked', index: 'shop', timestamp: Date.now() }] },
    });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.headers['access-control-allow-origin'], origin);
    const suggested = await suggestions(t, { q: 'ja' }, created.body.key);
    assert.equal(suggested.status, 200, suggested.text);
    assert.equal((await t.request('GET', `${K}/suggestions`, { key: created.body.key, headers: { origin: 'https://elsewhere.example' } })).status, 403);
  });

  test('events of a search-only key are rate limited per key and address (429, Retry-After); catalog:read is not', async () => {
    const { t, product } = await tenantWithShop();
    assert.equal((await t.request('PUT', '/api/knowledge/settings', { body: { search_events_rate_per_s: 2 } })).status, 200);
    const searchKey = await t.keyWith(['search']);
    const queryId = (await search(t, { site_id: 'shop', query: 'jacket' }, searchKey)).query_id!;
    const answers = await Promise.all(Array.from({ length: 6 }, () => events(t, [click(queryId, 1, product.red)], searchKey)));
    const limited = answers.filter((r) => r.status === 429);
    assert.ok(limited.length >= 3, answers.map((r) => r.status).join(','));
    assert.ok(answers.filter((r) => r.status === 200).length >= 1);
    assertError(limited[0], 429);
    assert.ok(Number(limited[0].headers['retry-after']) >= 1);
    const reader = await t.keyWith(['catalog:read']);
    const free = await Promise.all(Array.from({ length: 6 }, () => events(t, [click(queryId, 1, product.red)], reader)));
    assert.deepEqual(free.map((r) => r.status), [200, 200, 200, 200, 200, 200]);
  });

  test('suggestions: popular queries with results by prefix of a word, the threshold, a site or the tenant', async () => {
    const { t, outlet } = await tenantWithShop();
    const searchKey = await t.keyWith(['search']);
    // Each search from another address: another caller (one caller counts once toward a query's suggestion).
    const plan: [string, number][] = [['Blue Jacket', 4], ['red jacket', 3], ['rain boots', 3], ['jacket', 2], ['zzzz', 4]];
    for (const [query, times] of plan) for (let i = 0; i < times; i++) await search(t, { site_id: 'shop', query }, searchKey, `127.0.0.${10 + i}`);
    await search(t, { site_id: outlet, query: 'winter coat' });
    await reportOnce(t, 17);
    const ask = async (query: Record<string, string>) => {
      const res = await suggestions(t, query, searchKey);
      assert.equal(res.status, 200, res.text);
      return res.body.suggestions;
    };
    assert.deepEqual(await ask({ site_id: 'shop', q: 'ja' }), [{ query: 'blue jacket', count: 4 }, { query: 'red jacket', count: 3 }]);
    assert.deepEqual(await ask({ site_id: 'shop', q: 'r' }), [{ query: 'rain boots', count: 3 }, { query: 'red jacket', count: 3 }]);
    assert.deepEqual(await ask({ site_id: 'shop', q: ' RED  Ja' }), [{ query: 'red jacket', count: 3 }]);
    assert.deepEqual(await ask({ site_id: 'shop' }), [{ query: 'blue jacket', count: 4 }, { query: 'rain boots', count: 3 }, { query: 'red jacket', count: 3 }]);
    assert.deepEqual(await ask({ site_id: 'shop', limit: '1' }), [{ query: 'blue jacket', count: 4 }]);
    assert.deepEqual(await ask({ q: 'zz' }), [], 'no-result queries are never suggested');
    assert.deepEqual(await ask({ q: 'coat' }), [], 'a query searched once is not suggested');
    assert.deepEqual(await ask({ q: 'jac' }), [{ query: 'blue jacket', count: 4 }, { query: 'red jacket', count: 3 }]);
    assertError(await suggestions(t, { site_id: 'nowhere' }, searchKey), 404);
    assert.equal((await suggestions(t, { limit: '21' }, searchKey)).status, 422);
    // A lower threshold shows queries searched twice.
    assert.equal((await t.request('PUT', '/api/knowledge/settings', { body: { suggestion_min_searches: 2 } })).status, 200);
    assert.deepEqual(await ask({ site_id: 'shop', q: 'jacket' }), [{ query: 'blue jacket', count: 4 }, { query: 'red jacket', count: 3 }, { query: 'jacket', count: 2 }]);
  });

  test('search_analytics false: nothing counted, query_id null, no suggestions', async () => {
    const { t } = await tenantWithShop();
    const settings = await t.request('PUT', '/api/knowledge/settings', { body: { search_analytics: false } });
    assert.deepEqual(settings.body.search_analytics, false);
    for (let i = 0; i < 3; i++) assert.equal((await search(t, { site_id: 'shop', query: 'jacket' })).query_id, null);
    // Another tenant's search, made after these, is counted: the counts written since would hold them.
    const before = (await report(a.t)).body.searches;
    await search(a.t, { site_id: 'shop', query: 'boots' });
    await reportOnce(a.t, before + 1);
    assert.equal((await report(t)).body.searches, 0);
    assert.deepEqual((await suggestions(t, { q: '' })).body, { suggestions: [] });
  });

  test('settings: defaults and bounds', async () => {
    const t = await stack.tenant();
    const read = (await t.request('GET', '/api/knowledge/settings')).body;
    assert.deepEqual([read.search_analytics, read.analytics_retention_days, read.suggestion_min_searches, read.search_events_rate_per_s, read.search_events_key_rate_per_s], [true, 90, 3, 10, 100]);
    for (const body of [
      { analytics_retention_days: 0 }, { analytics_retention_days: 731 }, { suggestion_min_searches: 0 }, { search_events_rate_per_s: -1 }, { search_analytics: 'yes' },
      { search_events_key_rate_per_s: -1 }, { search_events_key_rate_per_s: 100_001 }, { search_events_key_rate_per_s: 1.5 },
    ]) {
      assert.equal((await t.request('PUT', '/api/knowledge/settings', { body })).status, 422, JSON.stringify(body));
    }
  });
});

describe('memory stays bounded however many distinct queries are typed', () => {
  test('a day keeps at most 1,500 queries per list, the most searched, and expires after the retention', async () => {
    const client = await stack.client();
    try {
      const repo = new SearchAnalyticsRepository(client);
      const counter = new SearchCounter(repo);
      const tenantId = randomUUID();
      const atMs = Date.now();
      const record = (query: string, total: number, caller?: string) =>
        counter.record({ tenantId, siteId: null, query, total, atMs, retentionDays: 5, searcher: caller ? { caller, userToken: null } : null, maxSearchers: 3 });
      for (let i = 0; i < 50; i++) record('popular one', 3, `k1 127.0.0.${i}`);
      for (let i = 0; i < 40; i++) record('popular two', 0);
      for (let i = 0; i < 2000; i++) record(`rare ${i}`, i % 2, i % 2 ? 'k1 127.0.0.1' : undefined);
      await counter.flush();
      for (let i = 0; i < 1400; i++) record(`later ${i}`, 0);
      await counter.flush();
      const today = day(atMs);
      for (const bucket of [ALL_SITES, '_']) {
        const queries = keys.searchQueries(tenantId, bucket, today);
        const [count, hitSums, noResults] = await Promise.all([
          client.zcard(queries), client.zcard(keys.searchHitSums(tenantId, bucket, today)), client.zcard(keys.searchNoResults(tenantId, bucket, today)),
        ]);
        assert.ok(count <= 1500 && count >= 1000, `queries ${count}`);
        assert.equal(hitSums, count, 'hit sums trimmed with their queries');
        assert.ok(noResults <= 1500, `no-result queries ${noResults}`);
        assert.equal(await client.zscore(queries, 'popular one'), '50');
        assert.equal(await client.zscore(queries, 'popular two'), '40');
        assert.equal(await client.zscore(keys.searchNoResults(tenantId, bucket, today), 'popular two'), '40');
        assert.equal(await client.zscore(keys.searchHitSums(tenantId, bucket, today), 'popular one'), '150');
        // Distinct searchers stop at suggestion_min_searches a day; they, and their tags, are trimmed with their queries.
        const searchers = keys.searchSearchers(tenantId, bucket, today);
        const tags = keys.searchSearcherTags(tenantId, bucket, today);
        assert.equal(await client.zscore(searchers, 'popular one'), '3');
        assert.equal((await client.hgetBuffer(tags, 'popular one'))?.length, 3 * 8);
        const [searcherCount, tagCount] = await Promise.all([client.zcard(searchers), client.hlen(tags)]);
        assert.equal(tagCount, searcherCount);
        for (const query of await client.zrange(searchers, '0', '-1')) assert.notEqual(await client.zscore(queries, query), null, `${query} kept with its searches`);
        assert.equal(await client.expiretime(tags), Date.parse(`${today}T00:00:00Z`) / 1000 + 3 * 86_400);
        const searches = Number(await client.hget(keys.searchStats(tenantId, bucket, today), 'searches'));
        assert.equal(searches, 50 + 40 + 2000 + 1400, 'every search counted, trimmed or not');
        const expiresAt = await client.expiretime(queries);
        assert.equal(expiresAt, Date.parse(`${today}T00:00:00Z`) / 1000 + 6 * 86_400);
      }
    } finally {
      client.disconnect();
    }
  });
});
