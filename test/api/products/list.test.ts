// GET /products: the site, language and category filters, paging and X-Total-Count.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422, assertError } from '../../helpers/assertions.js';
import { stack, useStack, PRODUCTS, uniq, err, ge, le, createSite, productBody, upsert, listProducts } from './fixtures.js';

useStack();

const byCreated = (a: any, b: any) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

// ---- list -------------------------------------------------------------------------------------

describe('GET /products: filters', () => {
  let t: TenantFixture;
  let s1: any;
  let s2: any;
  const made: any[] = [];
  before(async () => {
    t = await stack.tenant();
    s1 = await createSite(t);
    s2 = await createSite(t);
    const plan: [any, string, string | null, number][] = [
      [s1, 'en', 'shoes', 3], [s1, 'en', 'hats', 2], [s1, 'de', 'shoes', 2], [s1, 'de', null, 1],
      [s2, 'en', 'shoes', 2], [s2, 'fr', 'hats', 1], [s2, 'en', 'shoes & boots/2', 1],
    ];
    for (const [site, language, category, count] of plan) {
      for (let i = 0; i < count; i++) made.push(await upsert(t, site.slug, productBody({ language, category }), 'created'));
    }
  });

  test('every combination of site, language and category, with X-Total-Count', async () => {
    for (const site of [undefined, s1, s2]) {
      for (const language of [undefined, 'en', 'de', 'fr', 'es']) {
        for (const category of [undefined, 'shoes', 'hats', 'shoes & boots/2', 'none']) {
          const params = new URLSearchParams();
          if (site) params.set('site_id', site.id);
          if (language) params.set('language', language);
          if (category) params.set('category', category);
          params.set('limit', '200');
          const expected = made
            .filter((p) => (!site || p.site_id === site.id) && (!language || p.language === language) && (!category || p.category === category))
            .sort(byCreated)
            .map((p) => p.id);
          const { items, total } = await listProducts(t, `?${params}`);
          assert.deepEqual(items.map((p) => p.id), expected, params.toString());
          assert.equal(total, expected.length, params.toString());
        }
      }
    }
  });

  test('the site filter takes a slug too', async () => {
    const byId = await listProducts(t, `?site_id=${s2.id}`);
    const bySlug = await listProducts(t, `?site_id=${s2.slug}`);
    assert.deepEqual(bySlug, byId);
    assert.equal(byId.total, 4);
  });

  test('an unknown site is a 404', async () => {
    assertError(await t.request('GET', `${PRODUCTS}?site_id=no-such-site`), 404);
    assertError(await t.request('GET', `${PRODUCTS}?site_id=${randomUUID()}`), 404);
  });

  test('a product moved to another category or language is listed only under the new one', async () => {
    const ext = uniq('move');
    const p = await upsert(t, s1.slug, productBody({ external_id: ext, category: 'old-cat', language: 'en' }), 'created');
    const ids = async (query: string) => (await listProducts(t, `${query}&limit=200`)).items.map((i) => i.id);
    assert.deepEqual(await ids('?category=old-cat'), [p.id]);

    await upsert(t, s1.slug, productBody({ external_id: ext, category: 'new-cat', language: 'it' }), 'updated');
    assert.deepEqual(await ids('?category=old-cat'), []);
    assert.equal((await listProducts(t, '?category=old-cat')).total, 0);
    assert.deepEqual(await ids('?category=new-cat'), [p.id]);
    assert.deepEqual(await ids(`?site_id=${s1.id}&category=new-cat&language=it`), [p.id]);
    assert.ok(!(await ids('?language=en')).includes(p.id));

    // Moved to no category: in no category list.
    await upsert(t, s1.slug, productBody({ external_id: ext, language: 'it' }), 'updated');
    assert.deepEqual(await ids('?category=new-cat'), []);
    assert.deepEqual(await ids('?language=it'), [p.id]);

    // Cleanup so the combination test above sees only its own products.
    assert.equal((await t.request('DELETE', `${PRODUCTS}/${p.id}`)).status, 204);
    assert.deepEqual(await ids('?language=it'), []);
  });
});

describe('GET /products: paging', () => {
  let t: TenantFixture;
  let site: any;
  let all: any[];
  before(async () => {
    t = await stack.tenant();
    site = await createSite(t);
    all = [];
    // Batches of concurrent creates: many share a created_at millisecond, so the id decides.
    for (let batch = 0; batch < 6; batch++) {
      const created = await Promise.all(
        Array.from({ length: 20 }, (_, i) => upsert(t, site.slug, productBody({ external_id: `page-${batch}-${i}` }), 'created')),
      );
      all.push(...created);
    }
    all.sort(byCreated);
  });

  test('limit 50 pages cover all 120 in (created_at, id) order, without duplicates or gaps', async () => {
    const seen: any[] = [];
    for (const offset of [0, 50, 100]) {
      const { items, total } = await listProducts(t, `?site_id=${site.id}&limit=50&offset=${offset}`);
      assert.equal(total, 120);
      assert.equal(items.length, offset === 100 ? 20 : 50);
      seen.push(...items);
    }
    assert.equal(new Set(seen.map((p) => p.id)).size, 120);
    assert.deepEqual(seen.map((p) => p.id), all.map((p) => p.id));
    for (let i = 1; i < seen.length; i++) assert.ok(byCreated(seen[i - 1], seen[i]) < 0, `order broken at ${i}`);
  });

  test('default limit is 50 and default offset 0', async () => {
    const { items, total } = await listProducts(t, `?site_id=${site.slug}`);
    assert.equal(total, 120);
    assert.deepEqual(items.map((p) => p.id), all.slice(0, 50).map((p) => p.id));
    const unfiltered = await listProducts(t, '');
    assert.equal(unfiltered.total, 120);
    assert.deepEqual(unfiltered.items.map((p) => p.id), all.slice(0, 50).map((p) => p.id));
  });

  test('limit 1 and 200 are the bounds; odd pages line up too', async () => {
    const one = await listProducts(t, `?site_id=${site.id}&limit=1&offset=7`);
    assert.deepEqual(one.items.map((p) => p.id), [all[7].id]);
    assert.equal(one.total, 120);
    const max = await listProducts(t, `?site_id=${site.id}&limit=200`);
    assert.deepEqual(max.items.map((p) => p.id), all.map((p) => p.id));
    const seen: string[] = [];
    for (let offset = 0; offset < 120; offset += 37) {
      seen.push(...(await listProducts(t, `?limit=37&offset=${offset}&language=en`)).items.map((p) => p.id));
    }
    assert.deepEqual(seen, all.map((p) => p.id));
  });

  test('an offset past the end is an empty page with the total', async () => {
    const { items, total } = await listProducts(t, `?site_id=${site.id}&offset=120`);
    assert.deepEqual(items, []);
    assert.equal(total, 120);
    assert.deepEqual((await listProducts(t, `?site_id=${site.id}&offset=5000`)).items, []);
  });

  test('limit outside 1..200 and a negative offset are 422s', async () => {
    assert422(await t.request('GET', `${PRODUCTS}?limit=0`), [ge('limit', 1, 'query')]);
    assert422(await t.request('GET', `${PRODUCTS}?limit=201`), [le('limit', 200, 'query')]);
    assert422(await t.request('GET', `${PRODUCTS}?offset=-1`), [ge('offset', 0, 'query')]);
    assert422(await t.request('GET', `${PRODUCTS}?limit=0&offset=-1`), [ge('limit', 1, 'query'), ge('offset', 0, 'query')]);
    assert422(await t.request('GET', `${PRODUCTS}?limit=abc`), [
      err('limit', 'Input should be a valid integer, unable to parse string as an integer', 'int_parsing', 'query'),
    ]);
  });
});
