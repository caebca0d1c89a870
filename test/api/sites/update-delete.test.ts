// PUT /sites/{site_id} (partial updates, the limits) and DELETE /sites/{site_id} (with the background
// purge of the site's products).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { before, describe, test } from 'node:test';
import { keys } from '../../../src/store/keys.js';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422, assertError } from '../../helpers/assertions.js';
import { stack, useStack, SITES, x, err, tooShort, tooLong, create, createInOrder, list, get } from './fixtures.js';

useStack();

// ---- partial update ---------------------------------------------------------------------------

describe('PUT /sites/{site_id}', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  const full = () =>
    create(t, {
      name: 'Original', language: 'en', domain: 'orig.example', site_type: 'blog', platform: 'wordpress',
      config: { a: 1, b: { c: 2 } },
    });
  const put = (idOrSlug: string, body: unknown) => t.request('PUT', `${SITES}/${idOrSlug}`, { body });

  test('only the provided fields change', async () => {
    const site = await full();
    const res = await put(site.id, { name: 'Renamed' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { ...site, name: 'Renamed' });
    assert.deepEqual((await get(t, site.id)).body, res.body);

    const res2 = await put(site.slug, { site_type: 'shop', platform: 'shopify', domain: 'new.example' });
    assert.equal(res2.status, 200, res2.text);
    assert.deepEqual(res2.body, { ...site, name: 'Renamed', site_type: 'shop', platform: 'shopify', domain: 'new.example' });
  });

  test('an empty body changes nothing', async () => {
    const site = await full();
    const res = await put(site.id, {});
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, site);
  });

  test('config is replaced, not merged', async () => {
    const site = await full();
    const res = await put(site.id, { config: { z: [1] } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.config, { z: [1] });
    const cleared = await put(site.id, { config: {} });
    assert.deepEqual(cleared.body.config, {});
    assert.deepEqual((await get(t, site.id)).body.config, {});
  });

  test('slug and language in the body are ignored', async () => {
    const site = await full();
    const res = await put(site.id, { slug: 'changed-slug', language: 'de', name: 'With ignored keys' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { ...site, name: 'With ignored keys' });
    assert.equal((await get(t, site.slug)).status, 200);
    assertError(await get(t, 'changed-slug'), 404);
    // Even invalid values for them are ignored: they are not part of the update payload.
    const invalid = await put(site.id, { slug: 'NOT VALID', language: '' });
    assert.equal(invalid.status, 200, invalid.text);
    assert.equal(invalid.body.slug, site.slug);
    assert.equal(invalid.body.language, site.language);
  });

  test('null for name, site_type, config or is_default means no change', async () => {
    const site = await full();
    const res = await put(site.id, { name: null, site_type: null, config: null, is_default: null });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, site);
  });

  test('null for domain or platform clears it', async () => {
    const site = await full();
    const res = await put(site.id, { domain: null });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { ...site, domain: null });
    const res2 = await put(site.id, { platform: null });
    assert.deepEqual(res2.body, { ...site, domain: null, platform: null });
    assert.deepEqual((await get(t, site.id)).body, res2.body);
  });

  test('the limits apply to the update fields, at and over the boundary', async () => {
    const site = await full();
    const ok = await put(site.id, { name: x(200), domain: x(255), site_type: x(50), platform: x(50) });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body, { ...site, name: x(200), domain: x(255), site_type: x(50), platform: x(50) });

    assert422(await put(site.id, { name: '' }), [tooShort('name', 1)]);
    assert422(await put(site.id, { name: x(201) }), [tooLong('name', 200)]);
    assert422(await put(site.id, { domain: x(256) }), [tooLong('domain', 255)]);
    assert422(await put(site.id, { site_type: x(51) }), [tooLong('site_type', 50)]);
    assert422(await put(site.id, { platform: x(51) }), [tooLong('platform', 50)]);
    assert422(await put(site.id, { config: [] }), [err('config', 'Input should be a valid dictionary', 'dict_type')]);
    assert422(await put(site.id, { is_default: [] }), [err('is_default', 'Input should be a valid boolean', 'bool_type')]);
    assert422(await put(site.id, { name: 7 }), [err('name', 'Input should be a valid string', 'string_type')]);
  });

  test('all errors of an update are listed and nothing is stored', async () => {
    const site = await full();
    assert422(await put(site.id, { name: '', domain: x(256), site_type: x(51), platform: x(51), config: 'x', is_default: {} }), [
      tooShort('name', 1),
      tooLong('domain', 255),
      tooLong('site_type', 50),
      tooLong('platform', 50),
      err('config', 'Input should be a valid dictionary', 'dict_type'),
      err('is_default', 'Input should be a valid boolean', 'bool_type'),
    ]);
    assert.deepEqual((await get(t, site.id)).body, site);
  });

  test('an unknown site is a 404', async () => {
    assertError(await put(randomUUID(), { name: 'X' }), 404);
    assertError(await put('no-such-site', { name: 'X' }), 404);
  });
});

// ---- delete -----------------------------------------------------------------------------------

describe('DELETE /sites/{site_id}', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  test('answers 204 with an empty body; the site is gone from reads at once', async () => {
    const [keep, doomed] = await createInOrder(t, 2);
    const res = await t.request('DELETE', `${SITES}/${doomed.id}`);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assertError(await get(t, doomed.id), 404);
    assertError(await get(t, doomed.slug), 404);
    const remaining = await list(t);
    assert.ok(!remaining.some((s) => s.id === doomed.id));
    assert.ok(remaining.some((s) => s.id === keep.id));
  });

  test('by slug works too; deleting again is a 404', async () => {
    const site = await create(t);
    assert.equal((await t.request('DELETE', `${SITES}/${site.slug}`)).status, 204);
    assertError(await t.request('DELETE', `${SITES}/${site.slug}`), 404);
    assertError(await t.request('DELETE', `${SITES}/${site.id}`), 404);
    assertError(await t.request('PUT', `${SITES}/${site.id}`, { body: { name: 'ghost' } }), 404);
  });

  test('an unknown site is a 404', async () => {
    assertError(await t.request('DELETE', `${SITES}/${randomUUID()}`), 404);
    assertError(await t.request('DELETE', `${SITES}/no-such-site`), 404);
  });

  test("a deleted site's slug can be used again", async () => {
    const old = await create(t, { slug: 'reused', name: 'Old' });
    assert.equal((await t.request('DELETE', `${SITES}/${old.id}`)).status, 204);
    const fresh = await create(t, { slug: 'reused', name: 'New' });
    assert.notEqual(fresh.id, old.id);
    const bySlug = await get(t, 'reused');
    assert.equal(bySlug.status, 200);
    assert.deepEqual(bySlug.body, fresh);
    assertError(await get(t, old.id), 404);
  });

  test("the site's products are purged in the background; other sites' products stay", async () => {
    const own = await stack.tenant();
    const [doomed, kept] = await createInOrder(own, 2);
    const tid = own.tenant.id;
    const PRODUCTS = '/api/knowledge/products';
    const redis = await stack.client();
    try {
      const seed = async (siteSlug: string, count: number): Promise<string[]> => {
        const ids: string[] = [];
        for (let i = 0; i < count; i++) {
          const res = await own.request('POST', `${PRODUCTS}?site_id=${siteSlug}`, {
            body: { external_id: `ext-${i}`, title: `P${i}`, language: 'en' },
          });
          assert.equal(res.status, 201, res.text);
          ids.push(res.body.id);
        }
        return ids;
      };
      const doomedIds = await seed(doomed.slug, 7);
      const keptIds = await seed(kept.slug, 2);
      const doomedKeys = doomedIds.map((id) => keys.product(tid, id));
      const keptKeys = keptIds.map((id) => keys.product(tid, id));
      assert.equal(await redis.exists(...doomedKeys, ...keptKeys), doomedKeys.length + keptKeys.length);

      assert.equal((await own.request('DELETE', `${SITES}/${doomed.id}`)).status, 204);

      const keptListed = async () => {
        const res = await own.request('GET', `${PRODUCTS}?site_id=${kept.slug}`);
        assert.equal(res.status, 200, res.text);
        return (res.body as any[]).map((p) => p.id).sort();
      };
      const doomedAnswering = async () => {
        const statuses = await Promise.all(doomedIds.map(async (id) => (await own.request('GET', `${PRODUCTS}/${id}`)).status));
        return statuses.filter((s) => s !== 404).length;
      };
      let keysLeft = doomedKeys.length;
      let answering = doomedIds.length;
      for (const deadline = Date.now() + 5000; Date.now() < deadline; await delay(50)) {
        keysLeft = await redis.exists(...doomedKeys);
        answering = await doomedAnswering();
        if (keysLeft === 0 && answering === 0) break;
      }
      assert.equal(answering, 0, "the deleted site's products still answer after 5 s");
      assert.equal(keysLeft, 0, 'the deleted site still has product keys after 5 s');
      assert.equal(await redis.exists(keys.siteProducts(tid, doomed.id), keys.siteExternalIds(tid, doomed.id)), 0);

      // The other site's products are all still there, listed and readable.
      assert.deepEqual(await keptListed(), [...keptIds].sort());
      assert.equal(await redis.exists(...keptKeys), keptKeys.length);
      for (const id of keptIds) assert.equal((await own.request('GET', `${PRODUCTS}/${id}`)).status, 200);
      assertError(await own.request('GET', `${PRODUCTS}?site_id=${doomed.id}`), 404);
      // The tenant-wide list no longer counts the purged products.
      const all = await own.request('GET', `${PRODUCTS}?limit=200`);
      assert.equal(all.status, 200, all.text);
      assert.equal(all.headers['x-total-count'], String(keptIds.length));
      assert.deepEqual((all.body as any[]).map((p) => p.id).sort(), [...keptIds].sort());
    } finally {
      redis.disconnect();
    }
  });
});
