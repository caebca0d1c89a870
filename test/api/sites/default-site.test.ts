// The default site: the first one, moves by POST and PUT, deletion, one default through any series
// of changes and under concurrent writes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError } from '../../helpers/assertions.js';
import { stack, useStack, SITES, siteBody, create, createInOrder, list, defaultId, get } from './fixtures.js';

useStack();

// ---- the default site -------------------------------------------------------------------------

describe('default site', () => {
  test('the first site becomes the default, later ones do not', async () => {
    const t = await stack.tenant();
    const [first, second] = await createInOrder(t, 2);
    assert.equal(first.is_default, true);
    assert.equal(second.is_default, false);
    assert.equal(await defaultId(t), first.id);
  });

  test('the first site is the default even when created with is_default: false', async () => {
    const t = await stack.tenant();
    const first = await create(t, { is_default: false });
    assert.equal(first.is_default, true);
    assert.equal(await defaultId(t), first.id);
  });

  test('creating with is_default: true moves the default', async () => {
    const t = await stack.tenant();
    const [first] = await createInOrder(t, 1);
    const second = await create(t, { is_default: true });
    assert.equal(second.is_default, true);
    assert.equal((await get(t, first.id)).body.is_default, false);
    assert.equal(await defaultId(t), second.id);
  });

  test('PUT is_default: true moves the default', async () => {
    const t = await stack.tenant();
    const [first, second, third] = await createInOrder(t, 3);
    const res = await t.request('PUT', `${SITES}/${third.id}`, { body: { is_default: true } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.is_default, true);
    assert.equal(await defaultId(t), third.id);
    assert.equal((await get(t, first.id)).body.is_default, false);
    assert.equal((await get(t, second.id)).body.is_default, false);
    // Setting it again on the default is harmless.
    const again = await t.request('PUT', `${SITES}/${third.slug}`, { body: { is_default: true } });
    assert.equal(again.status, 200, again.text);
    assert.equal(await defaultId(t), third.id);
  });

  test('PUT is_default: false on the default site is a 409; on another site it changes nothing', async () => {
    const t = await stack.tenant();
    const [first, second] = await createInOrder(t, 2);
    assertError(await t.request('PUT', `${SITES}/${first.id}`, { body: { is_default: false, name: 'Renamed' } }), 409);
    const unchanged = await get(t, first.id);
    assert.deepEqual(unchanged.body, first);
    const other = await t.request('PUT', `${SITES}/${second.id}`, { body: { is_default: false } });
    assert.equal(other.status, 200, other.text);
    assert.equal(other.body.is_default, false);
    assert.equal(await defaultId(t), first.id);
  });

  test('PUT is_default: null changes nothing', async () => {
    const t = await stack.tenant();
    const [first, second] = await createInOrder(t, 2);
    assert.equal((await t.request('PUT', `${SITES}/${first.id}`, { body: { is_default: null } })).body.is_default, true);
    assert.equal((await t.request('PUT', `${SITES}/${second.id}`, { body: { is_default: null } })).body.is_default, false);
    assert.equal(await defaultId(t), first.id);
  });

  test('deleting the default makes the oldest remaining site the default', async () => {
    const t = await stack.tenant();
    const [s1, s2, s3, s4] = await createInOrder(t, 4);
    assert.equal(await defaultId(t), s1.id);

    assert.equal((await t.request('PUT', `${SITES}/${s3.id}`, { body: { is_default: true } })).status, 200);
    assert.equal(await defaultId(t), s3.id);

    // Deleting a site that is not the default leaves the default where it is.
    assert.equal((await t.request('DELETE', `${SITES}/${s1.id}`)).status, 204);
    assert.equal(await defaultId(t), s3.id);

    // Deleting the default: the oldest remaining (s2) takes over, not the newest.
    assert.equal((await t.request('DELETE', `${SITES}/${s3.id}`)).status, 204);
    assert.equal(await defaultId(t), s2.id);
    assert.equal((await get(t, s2.id)).body.is_default, true);
    assert.equal((await get(t, s4.id)).body.is_default, false);

    assert.equal((await t.request('DELETE', `${SITES}/${s2.slug}`)).status, 204);
    assert.equal(await defaultId(t), s4.id);

    // The last site goes: no default; the next site created is the first again and becomes the default.
    assert.equal((await t.request('DELETE', `${SITES}/${s4.id}`)).status, 204);
    assert.deepEqual(await list(t), []);
    const fresh = await create(t);
    assert.equal(fresh.is_default, true);
    assert.equal(await defaultId(t), fresh.id);
  });

  test('there is exactly one default through a series of changes', async () => {
    const t = await stack.tenant();
    const sites = await createInOrder(t, 3);
    const steps: Array<() => Promise<unknown>> = [
      () => create(t, { is_default: true }),
      () => t.request('PUT', `${SITES}/${sites[1].id}`, { body: { is_default: true } }),
      () => create(t, { is_default: false }),
      () => t.request('PUT', `${SITES}/${sites[2].id}`, { body: { is_default: true, name: 'now default' } }),
      () => t.request('DELETE', `${SITES}/${sites[2].id}`),
      () => t.request('PUT', `${SITES}/${sites[0].id}`, { body: { is_default: true } }),
    ];
    for (const step of steps) {
      await step();
      const all = await list(t);
      assert.equal(all.filter((s) => s.is_default).length, 1, JSON.stringify(all.map((s) => [s.slug, s.is_default])));
    }
  });
});

describe('default site under concurrent writes', () => {
  test('concurrent creates and moves leave exactly one default', async () => {
    const t = await stack.tenant();
    const existing = await createInOrder(t, 4);
    const results = await Promise.all([
      ...Array.from({ length: 8 }, () => t.request('POST', SITES, { body: siteBody({ is_default: true }) })),
      ...existing.map((s) => t.request('PUT', `${SITES}/${s.id}`, { body: { is_default: true } })),
    ]);
    for (const res of results) assert.ok(res.status === 201 || res.status === 200, res.text);
    const all = await list(t);
    assert.equal(all.length, 12);
    assert.equal(all.filter((s) => s.is_default).length, 1);
  });
});
