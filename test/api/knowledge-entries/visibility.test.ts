// The visibility ceiling (DESIGN §2): visibility × ceiling × owner on GET, list, PUT and DELETE; writes above it.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assertError, assertInsufficientScope } from '../../helpers/assertions.js';
import { newCategory } from '../../helpers/fixtures.js';
import { stack, useStack, ENTRIES, VISIBILITIES, FULL_SCOPES, entryBody, create, get, getOk, put, putOk, del, list, sorted, otherUser } from './fixtures.js';

useStack();

type Visibility = (typeof VISIBILITIES)[number];

// The visibility ceiling (DESIGN §2): public < community < internal < restricted; workspace = internal.
const CEILINGS = ['none', 'community', 'internal', 'restricted'] as const;
type Ceiling = (typeof CEILINGS)[number];
const LEVEL: Record<Exclude<Visibility, 'personal'>, number> = { public: 0, community: 1, internal: 2, workspace: 2, restricted: 3 };
const CEILING_LEVEL: Record<Ceiling, number> = { none: 0, community: 1, internal: 2, restricted: 3 };
const scopesFor = (ceiling: Ceiling) => [...FULL_SCOPES, ...(ceiling === 'none' ? [] : [`visibility:${ceiling}`])];
const readable = (visibility: Visibility, ceiling: Ceiling, owner: boolean) =>
  visibility === 'personal' ? owner : LEVEL[visibility] <= CEILING_LEVEL[ceiling];

/** Keys of the tenant's own (owner) user and of a second user, one per ceiling. */
async function callerKeys(t: TenantFixture): Promise<{ owner: Record<Ceiling, string>; other: Record<Ceiling, string>; otherUserId: string }> {
  const other = await otherUser(t);
  const owner = {} as Record<Ceiling, string>;
  const others = {} as Record<Ceiling, string>;
  for (const ceiling of CEILINGS) {
    owner[ceiling] = await t.keyWith(scopesFor(ceiling));
    others[ceiling] = await other.keyWith(scopesFor(ceiling));
  }
  return { owner, other: others, otherUserId: other.userId };
}

// ---- the visibility matrix (DESIGN §2) ---------------------------------------------------------

describe('visibility matrix: GET, list, PUT and DELETE of one entry', () => {
  let t: TenantFixture;
  let keys: Awaited<ReturnType<typeof callerKeys>>;
  before(async () => {
    t = await stack.tenant();
    keys = await callerKeys(t);
  });

  for (const visibility of VISIBILITIES) {
    for (const ceiling of CEILINGS) {
      for (const owner of [true, false]) {
        const canRead = readable(visibility, ceiling, owner);
        test(`${visibility} × ceiling ${ceiling} × ${owner ? 'owner' : 'other user'} → ${canRead ? 'readable' : '404 everywhere'}`, async () => {
          const key = owner ? keys.owner[ceiling] : keys.other[ceiling];
          const cat = await newCategory(t);
          const e = await create(t, cat, { visibility }); // by the owner, with every scope

          const got = await get(t, e.id, key);
          const listed = await list(t, `?category_id=${cat}`, key);
          const listedByVisibility = await list(t, `?category_id=${cat}&visibility=${visibility}`, key);
          if (canRead) {
            assert.equal(got.status, 200, got.text);
            assert.deepEqual(got.body, e);
            assert.deepEqual(listed.ids, [e.id]);
            assert.equal(listed.total, 1);
            assert.deepEqual(listedByVisibility.ids, [e.id]);
            assert.equal(listedByVisibility.total, 1);
            const updated = await putOk(t, e.id, { summary: 'changed' }, key);
            assert.equal(updated.summary, 'changed');
            assert.equal(updated.visibility, visibility);
            assert.equal(updated.version, 2);
            const deleted = await del(t, e.id, key);
            assert.equal(deleted.status, 204, deleted.text);
            assert.equal(deleted.text, '');
            assertError(await get(t, e.id), 404);
          } else {
            assertError(got, 404);
            assertError(await get(t, e.id, key, '?include_expired=true'), 404);
            assert.deepEqual(listed.ids, []);
            assert.equal(listed.total, 0);
            assert.deepEqual(listedByVisibility.ids, []);
            assert.equal(listedByVisibility.total, 0);
            assertError(await put(t, e.id, { summary: 'changed' }, key), 404);
            assertError(await put(t, e.id, { summary: 'changed' }, key, { 'If-Match': '1' }), 404);
            assertError(await del(t, e.id, key), 404);
            // Nothing changed: the owner with every scope still sees version 1, unchanged.
            assert.deepEqual(await getOk(t, e.id), e);
            assert.equal((await del(t, e.id)).status, 204);
          }
        });
      }
    }
  }
});

describe('visibility matrix: the unfiltered list and X-Total-Count', () => {
  let t: TenantFixture;
  let keys: Awaited<ReturnType<typeof callerKeys>>;
  const ids = {} as Record<Visibility, string>;
  before(async () => {
    t = await stack.tenant();
    keys = await callerKeys(t);
    const cat = await newCategory(t);
    for (const visibility of VISIBILITIES) ids[visibility] = (await create(t, cat, { visibility })).id;
  });

  for (const ceiling of CEILINGS) {
    for (const owner of [true, false]) {
      const expected = VISIBILITIES.filter((v) => readable(v, ceiling, owner));
      test(`ceiling ${ceiling} × ${owner ? 'owner' : 'other user'} lists ${expected.join(', ')}`, async () => {
        const key = owner ? keys.owner[ceiling] : keys.other[ceiling];
        const all = await list(t, '', key);
        assert.deepEqual(sorted(all.ids), sorted(expected.map((v) => ids[v])));
        assert.equal(all.total, expected.length);
        for (const visibility of VISIBILITIES) {
          const one = await list(t, `?visibility=${visibility}`, key);
          const want = expected.includes(visibility) ? [ids[visibility]] : [];
          assert.deepEqual(one.ids, want, visibility);
          assert.equal(one.total, want.length, visibility);
        }
      });
    }
  }
});

describe('writing above the ceiling: 403 with insufficient_scope', () => {
  let t: TenantFixture;
  let keys: Awaited<ReturnType<typeof callerKeys>>;
  before(async () => {
    t = await stack.tenant();
    keys = await callerKeys(t);
  });

  for (const ceiling of CEILINGS) {
    for (const visibility of ['public', 'community', 'internal', 'workspace', 'restricted'] as const) {
      const allowed = LEVEL[visibility] <= CEILING_LEVEL[ceiling];
      const needed = `visibility:${visibility === 'workspace' ? 'internal' : visibility}`;
      test(`ceiling ${ceiling} writing ${visibility} → ${allowed ? 'allowed' : `403 ${needed}`}`, async () => {
        const key = keys.owner[ceiling];
        const cat = await newCategory(t);
        // Create.
        const created = await t.request('POST', ENTRIES, { key, body: entryBody(cat, { visibility }) });
        // PUT moving a public entry up.
        const e = await create(t, cat, { visibility: 'public' }, key);
        const moved = await put(t, e.id, { visibility }, key);
        if (allowed) {
          assert.equal(created.status, 201, created.text);
          assert.equal(created.body.visibility, visibility);
          assert.equal(moved.status, 200, moved.text);
          assert.equal(moved.body.visibility, visibility);
          assert.equal(moved.body.version, visibility === 'public' ? 1 : 2);
        } else {
          assertInsufficientScope(created, needed);
          assertInsufficientScope(moved, needed);
          assert.deepEqual(await getOk(t, e.id), e);
          // Nothing was created: the all-scopes key sees only the public entry in this category.
          assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, [e.id]);
        }
      });
    }
  }

  test('a caller cannot PUT an entry it cannot read even to a visibility within its ceiling (404)', async () => {
    const cat = await newCategory(t);
    const e = await create(t, cat, { visibility: 'restricted' });
    assertError(await put(t, e.id, { visibility: 'public' }, keys.owner.community), 404);
    assert.equal((await getOk(t, e.id)).visibility, 'restricted');
  });
});
