// The knowledge-entry and read scripts on their own, against a private redis-server: writeEntry,
// deleteEntry, pageEntries, projectDocuments, reindexDocuments and readHashes, each return code (store/scripts.ts),
// and that a refused write (or a read) leaves nothing behind.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { auditArgs, auditKeys, type AuditActor } from '../../src/store/audit.js';
import { keys } from '../../src/store/keys.js';
import { readHashes } from '../../src/store/redis.js';
import { deleteEntryCall, pageEntriesCall, projectDocumentsCall, readHashesCall, reindexDocumentsCall, writeEntryCall, type PageEntriesCall } from '../../src/store/scriptCalls.js';
import { WriteResult } from '../../src/store/scripts.js';
import { keyspace, newest, privateRedis } from './privateRedis.js';

const T = 'tenant-1';
const MAXLEN = 1000;
const CREATED = 1_700_000_000_000;
const actor: AuditActor = { userId: 'u1', credentialId: 'k1', clientId: null, source: 'api' };

const redis = privateRedis();

describe('writeEntry and deleteEntry', () => {
  const restricted = keys.entriesByCeiling(T, 'restricted');
  const notes = keys.entriesByType(T, 'note');
  const memories = keys.entriesByType(T, 'memory');

  const write = (id: string, c: { expectedRev?: string; category?: string; leave?: string[]; join?: string[]; expiresMs?: number; fields?: string[] }) =>
    redis.writeEntry(...writeEntryCall({
      entry: keys.entry(T, id), changes: keys.changes(T), audit: auditKeys(T, 'knowledge_entry', id), expiring: keys.entriesExpiring(T),
      category: keys.category(T, c.category ?? 'cat-1'), embeddingCounts: keys.embeddingCounts(T), leave: c.leave ?? [], join: c.join ?? [], id, expectedRev: c.expectedRev ?? '',
      createdMs: CREATED, expiresMs: c.expiresMs ?? '', maxlen: MAXLEN,
      event: auditArgs(actor, { action: c.expectedRev ? 'update' : 'create', entityType: 'knowledge_entry', entityId: id }),
      fields: ['doc', JSON.stringify({ id }), ...(c.fields ?? [])],
    }));
  const del = (id: string, expectedRev: string, indexes: string[]) =>
    redis.deleteEntry(...deleteEntryCall({
      entry: keys.entry(T, id), changes: keys.changes(T), audit: auditKeys(T, 'knowledge_entry', id), embeddingCounts: keys.embeddingCounts(T),
      expiring: keys.entriesExpiring(T), indexes, id, expectedRev, maxlen: MAXLEN, event: auditArgs(actor, { action: 'delete', entityType: 'knowledge_entry', entityId: id }),
    }));

  before(async () => {
    await redis.set(keys.category(T, 'cat-1'), JSON.stringify({ id: 'cat-1' }));
  });

  test('writeEntry: Done with version 1 on create: fields, indexes, expiry, one change entry, the audit event', async () => {
    const expires = CREATED + 60_000;
    assert.deepEqual(
      await write('e1', { join: [restricted, notes], expiresMs: expires, fields: ['f:title', 'Title', 'f:none', ''] }),
      [WriteResult.Done, 1],
    );
    assert.deepEqual(await redis.hgetall(keys.entry(T, 'e1')), { doc: '{"id":"e1"}', rev: '1', 'f:title': 'Title' });
    assert.deepEqual(await Promise.all([restricted, notes].map((set) => redis.zscore(set, 'e1'))), [String(CREATED), String(CREATED)]);
    assert.equal(await redis.zscore(keys.entriesExpiring(T), 'e1'), String(expires));
    assert.deepEqual(await newest(redis, keys.changes(T)), { op: 'upsert', kind: 'entry', id: 'e1', rev: '1' });
    const event = await newest(redis, keys.auditOf(T, 'e1'));
    assert.deepEqual([event?.action, event?.version], ['create', '1']);
  });

  test('writeEntry: Done with the next version on update: indexes left and joined, an empty value removes the field, no expiry clears it', async () => {
    assert.deepEqual(await write('e1', { expectedRev: '1', leave: [restricted, notes], join: [restricted, memories], fields: ['f:title', ''] }), [WriteResult.Done, 2]);
    assert.deepEqual(await redis.hgetall(keys.entry(T, 'e1')), { doc: '{"id":"e1"}', rev: '2' });
    assert.deepEqual(await Promise.all([restricted, notes, memories].map((set) => redis.zscore(set, 'e1'))), [String(CREATED), null, String(CREATED)]);
    assert.equal(await redis.zscore(keys.entriesExpiring(T), 'e1'), null);
    assert.equal((await newest(redis, keys.auditOf(T, 'e1')))?.version, '2');
  });

  test('writeEntry: Refused when the category doc is missing, Changed for a stale rev or a create of an existing entry; nothing written', async () => {
    const before = await keyspace(redis);
    assert.deepEqual(await write('e2', { category: 'gone', join: [restricted] }), [WriteResult.Refused]);
    assert.deepEqual(await write('e1', { expectedRev: '1', join: [restricted] }), [WriteResult.Changed]);
    assert.deepEqual(await write('e1', { join: [restricted] }), [WriteResult.Changed]);
    assert.deepEqual(await write('e1', { expectedRev: '1', category: 'gone' }), [WriteResult.Changed], 'the rev is checked first');
    assert.deepEqual(await keyspace(redis), before);
  });

  test('deleteEntry: Changed for a stale rev (nothing written), Done (indexes, expiry, change entry, audit event), then Missing', async () => {
    await redis.zadd(keys.entriesExpiring(T), CREATED, 'e1');
    const indexes = [restricted, memories];
    const before = await keyspace(redis);
    assert.equal(await del('e1', '1', indexes), WriteResult.Changed);
    assert.deepEqual(await keyspace(redis), before);

    assert.equal(await del('e1', '2', indexes), WriteResult.Done);
    assert.equal(await redis.exists(keys.entry(T, 'e1')), 0);
    assert.deepEqual(await Promise.all([...indexes, keys.entriesExpiring(T)].map((set) => redis.zscore(set, 'e1'))), [null, null, null]);
    assert.deepEqual(await newest(redis, keys.changes(T)), { op: 'delete', kind: 'entry', id: 'e1' });
    const event = await newest(redis, keys.auditOf(T, 'e1'));
    assert.deepEqual([event?.action, event?.version], ['delete', '2'], 'the event names the version deleted');

    const deleted = await keyspace(redis);
    assert.equal(await del('e1', '2', indexes), WriteResult.Missing);
    assert.deepEqual(await keyspace(redis), deleted);
  });

  test('the embedding status counts follow the entry: a write counts its status, an update moves it, a delete drops it', async () => {
    const counts = () => redis.hgetall(keys.embeddingCounts(T));
    await redis.del(keys.embeddingCounts(T));
    assert.deepEqual(await write('c1', { join: [restricted], fields: ['embedding_status', 'pending'] }), [WriteResult.Done, 1]);
    assert.deepEqual(await counts(), { 'entry:pending': '1' });
    assert.deepEqual(await write('c1', { expectedRev: '1', leave: [restricted], join: [restricted], fields: ['embedding_status', 'ready'] }), [WriteResult.Done, 2]);
    assert.deepEqual(await counts(), { 'entry:pending': '0', 'entry:ready': '1' });
    assert.deepEqual(await write('c1', { expectedRev: '2', leave: [restricted], join: [restricted] }), [WriteResult.Done, 3], 'texts unchanged: the status stays');
    assert.deepEqual(await counts(), { 'entry:pending': '0', 'entry:ready': '1' });
    assert.equal(await del('c1', '3', [restricted]), WriteResult.Done);
    assert.deepEqual(await counts(), { 'entry:pending': '0', 'entry:ready': '0' });
  });
});

describe('pageEntries', () => {
  const NOW = 10_000;
  const base = keys.entriesByCeiling(T, 'internal');
  const personal = keys.entriesByOwner(T, 'u1');
  const notes = keys.entriesByType(T, 'note');
  const project = keys.entriesByProject(T, 'x');
  const expiring = keys.entriesExpiring(T);

  const page = (c: Partial<PageEntriesCall>) =>
    redis.pageEntries(...pageEntriesCall({
      base, personal: base, expiring, scratch: keys.entriesTmp(T, 'scratch'), filters: [], nowMs: NOW, includeExpired: '0',
      offset: 0, limit: 10, addPersonal: '0', ...c,
    }));
  const mine = { personal, addPersonal: '1' } as const;

  before(async () => {
    // In created order: a, b, p1 (personal), c (expired), d, e (expires later), p2 (personal).
    await redis.zadd(base, 1000, 'a', 2000, 'b', 3000, 'c', 4000, 'd', 5000, 'e');
    await redis.zadd(personal, 2500, 'p1', 6000, 'p2');
    await redis.zadd(notes, 2000, 'b', 4000, 'd', 5000, 'e', 6000, 'p2');
    await redis.zadd(project, 3000, 'c', 4000, 'd', 5000, 'e');
    await redis.zadd(expiring, NOW - 1, 'c', NOW + 1000, 'e');
  });

  test('the total and the ids in created order; expired entries skipped unless includeExpired', async () => {
    assert.deepEqual(await page({}), [4, 'a', 'b', 'd', 'e']);
    assert.deepEqual(await page({ includeExpired: '1' }), [5, 'a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(await page({ nowMs: NOW + 1000 }), [3, 'a', 'b', 'd'], 'expired at its expiry ms');
  });

  test('offset and limit count visible entries only', async () => {
    assert.deepEqual(await page({ offset: 1, limit: 2 }), [4, 'b', 'd']);
    assert.deepEqual(await page({ offset: 2, limit: 2 }), [4, 'd', 'e']);
    assert.deepEqual(await page({ offset: 3, limit: 5 }), [4, 'e']);
    assert.deepEqual(await page({ offset: 4 }), [4]);
    assert.deepEqual(await page({ limit: 0 }), [4]);
  });

  test('the personal set is added with addPersonal; nothing is stored', async () => {
    const before = await keyspace(redis);
    assert.deepEqual(await page(mine), [6, 'a', 'b', 'p1', 'd', 'e', 'p2']);
    assert.deepEqual(await page({ ...mine, offset: 2, limit: 2 }), [6, 'p1', 'd']);
    assert.deepEqual(await page({ personal }), [4, 'a', 'b', 'd', 'e'], "addPersonal '0': the base alone");
    assert.deepEqual(await page({ base: personal, personal, addPersonal: '1' }), [2, 'p1', 'p2'], 'the personal set as base');
    assert.deepEqual(await keyspace(redis), before, 'the scratch key is removed');
  });

  test('a filter set intersects; several intersect together; expired ones skipped and not counted', async () => {
    assert.deepEqual(await page({ filters: [notes] }), [3, 'b', 'd', 'e']);
    assert.deepEqual(await page({ filters: [notes], ...mine }), [4, 'b', 'd', 'e', 'p2']);
    assert.deepEqual(await page({ filters: [notes], ...mine, offset: 1, limit: 2 }), [4, 'd', 'e']);
    assert.deepEqual(await page({ filters: [project] }), [2, 'd', 'e']);
    assert.deepEqual(await page({ filters: [project], includeExpired: '1' }), [3, 'c', 'd', 'e']);
    assert.deepEqual(await page({ filters: [notes, project], offset: 1 }), [2, 'e']);
    assert.deepEqual(await page({ filters: [keys.entriesByType(T, 'none')] }), [0]);
  });
});

describe('projectDocuments, reindexDocuments and readHashes', () => {
  const doc = (id: string) => keys.product(T, `proj-${id}`);
  const fields = ['f:version', 'v2', 'f:title', 'Title', 'f:old', ''];

  test('projectDocuments: projects only documents at the expected rev and not at the version already; the count', async () => {
    await redis.hset(doc('current'), 'rev', '1', 'f:old', 'x');
    await redis.hset(doc('moved-on'), 'rev', '2');
    await redis.hset(doc('projected'), 'rev', '1', 'f:version', 'v2', 'f:title', 'Before');
    const untouched = await Promise.all(['moved-on', 'projected'].map((id) => redis.hgetall(doc(id))));
    const call = projectDocumentsCall({
      versionField: 'f:version', version: 'v2',
      documents: ['current', 'moved-on', 'projected', 'missing'].map((id) => ({ hash: doc(id), expectedRev: '1', fields })),
    });
    assert.equal(await redis.projectDocuments(...call), 1);
    assert.deepEqual(await redis.hgetall(doc('current')), { rev: '1', 'f:version': 'v2', 'f:title': 'Title' }, 'an empty value removes the field');
    assert.deepEqual(await Promise.all(['moved-on', 'projected'].map((id) => redis.hgetall(doc(id)))), untouched);
    assert.equal(await redis.exists(doc('missing')), 0);
    assert.equal(await redis.projectDocuments(...call), 0, 'a second run finds them all projected');
  });

  test('reindexDocuments: writes each present hash\'s field again (here rev), unchanged (a keyspace event per hash), creates nothing; the count', async () => {
    await redis.hset(doc('again-1'), 'rev', '4', 'doc', 'd');
    await redis.hset(doc('again-2'), 'doc', 'no rev');
    const before = await Promise.all(['again-1', 'again-2'].map((id) => redis.hgetall(doc(id))));
    // The event is what makes the Query Engine index a hash again (search/redisQuery/tenantIndexes.ts).
    await redis.config('SET', 'notify-keyspace-events', 'Kh');
    const subscriber = (redis as Redis).duplicate();
    const events: string[] = [];
    const ended = new Promise<void>((resolve) => subscriber.on('pmessage', (_pattern: string, channel: string, message: string) => {
      if (channel === 'test:end') resolve();
      else events.push(`${message} ${channel.slice(channel.indexOf(':') + 1)}`);
    }));
    try {
      if (subscriber.status !== 'ready') await subscriber.connect();
      await subscriber.psubscribe('__keyspace@0__:*', 'test:end');
      assert.equal(await redis.reindexDocuments(...reindexDocumentsCall([doc('again-1'), doc('again-2'), doc('again-3')], 'rev')), 1);
      await redis.publish('test:end', '');
      await ended;
    } finally {
      subscriber.disconnect();
      await redis.config('SET', 'notify-keyspace-events', '');
    }
    assert.deepEqual(events, [`hset ${doc('again-1')}`], 'one hset event, for the hash with a rev');
    assert.deepEqual(await Promise.all(['again-1', 'again-2'].map((id) => redis.hgetall(doc(id)))), before);
    assert.equal(await redis.exists(doc('again-3')), 0);
  });

  test('readHashes: the fields of each hash in key order, nil for a missing hash or field', async () => {
    await redis.hset(doc('read-1'), 'doc', 'd1', 'rev', '1');
    await redis.hset(doc('read-3'), 'rev', '3');
    const hashes = [doc('read-1'), doc('read-2'), doc('read-3')];
    assert.deepEqual(await redis.readHashes(...readHashesCall(hashes, ['doc', 'rev'])), ['d1', '1', null, null, null, '3']);
    assert.deepEqual(await readHashes(redis, hashes, ['rev', 'doc']), [['1', 'd1'], [null, null], ['3', null]]);
    assert.deepEqual(await readHashes(redis, [], ['rev']), []);
  });
});
