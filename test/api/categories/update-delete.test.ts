// PUT /categories/{category_id} (partial updates, moves, cycle checks) and DELETE (409 while it has children).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422, assertError } from '../../helpers/assertions.js';
import { stack, useStack, CATEGORIES, x, err, UUID_ERROR, NO_PARENT, CYCLE, create, list, names, get, put, del, shape } from './fixtures.js';

useStack();

// ---- partial update, moves, cycles ------------------------------------------------------------

describe('PUT /categories/{category_id}', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  /** A > B > C, and D at the top; created a few ms apart so that created_at orders them. */
  async function chain() {
    const a = await create(t, { name: 'A', description: 'top', sort_order: 4 });
    await delay(5);
    const b = await create(t, { name: 'B', parent_id: a.id });
    await delay(5);
    const cc = await create(t, { name: 'C', parent_id: b.id });
    await delay(5);
    const d = await create(t, { name: 'D' });
    return { a, b, c: cc, d };
  }

  test('only the provided fields change; updated_at moves, created_at stays', async () => {
    const { a } = await chain();
    await delay(5);
    const res = await put(t, a.id, { name: 'A renamed' });
    assert.equal(res.status, 200, res.text);
    const { updated_at, ...rest } = res.body;
    const { updated_at: before, ...expected } = a;
    assert.deepEqual(rest, { ...expected, name: 'A renamed' });
    assert.ok(Date.parse(updated_at) > Date.parse(before), `${updated_at} should be after ${before}`);
    assert.deepEqual((await get(t, a.id)).body, res.body);

    const res2 = await put(t, a.id, { sort_order: 9, description: 'changed' });
    assert.equal(res2.status, 200, res2.text);
    assert.deepEqual({ ...res2.body, updated_at: null }, { ...res.body, sort_order: 9, description: 'changed', updated_at: null });
  });

  test('null for name or sort_order means no change; null description clears it', async () => {
    const { a } = await chain();
    const res = await put(t, a.id, { name: null, sort_order: null });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual({ ...res.body, updated_at: null }, { ...a, updated_at: null });
    const cleared = await put(t, a.id, { description: null });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.description, null);
    assert.equal(cleared.body.name, 'A');
    assert.equal(cleared.body.sort_order, 4);
  });

  test('an empty body changes nothing but updated_at', async () => {
    const { b } = await chain();
    const res = await put(t, b.id, {});
    assert.equal(res.status, 200, res.text);
    assert.deepEqual({ ...res.body, updated_at: null }, { ...b, updated_at: null });
  });

  test('validation errors of an update, all listed; nothing is stored', async () => {
    const { a } = await chain();
    assert422(await put(t, a.id, { name: '' }), [err('name', 'String should have at least 1 character', 'string_too_short')]);
    assert422(await put(t, a.id, { name: x(201) }), [err('name', 'String should have at most 200 characters', 'string_too_long')]);
    assert.equal((await put(t, a.id, { name: x(200) })).status, 200);
    assert422(await put(t, a.id, { sort_order: -1 }), [
      err('sort_order', 'Input should be greater than or equal to 0', 'greater_than_equal'),
    ]);
    assert422(await put(t, a.id, { sort_order: 0.5 }), [
      err('sort_order', 'Input should be a valid integer, got a number with a fractional part', 'int_from_float'),
    ]);
    assert422(await put(t, a.id, { parent_id: 'nope' }), [err('parent_id', UUID_ERROR, 'uuid_parsing')]);
    assert422(await put(t, a.id, { name: '', description: 1, parent_id: 'x', sort_order: 'x' }), [
      err('name', 'String should have at least 1 character', 'string_too_short'),
      err('description', 'Input should be a valid string', 'string_type'),
      err('parent_id', UUID_ERROR, 'uuid_parsing'),
      err('sort_order', 'Input should be a valid integer', 'int_type'),
    ]);
    assert.equal((await get(t, a.id)).body.name, x(200));
  });

  test('a parent that does not exist is a 422 at body.parent_id', async () => {
    const { b } = await chain();
    assert422(await put(t, b.id, { parent_id: randomUUID() }), [NO_PARENT]);
    assert.deepEqual((await get(t, b.id)).body, b);
  });

  test('moving a category below itself or one of its descendants is a 422 (cycle)', async () => {
    const { a, b, c } = await chain();
    assert422(await put(t, a.id, { parent_id: a.id }), [CYCLE]);
    assert422(await put(t, a.id, { parent_id: b.id }), [CYCLE]);
    assert422(await put(t, a.id, { parent_id: c.id }), [CYCLE]);
    assert422(await put(t, b.id, { parent_id: c.id, name: 'not stored' }), [CYCLE]);
    assert422(await put(t, c.id, { parent_id: c.id.toUpperCase() }), [CYCLE]);
    // Nothing moved.
    for (const item of [a, b, c]) assert.deepEqual((await get(t, item.id)).body, item);
    assert.deepEqual(await list(t, `?parent_id=${a.id}`), [b]);
    assert.deepEqual(await list(t, `?parent_id=${b.id}`), [c]);
  });

  test('moving to another parent updates both parents’ children', async () => {
    const { a, b, c, d } = await chain();
    const moved = await put(t, c.id, { parent_id: d.id });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.parent_id, d.id);
    assert.deepEqual(await list(t, `?parent_id=${b.id}`), []);
    assert.deepEqual(await list(t, `?parent_id=${d.id}`), [moved.body]);
    // A whole subtree can move too, as long as it is not below itself: B (now a leaf) under D.
    const movedB = await put(t, b.id, { parent_id: d.id });
    assert.equal(movedB.status, 200, movedB.text);
    assert.deepEqual(await list(t, `?parent_id=${a.id}`), []);
    assert.deepEqual(names(await list(t, `?parent_id=${d.id}`)), ['B', 'C']);
  });

  test('parent_id: null moves the category to the top level', async () => {
    const { a, b, c } = await chain();
    const res = await put(t, b.id, { parent_id: null });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.parent_id, null);
    assert.deepEqual(await list(t, `?parent_id=${a.id}`), []);
    // Its own children move with it.
    assert.deepEqual(await list(t, `?parent_id=${b.id}`), [c]);
    const tree = await list(t, '?tree=true');
    const top = tree.find((n) => n.id === b.id);
    assert.ok(top, 'B is a top-level node of the tree');
    assert.deepEqual(shape([top]), [['B', [['C', []]]]]);
    assert.deepEqual(shape(tree.filter((n) => n.id === a.id)), [['A', []]]);
    // A is no longer above B and C, so moving A below C is fine now.
    const under = await put(t, a.id, { parent_id: c.id });
    assert.equal(under.status, 200, under.text);
    assert.deepEqual(shape((await list(t, '?tree=true')).filter((n) => n.id === b.id)), [['B', [['C', [['A', []]]]]]]);
  });
});

// ---- delete -----------------------------------------------------------------------------------

describe('DELETE /categories/{category_id}', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  test('a category with children is a 409; after its child goes it deletes with 204', async () => {
    const parent = await create(t, { name: 'Parent' });
    const child = await create(t, { name: 'Child', parent_id: parent.id });
    assertError(await del(t, parent.id), 409);
    assert.deepEqual((await get(t, parent.id)).body, parent);

    const gone = await del(t, child.id);
    assert.equal(gone.status, 204);
    assert.equal(gone.text, '');
    assertError(await get(t, child.id), 404);
    assert.deepEqual(await list(t, `?parent_id=${parent.id}`), []);

    const res = await del(t, parent.id);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assertError(await get(t, parent.id), 404);
    assert.ok(!(await list(t)).some((c) => c.id === parent.id || c.id === child.id));
  });

  test('deleting again, or updating a deleted category, is a 404', async () => {
    const c = await create(t, { name: 'Once' });
    assert.equal((await del(t, c.id)).status, 204);
    assertError(await del(t, c.id), 404);
    assertError(await put(t, c.id, { name: 'ghost' }), 404);
    assert422(await t.request('POST', CATEGORIES, { body: { name: 'orphan', parent_id: c.id } }), [NO_PARENT]);
  });

  test('a category whose child moved away deletes', async () => {
    const a = await create(t, { name: 'Old parent' });
    const b = await create(t, { name: 'New parent' });
    const child = await create(t, { name: 'Mover', parent_id: a.id });
    assertError(await del(t, a.id), 409);
    assert.equal((await put(t, child.id, { parent_id: b.id })).status, 200);
    assert.equal((await del(t, a.id)).status, 204);
    assertError(await del(t, b.id), 409);
  });
});
