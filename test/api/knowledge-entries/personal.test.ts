// Personal entries: POST /knowledge-entries/personal, the refusal on the main path, owner-only access.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422, assertError } from '../../helpers/assertions.js';
import { newCategory } from '../../helpers/fixtures.js';
import { stack, useStack, ENTRIES, ENTRY_KEYS, VISIBILITIES, FULL_SCOPES, err, tooShort, enumOf, categoryNotFound, entryBody, create, get, getOk, put, putOk, del, list, otherUser } from './fixtures.js';

useStack();

const PERSONAL_REFUSED = 'Personal entries are created through POST /api/knowledge/knowledge-entries/personal';

// ---- personal entries --------------------------------------------------------------------------

describe('personal entries', () => {
  let t: TenantFixture;
  let cat: string;
  before(async () => {
    t = await stack.tenant();
    cat = await newCategory(t);
  });

  test('visibility personal on the main create path is a 422 at body.visibility', async () => {
    assert422(await t.request('POST', ENTRIES, { body: entryBody(cat, { visibility: 'personal' }) }), [
      err(['body', 'visibility'], PERSONAL_REFUSED, 'value_error'),
    ]);
    assert.equal((await list(t, `?category_id=${cat}`)).total, 0);
  });

  test('POST /personal forces visibility personal and the caller as owner', async () => {
    for (const visibility of ['public', 'restricted', 'personal', undefined]) {
      const body = entryBody(cat, { visibility });
      if (visibility === undefined) delete body.visibility;
      const res = await t.request('POST', `${ENTRIES}/personal`, { body });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ENTRY_KEYS);
      assert.equal(res.body.visibility, 'personal', String(visibility));
      assert.equal(res.body.created_by_user_id, t.user.id);
      assert.equal(res.body.version, 1);
      assert.equal((await getOk(t, res.body.id)).visibility, 'personal');
    }
  });

  test('POST /personal validates the body like the main path', async () => {
    assert422(await t.request('POST', `${ENTRIES}/personal`, { body: entryBody(cat, { title: '', visibility: 'secret' }) }), [
      tooShort(['body', 'title'], 1),
      enumOf(['body', 'visibility'], VISIBILITIES),
    ]);
    assert422(await t.request('POST', `${ENTRIES}/personal`, { body: entryBody(randomUUID()) }), [categoryNotFound]);
  });

  test('POST /personal needs no visibility scope, and the owner reads it back with any ceiling', async () => {
    const key = await t.keyWith(FULL_SCOPES);
    const res = await t.request('POST', `${ENTRIES}/personal`, { key, body: entryBody(cat) });
    assert.equal(res.status, 201, res.text);
    assert.equal((await getOk(t, res.body.id, key)).id, res.body.id);
    assert.ok((await list(t, '', key)).ids.includes(res.body.id));
  });

  test('a PUT on the main path setting visibility personal is a 422', async () => {
    const e = await create(t, cat);
    assert422(await put(t, e.id, { visibility: 'personal' }), [err(['body', 'visibility'], PERSONAL_REFUSED, 'value_error')]);
    assert.deepEqual(await getOk(t, e.id), e);
    // Also on an entry that is personal already.
    const p = await create(t, cat, { visibility: 'personal' });
    assert422(await put(t, p.id, { visibility: 'personal' }), [err(['body', 'visibility'], PERSONAL_REFUSED, 'value_error')]);
  });

  test('the owner updates and deletes a personal entry; to another user it does not exist', async () => {
    const other = await otherUser(t);
    const otherKey = await other.keyWith([...FULL_SCOPES, 'visibility:restricted', 'admin']);
    const p = await create(t, cat, { visibility: 'personal' });
    assertError(await get(t, p.id, otherKey), 404);
    assertError(await put(t, p.id, { title: 'hijack' }, otherKey), 404);
    assertError(await del(t, p.id, otherKey), 404);
    assert.ok(!(await list(t, '', otherKey)).ids.includes(p.id));
    assert.ok(!(await list(t, '?visibility=personal', otherKey)).ids.includes(p.id));
    const updated = await putOk(t, p.id, { title: 'Mine' });
    assert.equal(updated.title, 'Mine');
    assert.equal(updated.visibility, 'personal');
    assert.equal(updated.version, 2);
    assert.equal((await del(t, p.id)).status, 204);
    assertError(await get(t, p.id), 404);
  });
});
