// The layout migration against a private redis-server: migrateLayout moves the short field names
// of earlier builds to the names read now, counts the documents by embedding status, moves bulk
// jobs' item results to bytes, products' vectors to hashes of their own and every vector to
// FLOAT16, tenant by tenant; and the renameFields script on its own.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { keys } from '../../src/store/keys.js';
import { renameFieldsCall, replaceVectorsCall } from '../../src/store/scriptCalls.js';
import { float32Bytes, fromBytes, toBytes } from '../../src/store/vectorBytes.js';
import { LAYOUT_VERSION, migrateLayout } from '../../src/store/layoutMigration.js';
import { keyspace, privateRedis } from './privateRedis.js';

const redis = privateRedis();

/** A product hash as an older release wrote it, every renamed field under its old name. */
const OLD_PRODUCT = { doc: '{}', rev: '1', pext: 'parent-1', estatus: 'ready', thash: 'h1', tsrc: '{"description":"d"}', emodel: 'm1' };
const NEW_PRODUCT = {
  doc: '{}', rev: '1', parent_external_id: 'parent-1', embedding_status: 'ready', text_hash: 'h1', text_sources: '{"description":"d"}', embedding_model: 'm1',
};

describe('migrateLayout', () => {
  const hash = (key: string) => redis.hgetall(key);

  test('renames the fields of the products and entries of every tenant not migrated yet, and marks each', async () => {
    await redis.hset(keys.tenantSlugs, 'slug-a', 'ta', 'slug-b', 'tb', 'slug-c', 'tc');
    // ta: a product with every old name, one whose new name is set already, a shared and a personal entry.
    await redis.zadd(keys.products('ta'), 1, 'p1', 2, 'p2');
    await redis.hset(keys.product('ta', 'p1'), OLD_PRODUCT);
    await redis.hset(keys.product('ta', 'p2'), { doc: '{}', rev: '2', pext: 'old', parent_external_id: 'new' });
    await redis.zadd(keys.entriesByCeiling('ta', 'restricted'), 1, 'e1');
    await redis.hset(keys.entry('ta', 'e1'), { doc: '{}', rev: '1', estatus: 'pending', thash: 'h2', emodel: 'm2' });
    await redis.zadd(keys.entriesByOwner('ta', 'u1'), 1, 'e2');
    await redis.hset(keys.entry('ta', 'e2'), { doc: '{}', rev: '1', estatus: 'failed' });
    // tb: a product already under the new names (no document changed), no marker yet.
    await redis.zadd(keys.products('tb'), 1, 'p1');
    await redis.hset(keys.product('tb', 'p1'), NEW_PRODUCT);
    // tc: marked current, so left alone whatever its hashes hold.
    await redis.set(keys.storedLayout('tc'), LAYOUT_VERSION);
    await redis.zadd(keys.products('tc'), 1, 'p1');
    await redis.hset(keys.product('tc', 'p1'), OLD_PRODUCT);

    assert.deepEqual(await migrateLayout(redis), { tenants: 2, documents: 4 });
    assert.deepEqual(await hash(keys.product('ta', 'p1')), NEW_PRODUCT);
    assert.deepEqual(await hash(keys.product('ta', 'p2')), { doc: '{}', rev: '2', parent_external_id: 'new' }, 'a new-name value stays; the old one is dropped');
    assert.deepEqual(await hash(keys.entry('ta', 'e1')), { doc: '{}', rev: '1', embedding_status: 'pending', text_hash: 'h2', embedding_model: 'm2' });
    assert.deepEqual(await hash(keys.entry('ta', 'e2')), { doc: '{}', rev: '1', embedding_status: 'failed' });
    assert.deepEqual(await hash(keys.product('tb', 'p1')), NEW_PRODUCT);
    assert.deepEqual(await hash(keys.product('tc', 'p1')), OLD_PRODUCT, 'a tenant marked current is skipped');
    assert.deepEqual(await redis.mget(['ta', 'tb', 'tc'].map((t) => keys.storedLayout(t))), ['ta', 'tb', 'tc'].map(() => LAYOUT_VERSION));
    assert.deepEqual(await hash(keys.embeddingCounts('ta')), { 'product:ready': '1', 'entry:pending': '1', 'entry:failed': '1' }, 'the statuses counted');
    assert.deepEqual(await hash(keys.embeddingCounts('tb')), { 'product:ready': '1' });
  });

  test("a running job's item results move from a hash to a byte per item, expiring with the job; a finished or gone job's hash goes", async () => {
    await redis.hset(keys.tenantSlugs, 'slug-j', 'tj');
    await redis.set(keys.storedLayout('tj'), '3');
    await redis.zadd(keys.jobs('tj'), 1, 'running', 2, 'completed', 3, 'expired', 4, 'queued');
    for (const [id, status] of [['running', 'running'], ['completed', 'completed'], ['queued', 'queued']]) {
      await redis.hset(keys.job('tj', id), 'status', status);
      await redis.expire(keys.job('tj', id), 3600);
    }
    await redis.hset(keys.jobResultsHash('tj', 'running'), { 0: 'created', 2: 'unchanged', 3: 'failed', 5: 'updated' });
    await redis.hset(keys.jobResultsHash('tj', 'completed'), { 0: 'created' });
    await redis.hset(keys.jobResultsHash('tj', 'expired'), { 0: 'created' });

    assert.deepEqual(await migrateLayout(redis), { tenants: 1, documents: 0 });
    assert.deepEqual(await redis.getBuffer(keys.jobResults('tj', 'running')), Buffer.from('c\0nf\0u', 'latin1'));
    const ttl = await redis.ttl(keys.jobResults('tj', 'running'));
    assert.ok(ttl > 3500 && ttl <= 3600, `TTL ${ttl}`);
    // A queued job without results yet: its key exists already, so the writes that resume it keep a TTL.
    assert.deepEqual(await redis.getBuffer(keys.jobResults('tj', 'queued')), Buffer.from([0]));
    const queuedTtl = await redis.ttl(keys.jobResults('tj', 'queued'));
    assert.ok(queuedTtl > 3500 && queuedTtl <= 3600, `TTL ${queuedTtl}`);
    const gone = ['running', 'completed', 'expired'].map((id) => keys.jobResultsHash('tj', id));
    assert.equal(await redis.exists(...gone, keys.jobResults('tj', 'completed'), keys.jobResults('tj', 'expired')), 0);
    assert.equal(await redis.get(keys.storedLayout('tj')), LAYOUT_VERSION);
  });

  test('a product\'s vectors move to its vector hash, after the tenant\'s search indexes of earlier layouts are dropped', async () => {
    await redis.hset(keys.tenantSlugs, 'slug-v', 'tv');
    await redis.set(keys.storedLayout('tv'), '4');
    await redis.zadd(keys.products('tv'), 1, 'p1', 2, 'p2');
    const vector = float32Bytes(Float32Array.from([0.6, -0.8]));
    await redis.hset(keys.product('tv', 'p1'), { doc: '{}', rev: '1', 'v:m:description': vector, 'v:m:anchor': vector });
    await redis.hset(keys.product('tv', 'p2'), { doc: '{}', rev: '1' });
    const dropped: string[] = [];
    const dropOldIndexes = async (tenantId: string) => {
      dropped.push(tenantId);
      assert.equal(await redis.hexists(keys.product(tenantId, 'p1'), 'v:m:description'), 1, 'before the vectors move');
    };
    // One product's vectors moved, then its two vectors rewritten as FLOAT16 (layout 5 → 6).
    assert.deepEqual(await migrateLayout(redis, { dropOldIndexes }), { tenants: 1, documents: 3 });
    assert.deepEqual(dropped, ['tv']);
    assert.deepEqual(await hash(keys.product('tv', 'p1')), { doc: '{}', rev: '1' });
    const half = toBytes(Float32Array.from([0.6, -0.8]));
    assert.deepEqual(await redis.hgetallBuffer(keys.productVectors('tv', 'p1')), { 'v:m:description': half, 'v:m:anchor': half });
    assert.equal(await redis.exists(keys.productVectors('tv', 'p2')), 0, 'no vectors, no vector hash');
  });

  test('vectors are rewritten as FLOAT16: products\' vector hashes and entries, other fields left as they are; empty vector hashes go', async () => {
    await redis.hset(keys.tenantSlugs, 'slug-h', 'th');
    await redis.set(keys.storedLayout('th'), '5');
    await redis.zadd(keys.products('th'), 1, 'p1', 2, 'p2', 3, 'p3');
    const vector = Float32Array.from([0.1, 0.2, -0.3, 0.9273]);
    await redis.hset(keys.productVectors('th', 'p1'), { 'f:site': 's1', 'v:m:description': float32Bytes(vector), 'v:m:anchor': '' });
    // p3: a vector hash holding the filter fields and no vector (an earlier layout made it with the product).
    await redis.hset(keys.productVectors('th', 'p3'), { 'f:site': 's1', _d: 'x', 'v:m:anchor': '' });
    await redis.zadd(keys.entriesByCeiling('th', 'restricted'), 1, 'e1', 2, 'e2');
    await redis.hset(keys.entry('th', 'e1'), { doc: '{}', rev: '1', 'v:m:content': float32Bytes(vector) });
    await redis.hset(keys.entry('th', 'e2'), { doc: '{}', rev: '1' });
    // Two vectors rewritten, one empty vector hash dropped.
    assert.deepEqual(await migrateLayout(redis), { tenants: 1, documents: 3 });
    assert.equal(await redis.exists(keys.productVectors('th', 'p3')), 0, 'a vector hash without vectors goes');
    assert.deepEqual(await hash(keys.entry('th', 'e2')), { doc: '{}', rev: '1' }, 'an entry without vectors stays as it is');
    const stored = await redis.hgetallBuffer(keys.productVectors('th', 'p1'));
    assert.deepEqual(stored['v:m:description'], toBytes(vector));
    assert.equal(stored['v:m:description'].length, 8, 'two bytes a dimension');
    assert.deepEqual([...fromBytes(stored['v:m:description'])].map((x) => Math.round(x * 1000) / 1000), [0.1, 0.2, -0.3, 0.927]);
    assert.equal(stored['f:site'].toString(), 's1');
    assert.equal(stored['v:m:anchor'].length, 0, 'an empty vector stays empty');
    assert.deepEqual((await redis.hgetallBuffer(keys.entry('th', 'e1')))['v:m:content'], toBytes(vector));
    assert.equal(await redis.exists(keys.productVectors('th', 'p2')), 0, 'no vectors, no vector hash');
  });

  test('replaceVectors: writes a vector only where the hash still holds the value read', async () => {
    const [read, newer] = [float32Bytes(Float32Array.from([1, 0])), toBytes(Float32Array.from([0, 1]))];
    await redis.hset('rv:1', 'v:m:a', read, 'v:m:b', newer);
    const converted = toBytes(Float32Array.from([1, 0]));
    const replaced = await redis.replaceVectors(...replaceVectorsCall([{ hash: 'rv:1', dropEmpty: true, vectors: [{ field: 'v:m:a', read, value: converted }, { field: 'v:m:b', read, value: converted }] }]));
    assert.equal(replaced, 1);
    assert.deepEqual(await redis.hgetallBuffer('rv:1'), { 'v:m:a': converted, 'v:m:b': newer });
    await redis.del('rv:1');
  });

  test('is idempotent: a second run finds no tenant to migrate and writes nothing', async () => {
    const before = await keyspace(redis);
    assert.deepEqual(await migrateLayout(redis), { tenants: 0, documents: 0 });
    assert.deepEqual(await keyspace(redis), before);
  });

  test('a tenant added later, at the first layout (no marker), is migrated alone', async () => {
    await redis.hset(keys.tenantSlugs, 'slug-d', 'td');
    await redis.zadd(keys.products('td'), 1, 'p1');
    await redis.hset(keys.product('td', 'p1'), OLD_PRODUCT);
    assert.deepEqual(await migrateLayout(redis), { tenants: 1, documents: 1 });
    assert.deepEqual(await hash(keys.product('td', 'p1')), NEW_PRODUCT);
    assert.deepEqual(await hash(keys.product('tc', 'p1')), OLD_PRODUCT);
  });
});

test('renameFields: moves old to new names unless the new one is set, drops the old; the number of hashes changed', async () => {
  const h = (name: string) => `rename:${name}`;
  await redis.hset(h('old'), { a: '1', b: '2', keep: 'x' });
  await redis.hset(h('both'), { a: 'old', A: 'new' });
  await redis.hset(h('neither'), { other: 'y' });
  const call = renameFieldsCall([h('old'), h('both'), h('neither'), h('missing')], [['a', 'A'], ['b', 'B']]);
  assert.equal(await redis.renameFields(...call), 2);
  assert.deepEqual(await redis.hgetall(h('old')), { A: '1', B: '2', keep: 'x' });
  assert.deepEqual(await redis.hgetall(h('both')), { A: 'new' });
  assert.deepEqual(await redis.hgetall(h('neither')), { other: 'y' });
  assert.equal(await redis.exists(h('missing')), 0);
  assert.equal(await redis.renameFields(...call), 0, 'a second call changes nothing');
});
