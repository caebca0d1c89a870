// X-Scopes narrowing the token's scopes on the knowledge entry routes (DESIGN §2).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assertError, assertInsufficientScope } from '../../helpers/assertions.js';
import { newCategory } from '../../helpers/fixtures.js';
import { stack, useStack, ENTRIES, FULL_SCOPES, entryBody, create, get, put, del, list, sorted } from './fixtures.js';

useStack();

// ---- X-Scopes (DESIGN §2) ----------------------------------------------------------------------

describe('X-Scopes narrows the token\'s scopes', () => {
  let t: TenantFixture;
  let cat: string;
  const ids = {} as Record<string, string>;
  const shared = ['public', 'community', 'internal', 'workspace', 'restricted'] as const;
  before(async () => {
    t = await stack.tenant();
    cat = await newCategory(t);
    for (const visibility of shared) ids[visibility] = (await create(t, cat, { visibility })).id;
  });
  const idsOf = (...visibilities: string[]) => sorted(visibilities.map((v) => ids[v]));

  test('without the header (or with an empty one) the all-scopes key reads everything', async () => {
    assert.deepEqual(sorted((await list(t)).ids), idsOf(...shared));
    const empty = await list(t, '', undefined, { 'X-Scopes': '' });
    assert.deepEqual(sorted(empty.ids), idsOf(...shared));
    assert.equal(empty.total, 5);
  });

  test('X-Scopes: knowledge:read drops the ceiling to public', async () => {
    const headers = { 'X-Scopes': 'knowledge:read' };
    const res = await list(t, '', undefined, headers);
    assert.deepEqual(res.ids, [ids.public]);
    assert.equal(res.total, 1);
    assert.equal((await t.request('GET', `${ENTRIES}/${ids.public}`, { headers })).status, 200);
    for (const v of ['community', 'internal', 'workspace', 'restricted']) {
      assertError(await t.request('GET', `${ENTRIES}/${ids[v]}`, { headers }), 404);
    }
  });

  test('X-Scopes: knowledge:read visibility:internal reads up to internal', async () => {
    const headers = { 'X-Scopes': 'knowledge:read visibility:internal' };
    const res = await list(t, '', undefined, headers);
    assert.deepEqual(sorted(res.ids), idsOf('public', 'community', 'internal', 'workspace'));
    assert.equal(res.total, 4);
    assert.equal((await t.request('GET', `${ENTRIES}/${ids.internal}`, { headers })).status, 200);
    assertError(await t.request('GET', `${ENTRIES}/${ids.restricted}`, { headers }), 404);
  });

  test('the header cannot widen: a key without visibility scopes still reads only public', async () => {
    const key = await t.keyWith(FULL_SCOPES);
    const headers = { 'X-Scopes': 'knowledge:read visibility:restricted' };
    const res = await list(t, '', key, headers);
    assert.deepEqual(res.ids, [ids.public]);
    assert.equal(res.total, 1);
    assertError(await t.request('GET', `${ENTRIES}/${ids.restricted}`, { key, headers }), 404);
    // The plain intersection: a scope the header does not repeat is dropped, one the key lacks is not added.
    const community = await t.keyWith(['knowledge:read', 'visibility:community']);
    assert.deepEqual((await list(t, '', community, headers)).ids, [ids.public]);
    const both = { 'X-Scopes': 'knowledge:read visibility:community visibility:restricted' };
    assert.deepEqual(sorted((await list(t, '', community, both)).ids), idsOf('public', 'community'));
    assertError(await t.request('GET', `${ENTRIES}/${ids.internal}`, { key: community, headers: both }), 404);
  });

  test('a knowledge:read-only key cannot write (403 knowledge:write)', async () => {
    const key = await t.keyWith(['knowledge:read', 'visibility:restricted']);
    assertInsufficientScope(await t.request('POST', ENTRIES, { key, body: entryBody(cat) }), 'knowledge:write');
    assertInsufficientScope(await t.request('POST', `${ENTRIES}/personal`, { key, body: entryBody(cat) }), 'knowledge:write');
    assertInsufficientScope(await put(t, ids.public, { title: 'x' }, key), 'knowledge:write');
    assertInsufficientScope(await del(t, ids.public, key), 'knowledge:write');
    assert.equal((await get(t, ids.public, key)).status, 200);
  });

  test('narrowed by the header, the all-scopes key cannot write either', async () => {
    const headers = { 'X-Scopes': 'knowledge:read visibility:restricted' };
    assertInsufficientScope(await t.request('POST', ENTRIES, { body: entryBody(cat), headers }), 'knowledge:write');
    assertInsufficientScope(await t.request('DELETE', `${ENTRIES}/${ids.public}`, { headers }), 'knowledge:write');
  });

  test('write does not imply read: X-Scopes: knowledge:write cannot list or get', async () => {
    const headers = { 'X-Scopes': 'knowledge:write' };
    assertInsufficientScope(await t.request('GET', ENTRIES, { headers }), 'knowledge:read');
    assertInsufficientScope(await t.request('GET', `${ENTRIES}/${ids.public}`, { headers }), 'knowledge:read');
  });

  test('the narrowed ceiling also bounds writes', async () => {
    const headers = { 'X-Scopes': 'knowledge:read knowledge:write' };
    assertInsufficientScope(await t.request('POST', ENTRIES, { body: entryBody(cat, { visibility: 'community' }), headers }), 'visibility:community');
    const res = await t.request('POST', ENTRIES, { body: entryBody(cat, { visibility: 'public' }), headers });
    assert.equal(res.status, 201, res.text);
    assert.equal((await del(t, res.body.id)).status, 204);
  });
});
