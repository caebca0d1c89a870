// Memory expiry: expires_at, ttl_seconds and include_expired on GET and the list.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422, assertError } from '../../helpers/assertions.js';
import { newCategory } from '../../helpers/fixtures.js';
import { stack, useStack, ENTRIES, FULL_SCOPES, err, create, get, getOk, putOk, list, sorted, otherUser } from './fixtures.js';

useStack();

// ---- memory expiry -----------------------------------------------------------------------------

describe('memory expiry: expires_at and ttl_seconds', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });
  const past = () => new Date(Date.now() - 60_000).toISOString();
  const future = () => new Date(Date.now() + 3_600_000).toISOString();

  test('a past expires_at is allowed; the expired memory is hidden unless include_expired=true', async () => {
    const cat = await newCategory(t);
    const live = await create(t, cat, { type: 'memory' });
    const at = past();
    const expired = await create(t, cat, { type: 'memory', metadata: { expires_at: at } });
    assert.equal(Date.parse(expired.metadata.expires_at), Date.parse(at));
    assertError(await get(t, expired.id), 404);
    assertError(await get(t, expired.id, undefined, '?include_expired=false'), 404);
    const got = await getOk(t, expired.id, undefined, '?include_expired=true');
    assert.equal(got.id, expired.id);
    assert.deepEqual(got, expired);

    const visible = await list(t, `?category_id=${cat}`);
    assert.deepEqual(visible.ids, [live.id]);
    assert.equal(visible.total, 1);
    const memories = await list(t, `?category_id=${cat}&type=memory&include_expired=false`);
    assert.deepEqual(memories.ids, [live.id]);
    const all = await list(t, `?category_id=${cat}&include_expired=true`);
    assert.deepEqual(sorted(all.ids), sorted([live.id, expired.id]));
    assert.equal(all.total, 2);
    assert.equal((await list(t, `?category_id=${cat}&type=memory&include_expired=true`)).total, 2);
  });

  test('include_expired must be a boolean', async () => {
    const bad = err(['query', 'include_expired'], 'Input should be a valid boolean, unable to interpret input', 'bool_parsing');
    assert422(await t.request('GET', `${ENTRIES}?include_expired=maybe`), [bad]);
    assert422(await get(t, randomUUID(), undefined, '?include_expired=maybe'), [bad]);
  });

  test('a future expires_at keeps the memory visible', async () => {
    const cat = await newCategory(t);
    const at = future();
    const e = await create(t, cat, { type: 'memory', metadata: { expires_at: at } });
    assert.equal(Date.parse((await getOk(t, e.id)).metadata.expires_at), Date.parse(at));
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, [e.id]);
  });

  test('ttl_seconds sets expires_at to about now + ttl and is not stored', async () => {
    const cat = await newCategory(t);
    const before = Date.now();
    const e = await create(t, cat, { type: 'memory', metadata: { ttl_seconds: 3600, importance: 4 } });
    const after = Date.now();
    assert.deepEqual(Object.keys(e.metadata).sort(), ['expires_at', 'importance']);
    assert.equal(e.metadata.importance, 4);
    const expiresAt = Date.parse(e.metadata.expires_at);
    assert.ok(expiresAt >= before + 3_600_000 - 1000 && expiresAt <= after + 3_600_000 + 1000, e.metadata.expires_at);
    const stored = await getOk(t, e.id);
    assert.deepEqual(stored.metadata, e.metadata);
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, [e.id]);
  });

  test('ttl_seconds wins over a given expires_at', async () => {
    const cat = await newCategory(t);
    const before = Date.now();
    const e = await create(t, cat, { type: 'memory', metadata: { ttl_seconds: 600, expires_at: past() } });
    assert.ok(Date.parse(e.metadata.expires_at) >= before + 600_000 - 1000);
    assert.equal('ttl_seconds' in e.metadata, false);
    assert.equal((await get(t, e.id)).status, 200);
  });

  test('a short ttl expires: the memory disappears from get and list (bounded poll)', async () => {
    const cat = await newCategory(t);
    const e = await create(t, cat, { type: 'memory', metadata: { ttl_seconds: 1 } });
    const deadline = Date.now() + 15_000;
    while ((await get(t, e.id)).status !== 404) {
      assert.ok(Date.now() < deadline, 'the memory never expired');
      await delay(100);
    }
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, []);
    assert.deepEqual((await list(t, `?category_id=${cat}&include_expired=true`)).ids, [e.id]);
    assert.equal((await get(t, e.id, undefined, '?include_expired=true')).status, 200);
  });

  test('expiry applies to memory entries only', async () => {
    const cat = await newCategory(t);
    const k = await create(t, cat, { type: 'knowledge', metadata: { expires_at: past() } });
    assert.equal((await get(t, k.id)).status, 200);
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, [k.id]);
  });

  test('an update moving expires_at into the past hides the memory; into the future shows it again', async () => {
    const cat = await newCategory(t);
    const e = await create(t, cat, { type: 'memory', metadata: { expires_at: future() } });
    const expired = await putOk(t, e.id, { metadata: { expires_at: past() } });
    assert.equal(expired.version, 2);
    assertError(await get(t, e.id), 404);
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, []);
    assert.deepEqual((await list(t, `?category_id=${cat}&include_expired=true`)).ids, [e.id]);
    const revived = await putOk(t, e.id, { metadata: { ttl_seconds: 3600 } });
    assert.equal(revived.version, 3);
    assert.equal((await get(t, e.id)).status, 200);
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, [e.id]);
    // Clearing the metadata (defaults, no expires_at) makes it permanent.
    const permanent = await putOk(t, e.id, { metadata: {} });
    assert.deepEqual(permanent.metadata, { importance: 3 });
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, [e.id]);
  });

  test('with include_expired=true the ceiling and personal ownership still hold', async () => {
    const cat = await newCategory(t);
    const other = await otherUser(t);
    const otherAll = await other.keyWith([...FULL_SCOPES, 'visibility:restricted']);
    const publicOnly = await t.keyWith(FULL_SCOPES);
    const personal = await create(t, cat, { type: 'memory', visibility: 'personal', metadata: { expires_at: past() } });
    const restricted = await create(t, cat, { type: 'memory', visibility: 'restricted', metadata: { expires_at: past() } });
    const pub = await create(t, cat, { type: 'memory', visibility: 'public', metadata: { expires_at: past() } });

    // Another user's expired personal memory stays hidden.
    assertError(await get(t, personal.id, otherAll, '?include_expired=true'), 404);
    const otherList = await list(t, `?category_id=${cat}&include_expired=true`, otherAll);
    assert.deepEqual(sorted(otherList.ids), sorted([restricted.id, pub.id]));
    assert.equal(otherList.total, 2);
    // An expired restricted memory stays above a public-only ceiling.
    assertError(await get(t, restricted.id, publicOnly, '?include_expired=true'), 404);
    const publicList = await list(t, `?category_id=${cat}&include_expired=true`, publicOnly);
    assert.deepEqual(sorted(publicList.ids), sorted([personal.id, pub.id]));
    assert.equal(publicList.total, 2);
    // The owner with every scope sees all three.
    assert.equal((await get(t, personal.id, undefined, '?include_expired=true')).status, 200);
    assert.equal((await list(t, `?category_id=${cat}&include_expired=true`)).total, 3);
    assert.equal((await list(t, `?category_id=${cat}`)).total, 0);
  });
});
