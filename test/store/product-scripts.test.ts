// The product scripts on their own, against a private redis-server: writeProducts, touchProducts,
// settleItems-6, failJobItem-3 and deleteProduct-16, each return code (store/scripts.ts), and that
// a refused write leaves nothing behind.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { auditArgs, auditKeys, type AuditActor, type AuditArgs } from '../../src/store/audit.js';
import { keys } from '../../src/store/keys.js';
import { KeyTable } from '../../src/store/keyTable.js';
import type { ProductSearchFields } from '../../src/store/searchFields.js';
import { fieldsDigest, touchProductsCall, writeProductsCall, type TouchProductsRow, type WriteProductsRow } from '../../src/store/scriptCalls.js';
import { ProductWriteResult, SettleResult, TouchResult, WriteResult } from '../../src/store/scripts.js';
import { keyspace, newest, privateRedis } from './privateRedis.js';

const T = 'tenant-1';
const S = 'site-1';
const MAXLEN = 1000;
const CREATED = 1_700_000_000_000;
const SYNCED = '2024-01-01T00:00:00.000Z';
const actor: AuditActor = { userId: 'u1', credentialId: 'k1', clientId: null, source: 'api' };

const redis = privateRedis();

/** A job's item results as the scripts store them (a byte per item index, lua/lib/jobResults.lua), as index → result. */
async function jobResults(job: string): Promise<Record<number, string>> {
  const names: Record<string, string> = { c: 'created', u: 'updated', n: 'unchanged', f: 'failed' };
  const bytes = await redis.getBuffer(keys.jobResults(T, job));
  const out: Record<number, string> = {};
  bytes?.forEach((b, index) => {
    if (b !== 0) out[index] = names[String.fromCharCode(b)];
  });
  return out;
}

/** One product of a writeProducts call, its keys by name (language, category, the index keys it leaves). */
interface Write {
  id: string;
  expectedRev?: string;
  externalId?: string;
  previousExternalId?: string;
  claimGroup?: string;
  language?: string;
  category?: string;
  leave?: string[];
  jobIndex?: number;
  parentExternalId?: string;
  textHash?: string;
  textSources?: string;
  itemDigest?: string;
  embeddingStatus?: string;
  /** Search fields (search hash pairs, vector hash pairs): with the Redis Query Engine. */
  projection?: ProductSearchFields;
}

/** A key table as products.ts lays it out: the fixed keys, then each other key once, by position. */
function keyTable(fixed: string[]) {
  const table = new KeyTable(fixed);
  return { table: table.keys, ref: (key: string) => table.ref(key) };
}

async function write(products: Write[], options: { job?: string; audited?: boolean } = {}) {
  const { job, audited } = options;
  const { table, ref } = keyTable([
    keys.changes(T), keys.translationGroups(T), keys.products(T), keys.siteProducts(T, S), keys.siteExternalIds(T, S),
    keys.productsSynced(T), keys.productsItemDigests(T), keys.embeddingCounts(T), ...(job ? [keys.jobResults(T, job), keys.jobCounts(T, job)] : []),
  ]);
  const first = products[0];
  const auditRef = audited ? auditKeys(T, 'product', first.id).map(ref)[0] : 0;
  const rows = products.map((p): WriteProductsRow => ({
    productRef: ref(keys.product(T, p.id)), id: p.id, expectedRev: p.expectedRev ?? '', externalId: p.externalId ?? '',
    previousExternalId: p.previousExternalId ?? '', claimGroup: p.claimGroup ?? '', createdMs: CREATED,
    joinLanguageRef: p.language ? ref(keys.productsByLanguage(T, p.language)) : 0,
    joinCategoryRef: p.category ? ref(keys.productsByCategory(T, p.category)) : 0,
    leaveRefs: (p.leave ?? []).map(ref), jobIndex: p.jobIndex ?? '', docJson: JSON.stringify({ id: p.id, external_id: p.externalId ?? null }),
    parentExternalId: p.parentExternalId ?? '', embeddingStatus: p.embeddingStatus ?? 'pending', textHash: p.textHash ?? '', textSourcesJson: p.textSources ?? '',
    itemDigest: p.itemDigest ?? '',
    searchFields: p.projection ? { searchRef: ref(keys.productSearch(T, p.id)), vectorsRef: ref(keys.productVectors(T, p.id)), termsRef: ref(keys.productTerms(T)), fields: p.projection } : null,
  }));
  const event = auditArgs(actor, { action: first.expectedRev ? 'update' : 'create', entityType: 'product', entityId: first.id });
  return pairs(await redis.writeProducts(...writeProductsCall({
    keyTable: table, maxlen: MAXLEN, syncedAt: SYNCED, hasJob: !!job, audit: auditRef ? { ref: auditRef, event } : null, rows,
  })));
}

/** A script's answer of code/detail pairs, as values: each code a number, each detail a number where it is a revision. */
const pairs = (answer: string[]): (number | string)[] =>
  answer.map((value, i) => (i % 2 === 0 || /^\d+$/.test(value) ? Number(value) : value));

const product = (id: string) => redis.hgetall(keys.product(T, id));
const indexed = (id: string, ...sets: string[]) => Promise.all(sets.map((set) => redis.zscore(set, id)));

describe('writeProducts', () => {
  test('Written with the new rev: fields under their stored names, indexes, sync bookkeeping, one change entry, the audit event', async () => {
    const result = await write([{
      id: 'p1', externalId: 'ext-1', claimGroup: 'g1', language: 'en', category: 'shoes', parentExternalId: 'parent-1',
      textHash: 'h1', textSources: '{"description":"d"}', itemDigest: 'dig-1', projection: { search: ['f:title', 'Shoe', 'f:none', ''], vectors: ['f:site', 's'] },
    }], { audited: true });
    assert.deepEqual(result, [ProductWriteResult.Written, 1]);
    assert.deepEqual(await product('p1'), {
      doc: JSON.stringify({ id: 'p1', external_id: 'ext-1' }), rev: '1', parent_external_id: 'parent-1', embedding_status: 'pending',
      text_hash: 'h1', text_sources: '{"description":"d"}',
    });
    assert.deepEqual(await redis.hgetall(keys.productSearch(T, 'p1')), {
      _d: fieldsDigest(['f:title', 'Shoe', 'f:none', '']), _vd: fieldsDigest(['f:site', 's']), 'f:title': 'Shoe',
    }, 'the search fields in a hash of their own, with the digest of the vector search\'s filter fields');
    assert.equal(await redis.exists(keys.productVectors(T, 'p1')), 0, 'no vector hash before the first vectors');
    const sets = [keys.products(T), keys.siteProducts(T, S), keys.productsByLanguage(T, 'en'), keys.productsByCategory(T, 'shoes')];
    assert.deepEqual(await indexed('p1', ...sets), sets.map(() => String(CREATED)));
    assert.equal(await redis.hget(keys.siteExternalIds(T, S), 'ext-1'), 'p1');
    assert.equal(await redis.hget(keys.translationGroups(T), 'ext-1'), 'g1');
    assert.equal(await redis.hget(keys.productsSynced(T), 'p1'), SYNCED);
    assert.equal(await redis.hget(keys.productsItemDigests(T), 'p1'), 'dig-1');
    assert.deepEqual(await newest(redis, keys.changes(T)), { op: 'upsert', kind: 'product', ids: 'p1', revs: '1' });
    assert.equal((await newest(redis, keys.auditOf(T, 'p1')))?.version, '1');
  });

  test('a product with vectors: its writes keep the vector search\'s filter fields beside them', async () => {
    assert.deepEqual(await write([{ id: 'pv', externalId: 'ext-pv', projection: { search: ['f:title', 'Lamp'], vectors: ['f:site', 's'] } }]), [ProductWriteResult.Written, 1]);
    assert.equal(await redis.exists(keys.productVectors(T, 'pv')), 0);
    await redis.hset(keys.productVectors(T, 'pv'), 'v:m:description', 'bytes');
    await write([{ id: 'pv', expectedRev: '1', externalId: 'ext-pv', previousExternalId: 'ext-pv', projection: { search: ['f:title', 'Lamp'], vectors: ['f:site', 's2'] } }]);
    assert.deepEqual(await redis.hgetall(keys.productVectors(T, 'pv')), { _d: fieldsDigest(['f:site', 's2']), 'f:site': 's2', 'v:m:description': 'bytes' });
  });

  test('Written on update: indexes moved, an empty projection value removes the field, unchanged texts stay, no digest clears it', async () => {
    const result = await write([{
      id: 'p1', expectedRev: '1', externalId: 'ext-1', previousExternalId: 'ext-1', language: 'de',
      leave: [keys.productsByLanguage(T, 'en')], projection: { search: ['f:title', ''], vectors: ['f:site', 's'] },
    }]);
    assert.deepEqual(result, [ProductWriteResult.Written, 2]);
    const stored = await product('p1');
    assert.equal(stored.rev, '2');
    assert.equal(await redis.hexists(keys.productSearch(T, 'p1'), 'f:title'), 0, 'an empty value removes the field');
    assert.deepEqual([stored.text_hash, stored.text_sources], ['h1', '{"description":"d"}'], 'no text_hash: the texts stay as stored');
    assert.deepEqual(await indexed('p1', keys.productsByLanguage(T, 'en'), keys.productsByLanguage(T, 'de')), [null, String(CREATED)]);
    assert.equal(await redis.hget(keys.productsItemDigests(T), 'p1'), null, 'a write without an item digest clears it');

    assert.deepEqual(await write([{ id: 'p1', expectedRev: '2', externalId: 'ext-1', previousExternalId: 'ext-1', textHash: 'h2' }]), [ProductWriteResult.Written, 3]);
    const [textHash, textSources] = await redis.hmget(keys.product(T, 'p1'), 'text_hash', 'text_sources');
    assert.deepEqual([textHash, textSources], ['h2', null], 'new texts without explicit sources drop text_sources');
  });

  test('search fields unchanged since the last write are not written again (a write makes the Query Engine index the hash)', async () => {
    const fields = { search: ['f:title', 'Hat', 'f:price', '5'], vectors: ['f:site', 's'] };
    await write([{ id: 'same', projection: fields }]);
    await redis.hset(keys.productVectors(T, 'same'), 'marker', 'left alone');
    await redis.hset(keys.productSearch(T, 'same'), 'marker', 'left alone');
    await write([{ id: 'same', expectedRev: '1', projection: { ...fields, search: ['f:title', 'Hat', 'f:price', '6'] } }]);
    assert.deepEqual(await redis.hmget(keys.productSearch(T, 'same'), 'f:price', '_d'), ['6', fieldsDigest(['f:title', 'Hat', 'f:price', '6'])], 'a new price is written');
    assert.equal(await redis.hget(keys.productVectors(T, 'same'), 'marker'), 'left alone', 'the vector hash is not written: its fields did not change');
    await redis.hset(keys.productSearch(T, 'same'), 'f:price', 'stale marker');
    await write([{ id: 'same', expectedRev: '2', projection: { ...fields, search: ['f:title', 'Hat', 'f:price', '6'] } }]);
    assert.equal(await redis.hget(keys.productSearch(T, 'same'), 'f:price'), 'stale marker', 'unchanged search fields are not written');
  });

  test('the term dictionary counts each product once per term of its search text, follows its changes, and ignores a layout that does not count', async () => {
    const terms = () => redis.hgetall(keys.productTerms(T));
    const text = (version: string, title: string, desc: string) => ({ search: ['f:v', version, 'f:title', title, 'f:desc', desc, 'f:price', '5'], vectors: [] });
    await redis.del(keys.productTerms(T));
    await write([{ id: 't1', projection: text('5', 'rote jacke', 'jacke aus wolle') }, { id: 't2', projection: text('5', 'blaue jacke', '') }]);
    assert.deepEqual(await terms(), { rote: '1', jacke: '2', aus: '1', wolle: '1', blaue: '1' }, 'a term in two fields of one product counts once');
    await write([{ id: 't1', expectedRev: '1', projection: text('5', 'grüne jacke', 'jacke aus wolle') }]);
    assert.deepEqual(await terms(), { grüne: '1', jacke: '2', aus: '1', wolle: '1', blaue: '1' }, 'a term no product holds any more leaves');
    await write([{ id: 't1', expectedRev: '2', projection: { ...text('5', 'grüne jacke', 'jacke aus wolle'), search: [...text('5', 'grüne jacke', 'jacke aus wolle').search.slice(0, -1), '6'] } }]);
    assert.deepEqual(await terms(), { grüne: '1', jacke: '2', aus: '1', wolle: '1', blaue: '1' }, 'a new price changes no term');
    await write([{ id: 'old', projection: text('4', 'alte mütze', '') }]);
    assert.equal(await redis.hget(keys.productTerms(T), 'mütze'), null, 'an earlier layout is not counted');
    await write([{ id: 'old', expectedRev: '1', projection: text('5', 'alte mütze', '') }]);
    assert.deepEqual(await redis.hmget(keys.productTerms(T), 'alte', 'mütze'), ['1', '1'], 'written again in this layout, it is');
    const event: ['0'] = ['0'];
    for (const id of ['t2', 'old']) {
      await redis.deleteProduct(
        keys.product(T, id), keys.siteExternalIds(T, S), keys.products(T), keys.siteProducts(T, S), keys.productsByLanguage(T, 'en'), keys.products(T),
        keys.changes(T), keys.productsSynced(T), keys.productsItemDigests(T), ...auditKeys(T, 'product', id), keys.embeddingCounts(T),
        keys.productSearch(T, id), keys.productVectors(T, id), keys.productTerms(T), id, '', '0', MAXLEN, ...event,
      );
    }
    assert.deepEqual(await terms(), { grüne: '1', jacke: '1', aus: '1', wolle: '1' }, 'a deleted product\'s terms leave');
  });

  test('Changed for a stale expected rev and for a create of an existing product; nothing written', async () => {
    const before = await keyspace(redis);
    assert.deepEqual(
      await write([{ id: 'p1', expectedRev: '1', externalId: 'ext-1', previousExternalId: 'ext-1' }, { id: 'p1', externalId: 'ext-1' }]),
      [ProductWriteResult.Changed, '', ProductWriteResult.Changed, ''],
    );
    assert.deepEqual(await keyspace(redis), before);
  });

  test('a call of creates only (one EXISTS for all): Changed for the product that exists, the others Written', async () => {
    assert.deepEqual(await write([{ id: 'n1', externalId: 'ext-n1' }]), [ProductWriteResult.Written, 1]);
    assert.deepEqual(
      await write([{ id: 'n2', externalId: 'ext-n2' }, { id: 'n1', externalId: 'ext-n1' }, { id: 'n3', externalId: 'ext-n3' }]),
      [ProductWriteResult.Written, 1, ProductWriteResult.Changed, '', ProductWriteResult.Written, 1],
    );
    assert.equal((await product('n1')).rev, '1');
    assert.deepEqual(await redis.hmget(keys.siteExternalIds(T, S), 'ext-n1', 'ext-n2', 'ext-n3'), ['n1', 'n2', 'n3']);
  });

  test('ExternalIdTaken with the owner id, on create and on a change of external_id; nothing written', async () => {
    const before = await keyspace(redis);
    assert.deepEqual(await write([{ id: 'p2', externalId: 'ext-1', language: 'en' }]), [ProductWriteResult.ExternalIdTaken, 'p1']);
    assert.deepEqual(await write([{ id: 'p2', externalId: 'ext-1', claimGroup: 'g1' }]), [ProductWriteResult.ExternalIdTaken, 'p1']);
    assert.deepEqual(await keyspace(redis), before);
    assert.deepEqual(await write([{ id: 'p1', expectedRev: '3', externalId: 'ext-1' }]), [ProductWriteResult.Written, 4], 'its own external_id is not taken');
    assert.deepEqual(await write([{ id: 'p2', externalId: 'ext-2' }]), [ProductWriteResult.Written, 1]);
    const moved = await keyspace(redis);
    assert.deepEqual(
      await write([{ id: 'p2', expectedRev: '1', externalId: 'ext-1', previousExternalId: 'ext-2' }]),
      [ProductWriteResult.ExternalIdTaken, 'p1'],
    );
    assert.deepEqual(await keyspace(redis), moved);
  });

  test('TranslationGroupDiffers with the group holding the external_id; nothing written; the same group is Written', async () => {
    await redis.hset(keys.translationGroups(T), 'ext-9', 'g-other');
    const before = await keyspace(redis);
    assert.deepEqual(await write([{ id: 'p3', externalId: 'ext-9', claimGroup: 'g-mine' }]), [ProductWriteResult.TranslationGroupDiffers, 'g-other']);
    assert.deepEqual(await keyspace(redis), before);
    assert.deepEqual(await write([{ id: 'p3', externalId: 'ext-9', claimGroup: 'g-other' }]), [ProductWriteResult.Written, 1]);
  });

  test('one call applies its products in order: an external_id released by one is free for a later one, one claimed is taken for a later one', async () => {
    assert.deepEqual(await write([{ id: 'o1', externalId: 'ord-x', claimGroup: 'go1' }]), [ProductWriteResult.Written, 1]);
    assert.deepEqual(
      await write([
        { id: 'o1', expectedRev: '1', externalId: 'ord-y', previousExternalId: 'ord-x' },
        { id: 'o2', externalId: 'ord-x' },
        { id: 'o3', externalId: 'ord-y', claimGroup: 'go3' },
        { id: 'o4', externalId: 'ord-z', claimGroup: 'gz' },
        { id: 'o5', externalId: 'ord-w', claimGroup: 'gz-other' },
      ]),
      [ProductWriteResult.Written, 2, ProductWriteResult.Written, 1, ProductWriteResult.ExternalIdTaken, 'o1', ProductWriteResult.Written, 1, ProductWriteResult.Written, 1],
    );
    assert.deepEqual(await redis.hmget(keys.siteExternalIds(T, S), 'ord-x', 'ord-y', 'ord-z', 'ord-w'), ['o2', 'o1', 'o4', 'o5']);
    assert.deepEqual(await redis.hmget(keys.translationGroups(T), 'ord-x', 'ord-y', 'ord-z', 'ord-w'), ['go1', null, 'gz', 'gz-other'], 'a refused product claims no group');

    // o2 gives up ord-x, o1 takes it and gives up ord-y, which a new product then claims: all in one call.
    assert.deepEqual(
      await write([
        { id: 'o2', expectedRev: '1', externalId: 'ord-v', previousExternalId: 'ord-x' },
        { id: 'o1', expectedRev: '2', externalId: 'ord-x', previousExternalId: 'ord-y' },
        { id: 'o6', externalId: 'ord-y', claimGroup: 'go6' },
        { id: 'o7', externalId: 'ord-z', claimGroup: 'gz' },
      ]),
      [ProductWriteResult.Written, 2, ProductWriteResult.Written, 3, ProductWriteResult.Written, 1, ProductWriteResult.ExternalIdTaken, 'o4'],
    );
    assert.deepEqual(await redis.hmget(keys.siteExternalIds(T, S), 'ord-v', 'ord-x', 'ord-y', 'ord-z'), ['o2', 'o1', 'o6', 'o4']);
    assert.equal(await redis.hget(keys.translationGroups(T), 'ord-y'), 'go6');
  });

  test('a job: each item result and the counts written once, whatever the retries; one change entry per call', async () => {
    const counts = keys.jobCounts(T, 'j1');
    assert.deepEqual(
      await write([{ id: 'j-a', jobIndex: 0 }, { id: 'p1', externalId: 'ext-1', jobIndex: 1 }, { id: 'j-b', jobIndex: 2 }], { job: 'j1' }),
      [ProductWriteResult.Written, 1, ProductWriteResult.Changed, '', ProductWriteResult.Written, 1],
    );
    assert.deepEqual(await newest(redis, keys.changes(T)), { op: 'upsert', kind: 'product', ids: 'j-a,j-b', revs: '1,1' });
    assert.deepEqual(await jobResults('j1'), { 0: 'created', 2: 'created' }, 'a refused item has no result from the script');
    assert.deepEqual(await redis.hgetall(counts), { created: '2' });

    // The retry of item 0 (written meanwhile) and item 2 again, with a new item 3 (an update).
    assert.deepEqual(
      await write([{ id: 'j-a', expectedRev: '1', jobIndex: 0 }, { id: 'j-b', expectedRev: '1', jobIndex: 2 }, { id: 'p2', expectedRev: '1', jobIndex: 3 }], { job: 'j1' }),
      [ProductWriteResult.Written, 2, ProductWriteResult.Written, 2, ProductWriteResult.Written, 2],
    );
    assert.deepEqual(await jobResults('j1'), { 0: 'created', 2: 'created', 3: 'updated' });
    assert.deepEqual(await redis.hgetall(counts), { created: '2', updated: '1' });
    assert.equal(await redis.xlen(keys.auditOf(T, 'j-a')), 0, 'bulk items have no audit event of their own');
  });
});

describe('job results (lua/lib/jobResults)', () => {
  test('written at their indexes in whatever order the rows come, runs and gaps alike', async () => {
    const rows = [7, 5, 6, 9, 2].map((jobIndex) => ({ id: `jr-${jobIndex}`, jobIndex }));
    const out = await write(rows, { job: 'j3' });
    assert.deepEqual(out, rows.flatMap(() => [ProductWriteResult.Written, 1]));
    assert.deepEqual(await jobResults('j3'), { 2: 'created', 5: 'created', 6: 'created', 7: 'created', 9: 'created' });
    assert.deepEqual(await redis.hgetall(keys.jobCounts(T, 'j3')), { created: '5' });
  });

  test('failJobItem: counted once as failed with its error, the error list expiring with the results; an item with a result is left alone', async () => {
    const [results, counts, errors] = [keys.jobResults(T, 'j4'), keys.jobCounts(T, 'j4'), keys.jobErrors(T, 'j4')];
    await redis.setrange(results, 9, '\0');
    await redis.expire(results, 3600);
    await write([{ id: 'jf-1', jobIndex: 1 }], { job: 'j4' });
    assert.equal(await redis.failJobItem(results, counts, errors, 3, '{"index":3}'), 1);
    assert.equal(await redis.failJobItem(results, counts, errors, 3, '{"index":3}'), 0, 'a second failure of the item is not counted');
    assert.equal(await redis.failJobItem(results, counts, errors, 1, '{"index":1}'), 0, 'a created item does not fail afterwards');
    assert.deepEqual(await jobResults('j4'), { 1: 'created', 3: 'failed' });
    assert.deepEqual(await redis.hgetall(counts), { created: '1', failed: '1' });
    assert.deepEqual(await redis.lrange(errors, 0, -1), ['{"index":3}']);
    const ttl = await redis.ttl(errors);
    assert.ok(ttl > 3500 && ttl <= 3600, `errors TTL ${ttl}`);
  });
});

describe('touchProducts', () => {
  const touch = (rows: Omit<TouchProductsRow, 'productRef'>[], job?: string) => {
    const { table, ref } = keyTable([keys.productsSynced(T), keys.productsItemDigests(T), ...(job ? [keys.jobResults(T, job), keys.jobCounts(T, job)] : [])]);
    return redis.touchProducts(...touchProductsCall({
      keyTable: table, syncedAt: SYNCED, hasJob: !!job, rows: rows.map((r) => ({ ...r, productRef: ref(keys.product(T, r.id)) })),
    }));
  };
  const row = (id: string, expectedRev: string, itemDigest = '', jobIndex: number | '' = '') => ({ id, expectedRev, itemDigest, jobIndex });

  before(async () => {
    await redis.hset(keys.product(T, 't1'), 'doc', '{"id":"t1"}', 'rev', '3');
    await redis.hset(keys.product(T, 't2'), 'doc', '{"id":"t2"}', 'rev', '5');
    await redis.hset(keys.productsItemDigests(T), 't2', 'd-2');
  });

  test('Touched while the rev is the expected one, Changed when not; the product hashes are not modified', async () => {
    const hashes = [await product('t1'), await product('t2')];
    const before = await keyspace(redis);
    assert.deepEqual(await touch([row('t1', '2'), row('t2', '4')]), [TouchResult.Changed, TouchResult.Changed]);
    assert.deepEqual(await keyspace(redis), before, 'Changed writes nothing');

    assert.deepEqual(await touch([row('t1', '3', 'd-1'), row('t2', '5')]), [TouchResult.Touched, TouchResult.Touched]);
    assert.deepEqual(await redis.hmget(keys.productsSynced(T), 't1', 't2'), [SYNCED, SYNCED]);
    assert.deepEqual(await redis.hmget(keys.productsItemDigests(T), 't1', 't2'), ['d-1', 'd-2'], "'' leaves the stored digest");
    assert.deepEqual([await product('t1'), await product('t2')], hashes);
  });

  test('with a job: Touched counts the item as unchanged once, Counted when it has a result already', async () => {
    const counts = keys.jobCounts(T, 'j2');
    assert.deepEqual(await touch([row('t1', '3', '', 0), row('t2', '4', '', 1)], 'j2'), [TouchResult.Touched, TouchResult.Changed]);
    assert.deepEqual(await jobResults('j2'), { 0: 'unchanged' });
    assert.deepEqual(await redis.hgetall(counts), { unchanged: '1' });
    const before = await keyspace(redis);
    assert.deepEqual(await touch([row('t1', '3', 'd-9', 0)], 'j2'), [TouchResult.Counted]);
    assert.deepEqual(await keyspace(redis), before, 'a counted item is skipped whole');
  });
});

describe('settleItems', () => {
  const settle = async (job: string, items: [externalId: string, itemDigest: string, index: number][]) => {
    const answer = await redis.settleItems(
      keys.siteExternalIds(T, S), keys.productsSynced(T), keys.productsItemDigests(T), keys.jobResults(T, job), keys.jobCounts(T, job),
      keys.translationGroups(T), SYNCED, ...items.flatMap((item) => item),
    );
    return answer.map((value, i) => (i % 2 === 0 ? Number(value) : value));
  };

  before(async () => {
    await redis.hset(keys.siteExternalIds(T, S), 'sku-a', 'sa', 'sku-b', 'sb', 'sku-c', 'sc');
    await redis.hset(keys.productsItemDigests(T), 'sa', 'd-a', 'sb', 'd-b');
  });

  test('Unchanged where the item digest is the one stored, else Unsettled with the id its external_id names; only the settled are recorded', async () => {
    const before = await keyspace(redis);
    assert.deepEqual(await settle('s1', [['sku-a', 'd-other', 0], ['sku-c', 'd-c', 1], ['sku-new', 'd-a', 2]]), [
      SettleResult.Unsettled, 'sa', SettleResult.Unsettled, 'sc', SettleResult.New, '',
    ]);
    assert.deepEqual(await keyspace(redis), before, 'nothing settled, nothing written');

    assert.deepEqual(await settle('s1', [['sku-a', 'd-a', 0], ['sku-new', 'd-x', 1], ['sku-b', 'd-b', 2]]), [
      SettleResult.Unchanged, 'sa', SettleResult.New, '', SettleResult.Unchanged, 'sb',
    ]);
    assert.deepEqual(await redis.hmget(keys.productsSynced(T), 'sa', 'sb', 'sc'), [SYNCED, SYNCED, null]);
    assert.deepEqual(await jobResults('s1'), { 0: 'unchanged', 2: 'unchanged' });
    assert.deepEqual(await redis.hgetall(keys.jobCounts(T, 's1')), { unchanged: '2' });
  });

  test("New, with the tenant's translation group of the external_id, where it names no product of the site", async () => {
    await redis.hset(keys.translationGroups(T), 'sku-elsewhere', 'g-9', 'sku-a', 'g-a');
    const before = await keyspace(redis);
    assert.deepEqual(await settle('s2', [['sku-elsewhere', 'd-e', 0], ['sku-none', 'd-n', 1], ['sku-a', 'd-other', 2]]), [
      SettleResult.New, 'g-9', SettleResult.New, '', SettleResult.Unsettled, 'sa',
    ]);
    assert.deepEqual(await keyspace(redis), before);
  });

  test('Counted when the job item has a result already: counted once, whatever the retries', async () => {
    const before = await keyspace(redis);
    assert.deepEqual(await settle('s1', [['sku-a', 'd-a', 0], ['sku-b', 'd-b', 2]]), [SettleResult.Counted, 'sa', SettleResult.Counted, 'sb']);
    assert.deepEqual(await keyspace(redis), before);
  });
});

describe('deleteProduct', () => {
  const del = (id: string, externalId: string, category: string | null, audited: boolean) => {
    const event: ['1' | '0', ...AuditArgs] = audited ? ['1', ...auditArgs(actor, { action: 'delete', entityType: 'product', entityId: id })] : ['0'];
    return redis.deleteProduct(
      keys.product(T, id), keys.siteExternalIds(T, S), keys.products(T), keys.siteProducts(T, S), keys.productsByLanguage(T, 'en'),
      category !== null ? keys.productsByCategory(T, category) : keys.products(T), keys.changes(T), keys.productsSynced(T),
      keys.productsItemDigests(T), ...auditKeys(T, 'product', id), keys.embeddingCounts(T), keys.productSearch(T, id), keys.productVectors(T, id), keys.productTerms(T),
      id, externalId, category !== null ? '1' : '0', MAXLEN, ...event,
    );
  };

  test('Done, then Missing; its indexes, external_id and sync bookkeeping cleared, one change entry, one audit event', async () => {
    await write([{ id: 'd1', externalId: 'ext-d1', language: 'en', category: 'hats', itemDigest: 'dig', projection: { search: ['f:title', 'Hat'], vectors: ['f:site', 's'] } }], { audited: true });
    await redis.hset(keys.productVectors(T, 'd1'), 'v:m:description', 'bytes');
    assert.equal(await del('d1', 'ext-d1', 'hats', true), WriteResult.Done);
    assert.equal(await redis.exists(keys.product(T, 'd1'), keys.productSearch(T, 'd1'), keys.productVectors(T, 'd1')), 0, 'the product, its search fields and its vectors are gone');
    const sets = [keys.products(T), keys.siteProducts(T, S), keys.productsByLanguage(T, 'en'), keys.productsByCategory(T, 'hats')];
    assert.deepEqual(await indexed('d1', ...sets), sets.map(() => null));
    assert.equal(await redis.hget(keys.siteExternalIds(T, S), 'ext-d1'), null);
    assert.deepEqual(await redis.hmget(keys.productsSynced(T), 'd1'), [null]);
    assert.deepEqual(await redis.hmget(keys.productsItemDigests(T), 'd1'), [null]);
    assert.deepEqual(await newest(redis, keys.changes(T)), { op: 'delete', kind: 'product', id: 'd1' });
    assert.equal((await newest(redis, keys.auditOf(T, 'd1')))?.action, 'delete');

    const before = await keyspace(redis);
    assert.equal(await del('d1', 'ext-d1', 'hats', true), WriteResult.Missing);
    assert.deepEqual(await keyspace(redis), before, 'Missing writes nothing');
  });

  test('without an audit event (a site purge); an external_id another product holds now is left to it', async () => {
    await write([{ id: 'd2', externalId: 'ext-d2', language: 'en' }]);
    await redis.hset(keys.siteExternalIds(T, S), 'ext-d2', 'someone-else');
    assert.equal(await del('d2', 'ext-d2', null, false), WriteResult.Done);
    assert.equal(await redis.hget(keys.siteExternalIds(T, S), 'ext-d2'), 'someone-else');
    assert.equal(await redis.xlen(keys.auditOf(T, 'd2')), 0);
    assert.deepEqual(await indexed('d2', keys.products(T), keys.productsByLanguage(T, 'en')), [null, null]);
  });
});

describe('embedding status counts', () => {
  test('a write counts its product under its status, an update moves it, a delete drops it; a refused write counts nothing', async () => {
    const counts = () => redis.hgetall(keys.embeddingCounts(T));
    await redis.del(keys.embeddingCounts(T));
    await write([{ id: 'c1' }, { id: 'c2', embeddingStatus: 'skipped' }]);
    assert.deepEqual(await counts(), { 'product:pending': '1', 'product:skipped': '1' });
    await redis.hset(keys.product(T, 'c1'), 'embedding_status', 'ready');
    await redis.hincrby(keys.embeddingCounts(T), 'product:pending', -1);
    await redis.hincrby(keys.embeddingCounts(T), 'product:ready', 1);
    assert.deepEqual(await write([{ id: 'c1', expectedRev: '1', embeddingStatus: 'pending' }, { id: 'c2', expectedRev: '9' }]), [ProductWriteResult.Written, 2, ProductWriteResult.Changed, '']);
    assert.deepEqual(await counts(), { 'product:pending': '1', 'product:ready': '0', 'product:skipped': '1' });
    const event: ['0'] = ['0'];
    assert.equal(await redis.deleteProduct(
      keys.product(T, 'c2'), keys.siteExternalIds(T, S), keys.products(T), keys.siteProducts(T, S), keys.productsByLanguage(T, 'en'),
      keys.products(T), keys.changes(T), keys.productsSynced(T), keys.productsItemDigests(T), ...auditKeys(T, 'product', 'c2'), keys.embeddingCounts(T),
      keys.productSearch(T, 'c2'), keys.productVectors(T, 'c2'), keys.productTerms(T), 'c2', '', '0', MAXLEN, ...event,
    ), WriteResult.Done);
    assert.deepEqual(await counts(), { 'product:pending': '1', 'product:ready': '0', 'product:skipped': '0' });
  });
});
