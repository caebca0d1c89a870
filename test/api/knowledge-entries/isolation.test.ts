// Tenant isolation of knowledge entries: another tenant never reads, changes or deletes them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assert422, assertError } from '../../helpers/assertions.js';
import { newCategory } from '../../helpers/fixtures.js';
import { stack, useStack, ENTRIES, VISIBILITIES, categoryNotFound, entryBody, create, get, getOk, put, del, list } from './fixtures.js';

useStack();

// ---- tenant isolation --------------------------------------------------------------------------

describe('tenant isolation', () => {
  test('tenant B never sees, changes or deletes A\'s entries', async () => {
    const a = await stack.tenant();
    const b = await stack.tenant();
    const catA = await newCategory(a);
    const catB = await newCategory(b);
    const created: any[] = [];
    for (const visibility of VISIBILITIES) created.push(await create(a, catA, { visibility, type: 'memory' }));
    for (const e of created) {
      assertError(await get(b, e.id), 404);
      assertError(await get(b, e.id, undefined, '?include_expired=true'), 404);
      assertError(await put(b, e.id, { title: 'hijack' }), 404);
      assertError(await del(b, e.id), 404);
    }
    const listB = await list(b, '?include_expired=true');
    assert.deepEqual(listB.ids, []);
    assert.equal(listB.total, 0);
    assert.deepEqual((await list(b, `?category_id=${catA}`)).ids, []);
    assert.deepEqual((await list(b, '?type=memory')).ids, []);
    // B cannot file an entry under A's category.
    assert422(await b.request('POST', ENTRIES, { body: entryBody(catA) }), [categoryNotFound]);
    const own = await create(b, catB);
    assert.deepEqual((await list(b)).ids, [own.id]);
    assertError(await get(a, own.id), 404);
    assert.ok(!(await list(a)).ids.includes(own.id));
    // A's key is not a credential at B.
    const res = await stack.request('GET', `${ENTRIES}/${created[0].id}`, { tenant: b.tenant.slug, key: a.key });
    assert.equal(res.status, 401, res.text);
    // A's entries are untouched.
    for (const e of created) assert.deepEqual(await getOk(a, e.id), e);
  });
});
