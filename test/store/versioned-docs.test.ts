// A versioned collection (store/versionedDocs.ts) against a private redis-server: its caps held by
// the writing scripts themselves, concurrent writes included; imports all or nothing, in one call
// up to a slice and staged and swapped beyond; a swap that finds the collection changed does nothing;
// and the layout step that counts the entries of synonym sets stored before the caps.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SYSTEM_ACTOR } from '../../src/store/audit.js';
import { keys } from '../../src/store/keys.js';
import { LAYOUT_VERSION, migrateLayout } from '../../src/store/layoutMigration.js';
import { SLICE, VersionedDocs, type VersionedCaps } from '../../src/store/versionedDocs.js';
import { privateRedis } from './privateRedis.js';

const redis = privateRedis();

interface Doc {
  id: string;
  words: string[];
}

const place = { docs: keys.synonyms, version: keys.synonymsVersion, weights: keys.synonymWeights, entityType: 'synonym_set' as const };
const weighed: VersionedCaps<Doc> = { docs: 5, weight: { of: (d) => d.words.length, max: 12 } };
const doc = (id: string, n = 2): Doc => ({ id, words: Array.from({ length: n }, (_, i) => `${id}-${i}`) });
const importEvent = { action: 'create' as const, entityType: 'synonym_set' as const, entityId: 'import-1' };

describe('a versioned collection within its caps', () => {
  test('put: created, replaced, refused past the documents cap or the weight cap; delete frees both', async () => {
    const docs = new VersionedDocs<Doc>(redis, place, weighed);
    const t = 'caps';
    assert.deepEqual(await docs.put(t, doc('a', 4), SYSTEM_ACTOR), { ok: 'created' });
    assert.deepEqual(await docs.put(t, doc('a', 6), SYSTEM_ACTOR), { ok: 'replaced' });
    assert.deepEqual(await docs.usage(t), { docs: 1, weight: 6 }, 'a replace counts its new weight, not both');
    assert.deepEqual(await docs.put(t, doc('b', 7), SYSTEM_ACTOR), { over: 'weight' });
    assert.deepEqual(await docs.put(t, doc('b', 6), SYSTEM_ACTOR), { ok: 'created' });
    assert.equal(await docs.delete(t, 'a', SYSTEM_ACTOR), true);
    assert.deepEqual(await docs.usage(t), { docs: 1, weight: 6 });
    for (const id of ['c', 'd', 'e']) assert.deepEqual(await docs.put(t, doc(id, 1), SYSTEM_ACTOR), { ok: 'created' });
    assert.deepEqual(await docs.put(t, doc('f', 1), SYSTEM_ACTOR), { ok: 'created' });
    assert.deepEqual(await docs.put(t, doc('g', 1), SYSTEM_ACTOR), { over: 'docs' });
    assert.deepEqual(await docs.put(t, doc('f', 2), SYSTEM_ACTOR), { ok: 'replaced' }, 'a replace is no new document');
    assert.equal(await docs.version(t), 9, 'every write that passed bumped the version, none that was refused');
  });

  test('forty concurrent creations against a cap of five: five pass, the collection holds five', async () => {
    const docs = new VersionedDocs<Doc>(redis, place, { docs: 5 });
    const t = 'race';
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => docs.put(t, doc(`r${i}`), SYSTEM_ACTOR)));
    assert.equal(results.filter((r) => 'ok' in r).length, 5);
    assert.equal((await docs.all(t)).length, 5);
    assert.equal(await redis.exists(keys.synonymWeights(t)), 0, 'a collection without a weight cap keeps no weights');
  });

  test('addMany up to a slice: all or nothing within the caps, one audit event for them all', async () => {
    const docs = new VersionedDocs<Doc>(redis, place, weighed);
    const t = 'small';
    assert.deepEqual(await docs.addMany(t, [doc('a', 5), doc('b', 5), doc('c', 5)], SYSTEM_ACTOR, importEvent), { over: 'weight' });
    assert.deepEqual(await docs.addMany(t, Array.from({ length: 6 }, (_, i) => doc(`x${i}`, 1)), SYSTEM_ACTOR, importEvent), { over: 'docs' });
    assert.equal(await redis.exists(keys.synonyms(t)), 0, 'nothing of a refused import is stored');
    assert.deepEqual(await docs.addMany(t, [doc('a', 5), doc('b', 5)], SYSTEM_ACTOR, importEvent), { ok: 2 });
    assert.deepEqual(await docs.usage(t), { docs: 2, weight: 10 });
    assert.equal(await docs.version(t), 1);
    assert.equal(await redis.xlen(keys.auditOfType(t, 'synonym_set')), 1);
    assert.equal(await redis.xlen(keys.auditOf(t, 'import-1')), 1);
  });

  test('addMany beyond a slice: staged beside the collection and swapped in, the earlier documents kept', async () => {
    const n = SLICE * 2 + 10;
    const docs = new VersionedDocs<Doc>(redis, place, { docs: n + 1, weight: { of: (d) => d.words.length, max: 2 * n + 2 } });
    const t = 'large';
    await docs.put(t, doc('before'), SYSTEM_ACTOR);
    const many = Array.from({ length: n }, (_, i) => doc(`m${i}`));
    assert.deepEqual(await docs.addMany(t, [...many, doc('one-more')], SYSTEM_ACTOR, importEvent), { over: 'docs' });
    assert.deepEqual(await docs.addMany(t, many, SYSTEM_ACTOR, importEvent), { ok: n });
    const all = await docs.all(t);
    assert.equal(all.length, n + 1);
    assert.ok(all.some((d) => d.id === 'before'));
    assert.deepEqual(await docs.usage(t), { docs: n + 1, weight: 2 * n + 2 });
    assert.equal(await redis.ttl(keys.synonyms(t)), -1, 'the swapped-in hash does not expire');
    assert.equal(await redis.ttl(keys.synonymWeights(t)), -1);
    assert.equal(await docs.version(t), 2);
    const staged = await redis.keys(`${keys.synonyms(t)}:staged:*`);
    assert.deepEqual(staged, [], 'no staged copy is left');
  });

  test('a swap that finds the collection changed since its copy began does nothing and drops the copy', async () => {
    const t = 'changed';
    await redis.hset(`${keys.synonyms(t)}:staged:s1`, 'x', '{"id":"x","words":[]}');
    await redis.hset(keys.synonyms(t), 'kept', '{"id":"kept","words":[]}');
    await redis.set(keys.synonymsVersion(t), 4);
    const result = await redis.swapVersionedDocs(
      keys.synonyms(t), keys.synonymsVersion(t), keys.synonymWeights(t), `${keys.synonyms(t)}:staged:s1`, `${keys.synonymWeights(t)}:staged:s1`,
      keys.audit(t), keys.auditOfType(t, 'synonym_set'), keys.auditOf(t, 'i'), 3, 100, '', '', 10, 10, 10, 1, 'action', 'create',
    );
    assert.equal(result, 0);
    assert.deepEqual(await redis.hkeys(keys.synonyms(t)), ['kept']);
    assert.equal(await redis.exists(`${keys.synonyms(t)}:staged:s1`), 0);
  });
});

test('layout 6 → 7 counts the entries of the synonym sets stored before (a root counts)', async () => {
  await redis.hset(keys.tenantSlugs, 'slug-syn', 'tsyn');
  await redis.set(keys.storedLayout('tsyn'), '6');
  await redis.hset(keys.synonyms('tsyn'), {
    s1: JSON.stringify({ id: 's1', root: null, synonyms: ['a', 'b', 'c'] }),
    s2: JSON.stringify({ id: 's2', root: 'r', synonyms: ['x', 'y'] }),
  });
  await migrateLayout(redis);
  assert.deepEqual(await redis.hgetall(keys.synonymWeights('tsyn')), { s1: '3', s2: '3', '*total': '6' });
  assert.equal(await redis.get(keys.storedLayout('tsyn')), LAYOUT_VERSION);
});
