// The Lua scripts on their own, against a private redis-server: each return code of each script
// (store/scripts.ts), and that a refused write leaves nothing behind.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { auditArgs, auditKeys, type AuditActor } from '../../src/store/audit.js';
import { keys } from '../../src/store/keys.js';
import { dropStaleVectorsCall } from '../../src/store/scriptCalls.js';
import { GrantResult, VectorsResult, WriteResult } from '../../src/store/scripts.js';
import { toBytes } from '../../src/store/vectorBytes.js';
import { collectionOf, PRODUCT_TEXT_FIELDS, schema, TERMS_SINCE, VECTOR_FILTER_FIELDS } from '../../src/search/redisQuery/schema.js';
import { privateRedis } from './privateRedis.js';

const T = 'tenant-1';
const MAXLEN = 1000;
const actor: AuditActor = { userId: 'u1', credentialId: 'k1', clientId: null, source: 'api' };

const redis = privateRedis();

const siteCall = (id: string, slug: string) => [
  keys.site(T, id), keys.sites(T), keys.siteSlugs(T), keys.defaultSite(T), keys.changes(T), ...auditKeys(T, 'site', id),
  id, slug, JSON.stringify({ id, slug }), 1000, '0', MAXLEN, ...auditArgs(actor, { action: 'create', entityType: 'site', entityId: id }),
] as const;

describe('sites', () => {
  test('createSite: Done, then Refused for a slug taken, which writes nothing', async () => {
    assert.equal(await redis.createSite(...siteCall('s1', 'shop')), WriteResult.Done);
    assert.equal(await redis.get(keys.defaultSite(T)), 's1', 'the first site is the default');
    const events = await redis.xlen(keys.audit(T));
    assert.equal(await redis.createSite(...siteCall('s2', 'shop')), WriteResult.Refused);
    assert.equal(await redis.exists(keys.site(T, 's2')), 0);
    assert.equal(await redis.xlen(keys.audit(T)), events, 'no audit event for a refused write');
  });

  test('updateSite: Changed when the document is not the one read, Missing when gone', async () => {
    const update = (expected: string) =>
      redis.updateSite(
        keys.site(T, 's1'), keys.defaultSite(T), keys.changes(T), ...auditKeys(T, 'site', 's1'),
        's1', expected, JSON.stringify({ id: 's1', slug: 'shop', name: 'new' }), '0', MAXLEN,
        ...auditArgs(actor, { action: 'update', entityType: 'site', entityId: 's1' }),
      );
    assert.equal(await update('{"stale":true}'), WriteResult.Changed);
    assert.equal(await update(JSON.stringify({ id: 's1', slug: 'shop' })), WriteResult.Done);
    assert.equal(
      await redis.updateSite(
        keys.site(T, 'gone'), keys.defaultSite(T), keys.changes(T), ...auditKeys(T, 'site', 'gone'),
        'gone', '{}', '{}', '0', MAXLEN, ...auditArgs(actor, { action: 'update', entityType: 'site', entityId: 'gone' }),
      ),
      WriteResult.Missing,
    );
  });

  test('deleteSite: Done, then Missing; its products are marked for the purge', async () => {
    const del = () =>
      redis.deleteSite(
        keys.site(T, 's1'), keys.sites(T), keys.siteSlugs(T), keys.defaultSite(T), keys.changes(T), keys.sitesPurging(T),
        ...auditKeys(T, 'site', 's1'), 's1', 'shop', MAXLEN, ...auditArgs(actor, { action: 'delete', entityType: 'site', entityId: 's1' }),
      );
    assert.equal(await del(), WriteResult.Done);
    assert.equal(await redis.sismember(keys.sitesPurging(T), 's1'), 1);
    assert.equal(await del(), WriteResult.Missing);
  });
});

describe('categories', () => {
  const create = (id: string, parent: string | null) =>
    redis.createCategory(
      keys.category(T, id), keys.categories(T), keys.categoryParents(T), keys.category(T, parent ?? id), keys.categoryChildren(T, parent),
      keys.changes(T), ...auditKeys(T, 'category', id), id, JSON.stringify({ id, parent_id: parent }), 1000, parent ?? '', MAXLEN,
      ...auditArgs(actor, { action: 'create', entityType: 'category', entityId: id }),
    );
  const doc = async (id: string) => (await redis.get(keys.category(T, id)))!;

  test('createCategory: Refused under a missing parent; Done at the top and below', async () => {
    assert.equal(await create('child', 'nobody'), WriteResult.Refused);
    assert.equal(await redis.exists(keys.category(T, 'child')), 0);
    assert.equal(await create('top', null), WriteResult.Done);
    assert.equal(await create('child', 'top'), WriteResult.Done);
  });

  test('updateCategory: Cycle when moved below its own child', async () => {
    const root = await doc('top');
    const moved = JSON.stringify({ id: 'top', parent_id: 'child' });
    assert.equal(
      await redis.updateCategory(
        keys.category(T, 'top'), keys.categoryParents(T), keys.categoryChildren(T, null), keys.categoryChildren(T, 'child'),
        keys.category(T, 'child'), keys.changes(T), ...auditKeys(T, 'category', 'top'), 'top', root, moved, 'child', MAXLEN,
        ...auditArgs(actor, { action: 'update', entityType: 'category', entityId: 'top' }),
      ),
      WriteResult.Cycle,
    );
    assert.equal(await doc('top'), root, 'unchanged');
  });

  test('deleteCategory: Refused with children, HasEntries with entries, Changed when stale, then Done', async () => {
    const del = async (id: string, parent: string | null, expected?: string) =>
      redis.deleteCategory(
        keys.category(T, id), keys.categories(T), keys.categoryParents(T), keys.categoryChildren(T, id), keys.categoryChildren(T, parent),
        keys.categoryEntries(T, id), keys.changes(T), ...auditKeys(T, 'category', id), id, expected ?? (await doc(id)), MAXLEN,
        ...auditArgs(actor, { action: 'delete', entityType: 'category', entityId: id }),
      );
    assert.equal(await del('top', null), WriteResult.Refused);
    await redis.zadd(keys.categoryEntries(T, 'child'), 1, 'entry-1');
    assert.equal(await del('child', 'top'), WriteResult.HasEntries);
    await redis.del(keys.categoryEntries(T, 'child'));
    assert.equal(await del('child', 'top', '{"stale":1}'), WriteResult.Changed);
    assert.equal(await del('child', 'top'), WriteResult.Done);
    assert.equal(await del('top', null), WriteResult.Done);
  });
});

test('createUser: Refused for an e-mail address taken; deleteAudited: Done once, then Missing', async () => {
  const create = (id: string) =>
    redis.createUser(
      keys.user(T, id), keys.users(T), keys.userEmails(T), ...auditKeys(T, 'user', id), id, 'a@b.test', JSON.stringify({ id }), 1000,
      ...auditArgs(actor, { action: 'create', entityType: 'user', entityId: id }),
    );
  assert.equal(await create('u1'), WriteResult.Done);
  assert.equal(await create('u2'), WriteResult.Refused);
  const del = () =>
    redis.deleteAudited(keys.user(T, 'u1'), keys.users(T), ...auditKeys(T, 'user', 'u1'), 'u1',
      ...auditArgs(actor, { action: 'delete', entityType: 'user', entityId: 'u1' }));
  const events = await redis.xlen(keys.auditOf(T, 'u1'));
  assert.equal(await del(), WriteResult.Done);
  assert.equal(await del(), WriteResult.Missing);
  assert.equal(await redis.xlen(keys.auditOf(T, 'u1')), events + 1, 'one event for the delete, none for the second');
});

test('takeToken: a bucket of `rate` tokens, then the wait in ms', async () => {
  const bucket = keys.rateBucket(T, 'k1');
  for (let i = 0; i < 3; i++) assert.equal(await redis.takeToken(bucket, 3), 0);
  const wait = await redis.takeToken(bucket, 3);
  assert.ok(wait > 0 && wait <= 334, `waits ${wait} ms`);
});

test('storeVectors: Stale when the texts changed since they were read, Stored for the current ones, counted as ready and in the rate', async () => {
  const product = keys.product(T, 'p1');
  await redis.hset(product, 'text_hash', 'current', 'rev', '1', 'embedding_status', 'pending');
  await redis.hset(keys.embeddingCounts(T), 'product:pending', 1);
  const vector = toBytes(Float32Array.from([0.6, 0.8]));
  const store = (textHash: string) =>
    redis.storeVectors(product, keys.changes(T), keys.embeddingCounts(T), keys.embeddingRate(T), keys.embeddingModel(T), keys.productVectors(T, 'p1'), keys.productSearch(T, 'p1'), textHash, 'm', 'product', 'p1', MAXLEN, 1000, 970, 'v:m:description', vector);
  assert.equal(await store('old'), VectorsResult.Stale);
  assert.equal(await redis.exists(keys.productVectors(T, 'p1')), 0);
  assert.equal(await store('current'), VectorsResult.Stored);
  assert.equal(await redis.get(keys.embeddingModel(T)), 'm', 'the first vectors make their model the tenant’s');
  assert.deepEqual(await redis.hgetBuffer(keys.productVectors(T, 'p1'), 'v:m:description'), vector, 'a product\'s vectors are in its vector hash');
  assert.equal(await redis.hget(product, 'embedding_status'), 'ready');
  assert.deepEqual(await redis.hgetall(keys.embeddingCounts(T)), { 'product:pending': '0', 'product:ready': '1' });
  assert.deepEqual(await redis.hgetall(keys.embeddingRate(T)), { 1000: '1' });
});

test('storeVectors: a product\'s first vectors make its vector hash with the filter fields of its search hash and their digest; later ones leave them', async () => {
  const [product, search, vectors] = [keys.product(T, 'p2'), keys.productSearch(T, 'p2'), keys.productVectors(T, 'p2')];
  await redis.hset(product, 'text_hash', 'h', 'rev', '1', 'embedding_status', 'pending');
  await redis.hset(search, { _d: 'sd', _vd: 'vd', 'f:id': 'p2', 'f:site': 's1', 'f:lang': 'de', 'f:price': '9.90', 'f:title': 'lampe', 'f:parent': '0' });
  const store = (vector: Buffer) =>
    redis.storeVectors(product, keys.changes(T), keys.embeddingCounts(T), keys.embeddingRate(T), keys.embeddingModel(T), vectors, search, 'h', 'm', 'product', 'p2', MAXLEN, 1000, 970, 'v:m:description', vector);
  const first = toBytes(Float32Array.from([1, 0]));
  assert.equal(await store(first), VectorsResult.Stored);
  assert.deepEqual(await redis.hgetall(vectors), { _d: 'vd', 'f:id': 'p2', 'f:site': 's1', 'f:lang': 'de', 'f:parent': '0', 'v:m:description': first.toString() });
  await redis.hset(search, 'f:site', 's2');
  const second = toBytes(Float32Array.from([0, 1]));
  assert.equal(await store(second), VectorsResult.Stored);
  assert.equal(await redis.hget(vectors, 'f:site'), 's1', 'the product writes keep them from the first vectors on');
  assert.deepEqual(await redis.hgetBuffer(vectors, 'v:m:description'), second);
});

test('the vector filter fields the scripts copy are those of the Query Engine\'s vector index', () => {
  const lib = readFileSync(new URL('../../src/store/lua/lib/searchFields.lua', import.meta.url), 'utf8');
  const listed = /local VECTOR_FILTER_FIELDS = \{([^}]*)\}/.exec(lib)?.[1].match(/'([^']+)'/g)?.map((f) => f.slice(1, -1));
  assert.deepEqual(listed, VECTOR_FILTER_FIELDS.map((f) => `f:${f}`));
});

test('the term dictionary counts the text fields of the products index, from the field version the engine reads it at', () => {
  const lib = readFileSync(new URL('../../src/store/lua/lib/searchTerms.lua', import.meta.url), 'utf8');
  const listed = /local TEXT_FIELDS = \{([^}]*)\}/.exec(lib)?.[1].match(/'([^']+)'/g)?.map((f) => f.slice(1, -1));
  assert.deepEqual(listed, PRODUCT_TEXT_FIELDS.map((f) => `f:${f}`));
  assert.equal(Number(/local TERMS_SINCE = (\d+)/.exec(lib)?.[1]), TERMS_SINCE);
  const fields = schema(collectionOf('product', 't', { modelId: null, dimension: null }), { modelId: null, dimension: null });
  const textFields = fields.filter((_, i) => fields[i + 3] === 'TEXT').map((f) => f.slice(2));
  assert.deepEqual(textFields, [...PRODUCT_TEXT_FIELDS]);
});

test('markEmbeddingFailed: Stale when the texts changed since, else failed and counted so', async () => {
  const entry = keys.entry(T, 'e1');
  await redis.hset(entry, 'text_hash', 'current', 'rev', '1', 'embedding_status', 'pending');
  await redis.hset(keys.embeddingCounts(T), 'entry:pending', 1);
  assert.equal(await redis.markEmbeddingFailed(entry, keys.embeddingCounts(T), 'old', 'entry'), VectorsResult.Stale);
  assert.equal(await redis.hget(entry, 'embedding_status'), 'pending');
  assert.equal(await redis.markEmbeddingFailed(entry, keys.embeddingCounts(T), 'current', 'entry'), VectorsResult.Stored);
  assert.equal(await redis.hget(entry, 'embedding_status'), 'failed');
  assert.deepEqual(await redis.hmget(keys.embeddingCounts(T), 'entry:pending', 'entry:failed'), ['0', '1']);
  await redis.hset(entry, 'text_hash', 'newer', 'embedding_status', 'pending');
  assert.equal(await redis.markEmbeddingFailed(entry, keys.embeddingCounts(T), '', 'entry'), VectorsResult.Stored, 'no hash: whatever texts it has');
  assert.equal(await redis.markEmbeddingFailed(keys.entry(T, 'gone'), keys.embeddingCounts(T), '', 'entry'), VectorsResult.Stale, 'a deleted document stays deleted');
  assert.equal(await redis.exists(keys.entry(T, 'gone')), 0);
});

test('moveEmbeddingStatus: moved and counted only from the status expected; a deleted product stays deleted', async () => {
  const product = keys.product(T, 'skipped-1');
  await redis.hset(product, 'rev', '1', 'embedding_status', 'skipped:de');
  await redis.hset(keys.embeddingCounts(T), 'product:skipped:de', 1);
  const pending = Number(await redis.hget(keys.embeddingCounts(T), 'product:pending'));
  assert.equal(await redis.moveEmbeddingStatus(product, keys.embeddingCounts(T), 'product', 'ready', 'skipped:de'), 0, 'another status');
  assert.equal(await redis.moveEmbeddingStatus(product, keys.embeddingCounts(T), 'product', 'skipped:de', 'pending'), 1);
  assert.equal(await redis.hget(product, 'embedding_status'), 'pending');
  assert.deepEqual(await redis.hmget(keys.embeddingCounts(T), 'product:skipped:de', 'product:pending'), ['0', String(pending + 1)]);
  assert.equal(await redis.moveEmbeddingStatus(keys.product(T, 'gone'), keys.embeddingCounts(T), 'product', 'skipped:de', 'pending'), 0);
  assert.equal(await redis.exists(keys.product(T, 'gone')), 0);
});

test('oauthIssueToken: ClientGone for a deleted client, Issued for one that exists', async () => {
  const issue = (clientId: string) =>
    redis.oauthIssueToken(
      keys.oauthClient(T, clientId), keys.oauthGrant(T, 'g1'), keys.oauthAccessToken(T, 'digest'), keys.oauthClientGrants(T, clientId),
      'g1', JSON.stringify({ id: 'g1' }), JSON.stringify({ grant_id: 'g1' }), 60_000, Date.now(),
    );
  assert.equal(await issue('gone'), GrantResult.ClientGone);
  assert.equal(await redis.exists(keys.oauthGrant(T, 'g1')), 0);
  await redis.set(keys.oauthClient(T, 'c1'), JSON.stringify({ client_id: 'c1' }));
  assert.equal(await issue('c1'), GrantResult.Issued);
  assert.ok((await redis.pttl(keys.oauthAccessToken(T, 'digest'))) > 0, 'the token expires');
});

test('reembedProgress: counts for its model only; at the total the model becomes the tenant’s, once, with a change entry', async () => {
  const [reembed, model, changes] = [keys.reembed(T), keys.embeddingModel(T), keys.changes(T)];
  await redis.hset(reembed, { model: 'm2', total: 3, done: 0, started_at: 'then' });
  await redis.set(model, 'm1');
  const count = (modelId: string, n: number) => redis.reembedProgress(reembed, model, changes, modelId, n, MAXLEN, 'now');
  assert.equal(await count('m1', 3), 0, 'another model’s count is not this re-embed’s');
  assert.equal(await count('m2', 2), 1);
  assert.equal(await redis.get(model), 'm1', 'the old model is served until the last document');
  const before = await redis.xlen(changes);
  assert.equal(await count('m2', 1), 2);
  assert.equal(await redis.get(model), 'm2');
  assert.equal(await redis.hget(reembed, 'finished_at'), 'now');
  assert.equal(await redis.xlen(changes), before + 1);
  assert.equal(await count('m2', 1), 1, 'finished once');
  assert.equal(await redis.xlen(changes), before + 1);
});

test('dropStaleVectors: keeps the vectors named and every other field; -1 (nothing dropped) while another model is the tenant’s or a re-embed runs', async () => {
  const [reembed, model, doc] = [keys.reembed(T), keys.embeddingModel(T), keys.product(T, 'p-drop')];
  await redis.del(reembed);
  await redis.hset(doc, { doc: '{}', 'v:m1:description': 'a', 'v:m2:description': 'b', 'v:m2:properties': 'c', 'v:m2:anchor': 'd' });
  const drop = () => redis.dropStaleVectors(...dropStaleVectorsCall({ embeddingModel: model, reembed, hashes: [doc], model: 'm2', keepFields: ['v:m2:description', 'v:m2:anchor'] }));
  await redis.set(model, 'm1');
  assert.equal(await drop(), -1, 'm1 is still the tenant’s');
  await redis.set(model, 'm2');
  await redis.hset(reembed, { model: 'm3', total: 1, done: 0 });
  assert.equal(await drop(), -1, 'a re-embed with m3 runs: its vectors must stay');
  await redis.hset(reembed, { model: 'm2', finished_at: 'now' });
  assert.equal(await redis.hlen(doc), 5, 'nothing dropped meanwhile');
  assert.equal(await drop(), 1);
  assert.deepEqual((await redis.hkeys(doc)).sort(), ['doc', 'v:m2:anchor', 'v:m2:description']);
  assert.equal(await drop(), 0, 'nothing left to drop');
});
