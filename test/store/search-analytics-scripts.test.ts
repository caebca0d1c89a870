// The search analytics scripts on their own, against a private redis-server: searchEvents (a
// product of the tenant or the search's site, all or nothing; one click and one conversion per
// search and product; event ids once), countSearches-6 (distinct searchers by either tag, at most
// the day's bound), suggestionCandidates (the summed distinct searchers, the block list, by
// searches) and blockSuggestion-4 / unblockSuggestion-4 (the bound, the audit event).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { auditArgs, auditKeys, type AuditActor } from '../../src/store/audit.js';
import { keys } from '../../src/store/keys.js';
import { ALL_SITES, SearchAnalyticsRepository, type PlacedEvent, type SearchTally } from '../../src/store/searchAnalytics.js';
import { privateRedis } from './privateRedis.js';

const redis = privateRedis();
const actor: AuditActor = { userId: 'u1', credentialId: 'k1', clientId: null, source: 'api' };
const DAY = '2026-03-01';
const FAR = Date.parse('2030-01-01T00:00:00Z') / 1000;

describe('searchEvents', () => {
  const T = randomUUID();
  const site = randomUUID();
  const other = randomUUID();
  const [p1, p2, foreign] = [randomUUID(), randomUUID(), randomUUID()];
  const repo = () => new SearchAnalyticsRepository(redis);
  const event = (e: Partial<PlacedEvent>): PlacedEvent =>
    ({ eventId: randomUUID(), type: 'click', queryId: 'q1', day: DAY, bucket: site, siteId: site, productId: p1, position: 1, ...e });
  const stats = (bucket: string) => redis.hgetall(keys.searchStats(T, bucket, DAY));

  test('a product not of the search\'s site (or not of the tenant) counts nothing of the call and is answered by index', async () => {
    await redis.zadd(keys.siteProducts(T, site), 1, p1, 2, p2);
    await redis.zadd(keys.siteProducts(T, other), 3, foreign);
    await redis.zadd(keys.products(T), 1, p1, 2, p2, 3, foreign);
    const outcome = await repo().events(T, [event({}), event({ productId: foreign }), event({ productId: randomUUID() })], () => FAR);
    assert.deepEqual(outcome, { unknownProducts: [1, 2] });
    assert.deepEqual(await stats(site), {});
    assert.equal(await redis.exists(keys.searchQueryEvents(T, 'q1')), 0);
    // Without a site the tenant's products are taken.
    assert.deepEqual(await repo().events(T, [event({ queryId: 'q0', bucket: '_', siteId: null, productId: foreign })], () => FAR), { accepted: 1, duplicates: 0 });
    assert.deepEqual(await repo().events(T, [event({ queryId: 'q0', bucket: '_', siteId: null, productId: randomUUID() })], () => FAR), { unknownProducts: [0] });
  });

  test('one click and one conversion per search and product, whatever the event ids; the search clicked and converted once', async () => {
    const clicks = Array.from({ length: 50 }, () => event({ position: 2 }));
    assert.deepEqual(await repo().events(T, clicks, () => FAR), { accepted: 1, duplicates: 49 });
    const more = [event({ productId: p2, position: 1 }), event({ type: 'conversion', position: null }), event({ type: 'conversion', position: null })];
    assert.deepEqual(await repo().events(T, more, () => FAR), { accepted: 2, duplicates: 1 });
    // Another search of the same product counts again.
    assert.deepEqual(await repo().events(T, [event({ queryId: 'q2' })], () => FAR), { accepted: 1, duplicates: 0 });
    // The tenant's bucket holds the click of the search without a site (q0) too.
    for (const [bucket, q0] of [[site, 0], [ALL_SITES, 1]] as const) {
      const s = await stats(bucket);
      assert.deepEqual([s.clicks, s.click_position_sum, s.clicked_searches, s.conversions, s.converted_searches].map(Number), [3 + q0, 4 + q0, 2 + q0, 1, 1], bucket);
    }
    assert.deepEqual(await redis.hgetall(keys.searchQueryEvents(T, 'q1')), { [`click:${p1}`]: '1', [`click:${p2}`]: '1', click: '1', [`conversion:${p1}`]: '1', conversion: '1' });
    const ttl = await redis.ttl(keys.searchQueryEvents(T, 'q1'));
    assert.ok(ttl > 47 * 3600 && ttl <= 48 * 3600, `${ttl} s`);
  });

  test('an event id counted before is a duplicate, even once its product is gone', async () => {
    const once = event({ queryId: 'q3', productId: p2 });
    assert.deepEqual(await repo().events(T, [once], () => FAR), { accepted: 1, duplicates: 0 });
    await redis.zrem(keys.siteProducts(T, site), p2);
    assert.deepEqual(await repo().events(T, [once], () => FAR), { accepted: 0, duplicates: 1 });
  });
});

describe('countSearches and suggestionCandidates', () => {
  const T = randomUUID();
  const repo = () => new SearchAnalyticsRepository(redis);
  const tag = (n: number) => Buffer.from([0, 0, 0, n]);
  const none = Buffer.alloc(4);
  const record = (caller: number, token?: number) => Buffer.concat([tag(caller), token === undefined ? none : tag(token)]);
  const tally = (queries: Record<string, number>, searchers: Record<string, Buffer[]>): SearchTally => ({
    searches: 0, noResults: 0, hours: new Array<number>(24).fill(0),
    queries: new Map(Object.entries(queries).map(([q, count]) => [q, { count, hitSum: count }])), noResultQueries: new Map(),
    searchers: new Map(Object.entries(searchers).map(([q, list]) => [q, Buffer.concat(list)])),
  });
  const count = (day: string, t: SearchTally, maxSearchers = 3) =>
    repo().count(T, ALL_SITES, day, t, { expireAt: FAR, searcherTagsExpireAt: FAR, maxSearchers });
  const searchers = (day: string, query: string) => redis.zscore(keys.searchSearchers(T, ALL_SITES, day), query);

  test('a searcher counts once a day per query: by its caller tag, or by its user_token tag; the count stops at the bound', async () => {
    await count(DAY, tally({ a: 3 }, { a: [record(1), record(1), record(1)] }));
    assert.equal(await searchers(DAY, 'a'), '1');
    // The same caller with a user_token (which its record takes), that user_token from another caller: the same searcher.
    await count(DAY, tally({ a: 2 }, { a: [record(1, 7), record(2, 7)] }));
    assert.equal(await searchers(DAY, 'a'), '1');
    await count(DAY, tally({ a: 1 }, { a: [record(3, 8)] }));
    assert.equal(await searchers(DAY, 'a'), '2');
    // A caller tag equal to a stored user_token tag is another searcher: tags are compared at their place.
    await count(DAY, tally({ a: 1 }, { a: [record(8)] }));
    assert.equal(await searchers(DAY, 'a'), '3');
    await count(DAY, tally({ a: 2 }, { a: [record(4), record(5)] }));
    assert.equal(await searchers(DAY, 'a'), '3', 'at most suggestion_min_searches a day');
    assert.equal((await redis.hgetBuffer(keys.searchSearcherTags(T, ALL_SITES, DAY), 'a'))?.length, 24);
    assert.equal(await redis.zscore(keys.searchQueries(T, ALL_SITES, DAY), 'a'), '9', 'every search counted');
  });

  test('candidates: distinct searchers summed over the days reach the threshold, blocked queries left out, most searched first', async () => {
    const days = ['2026-03-02', '2026-03-03'];
    await count(days[0], tally({ popular: 10, lonely: 30, split: 2, blocked: 5 }, { popular: [record(1), record(2)], lonely: [record(1)], split: [record(1)], blocked: [record(1), record(2), record(3)] }));
    await count(days[1], tally({ popular: 1, split: 2 }, { popular: [record(1)], split: [record(1), record(2)] }));
    const top = (minSearchers: number) => repo().suggestionCandidates(T, ALL_SITES, days, { limit: 10, minSearchers });
    assert.deepEqual(await top(3), [
      { query: 'popular', count: 11, hitSum: 11 }, { query: 'blocked', count: 5, hitSum: 5 }, { query: 'split', count: 4, hitSum: 4 },
    ]);
    assert.equal(await redis.eval(`return redis.call('ZADD', KEYS[1], 1, 'blocked')`, 1, keys.suggestionsBlocked(T)), 1);
    assert.deepEqual((await top(3)).map((q) => q.query), ['popular', 'split']);
    assert.deepEqual((await top(1)).map((q) => q.query), ['lonely', 'popular', 'split'], 'searches, not searchers, order them');
    assert.deepEqual((await repo().suggestionCandidates(T, ALL_SITES, days, { limit: 1, minSearchers: 1 })).map((q) => q.query), ['lonely']);
    assert.deepEqual(await redis.keys(keys.searchAnalyticsTmp(T, '*')), [], 'the scratch keys are gone');
  });
});

describe('blockSuggestion and unblockSuggestion', () => {
  const T = randomUUID();
  const block = (query: string, max: number) => redis.blockSuggestion(
    keys.suggestionsBlocked(T), ...auditKeys(T, 'blocked_suggestion', 'e1'), query, 1000, max,
    ...auditArgs(actor, { action: 'create', entityType: 'blocked_suggestion', entityId: 'e1', details: { query } }),
  );
  const unblock = (query: string) => redis.unblockSuggestion(
    keys.suggestionsBlocked(T), ...auditKeys(T, 'blocked_suggestion', 'e1'), query,
    ...auditArgs(actor, { action: 'delete', entityType: 'blocked_suggestion', entityId: 'e1', details: { query } }),
  );

  test('blocked now (audited), blocked before (nothing written), the list full (nothing written); unblocked once', async () => {
    assert.equal(await block('a', 2), 1);
    assert.equal(await block('a', 2), 2);
    assert.equal(await block('b', 2), 1);
    assert.equal(await block('c', 2), -1);
    assert.deepEqual(await redis.zrange(keys.suggestionsBlocked(T), '0', '-1'), ['a', 'b']);
    assert.equal(await redis.xlen(keys.auditOfType(T, 'blocked_suggestion')), 2);
    assert.equal(await unblock('a'), 1);
    assert.equal(await unblock('a'), 0);
    assert.equal(await block('c', 2), 1, 'room again');
    assert.equal(await redis.xlen(keys.audit(T)), 4);
  });
});
