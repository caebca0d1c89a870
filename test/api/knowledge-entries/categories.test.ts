// A category holding knowledge entries (expired or another user's personal ones too) cannot be deleted.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422, assertError } from '../../helpers/assertions.js';
import { newCategory } from '../../helpers/fixtures.js';
import { stack, useStack, ENTRIES, CATEGORIES, FULL_SCOPES, categoryNotFound, entryBody, create, put, putOk, del, otherUser } from './fixtures.js';

useStack();

// ---- categories holding entries ----------------------------------------------------------------

describe('a category with entries cannot be deleted', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });
  const deleteCategory = (id: string) => t.request('DELETE', `${CATEGORIES}/${id}`);

  test('DELETE category → 409 while it holds entries; 204 once they are gone', async () => {
    const cat = await newCategory(t);
    const other = await newCategory(t);
    const a = await create(t, cat);
    const b = await create(t, cat, { type: 'memory', metadata: { expires_at: new Date(Date.now() - 60_000).toISOString() } });
    assertError(await deleteCategory(cat), 409);
    await putOk(t, a.id, { category_id: other });
    // The expired memory still counts.
    assertError(await deleteCategory(cat), 409);
    assert.equal((await del(t, b.id)).status, 204);
    const res = await deleteCategory(cat);
    assert.equal(res.status, 204, res.text);
    assertError(await t.request('GET', `${CATEGORIES}/${cat}`), 404);
    // The moved entry now holds the other category.
    assertError(await deleteCategory(other), 409);
    assert422(await put(t, a.id, { category_id: cat }), [categoryNotFound]);
    assert422(await t.request('POST', ENTRIES, { body: entryBody(cat) }), [categoryNotFound]);
    assert.equal((await del(t, a.id)).status, 204);
    assert.equal((await deleteCategory(other)).status, 204);
  });

  test('another user\'s personal entry also holds the category', async () => {
    const cat = await newCategory(t);
    const other = await otherUser(t);
    const otherKey = await other.keyWith(FULL_SCOPES);
    const p = await create(t, cat, { visibility: 'personal' }, otherKey);
    assertError(await deleteCategory(cat), 409);
    assert.equal((await del(t, p.id, otherKey)).status, 204);
    assert.equal((await deleteCategory(cat)).status, 204);
  });
});
