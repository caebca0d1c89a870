// Search after writes over real HTTP with embedding off: read-your-writes in the serving process,
// writes made by the workers and background jobs, and tenant isolation. The routes themselves:
// api-routes.test.ts.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertError } from '../helpers/assertions.js';
import type { HttpResult } from '../helpers/stack.js';
import {
  CATALOGUE, DE_KEYS, EN_KEYS, SEARCH_KNOWLEDGE, SEARCH_PRODUCTS,
  relatedEntriesPath, relatedProductsPath, searchHttp, searchIds, sorted, upsertHttp,
} from './fixtures.js';
import { stack, useStack, ENTRIES, PRODUCTS, type Shop, shop, productKeys, library } from './api-fixtures.js';

useStack();

// ---- read-your-writes -------------------------------------------------------------------------------

describe('read-your-writes in the serving process', () => {
  let s: Shop;
  before(async () => {
    s = await shop();
  });
  const found = async (query: string, id: string) => (await searchIds(s.t, SEARCH_PRODUCTS, { query, mode: 'keyword' })).includes(id);

  test('a product answered 2xx is found at once; PUT changes what finds it; DELETE removes it at once', async () => {
    const created = await upsertHttp(s.t, s.sites.en.slug, { external_id: 'kayak', title: 'Kayak Paddle', language: 'en', brand: 'Oarsome' });
    assert.ok(await found('kayak', created.id), 'found right after the 201');
    const res = await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'kayak' });
    assert.deepEqual(res.body.hits[0].product, (await s.t.request('GET', `${PRODUCTS}/${created.id}`)).body);

    const updated = await upsertHttp(s.t, s.sites.en.slug, { external_id: 'kayak', title: 'Canoe Paddle', language: 'en', brand: 'Oarsome' });
    assert.equal(updated.id, created.id);
    assert.ok(!(await found('kayak', created.id)), 'the old title no longer finds it');
    assert.ok(await found('canoe', created.id), 'the new title does');

    const put = await s.t.request('PUT', `${PRODUCTS}/${created.id}`, { body: { external_id: 'kayak', title: 'Rowing Oar', language: 'en' } });
    assert.equal(put.status, 200, put.text);
    assert.ok(await found('rowing', created.id));
    assert.ok(!(await found('canoe', created.id)));
    assert.ok(!(await searchIds(s.t, SEARCH_PRODUCTS, { filters: { brand: ['Oarsome'] } })).includes(created.id), 'filters see the replaced document');

    assert.equal((await s.t.request('DELETE', `${PRODUCTS}/${created.id}`)).status, 204);
    assert.ok(!(await found('rowing', created.id)), 'gone right after the 204');
    const browse = await searchHttp(s.t, SEARCH_PRODUCTS, { site_id: s.sites.en.slug, limit: 100 });
    assert.equal(browse.body.total, EN_KEYS.length, 'total no longer counts it');
  });

  test('a product deleted by site and external_id is gone at once', async () => {
    const p = await upsertHttp(s.t, s.sites.de.slug, { external_id: 'boot', title: 'Schlauchboot', language: 'de' });
    assert.ok(await found('Schlauchboot', p.id));
    const del = await s.t.request('DELETE', `${PRODUCTS}?site_id=${s.sites.de.slug}&external_id=boot`);
    assert.equal(del.status, 204, del.text);
    assert.ok(!(await found('Schlauchboot', p.id)));
  });

  test('a price or availability change (same sync_hash) moves the product in and out of filters at once', async () => {
    const body = { external_id: 'lamp', title: 'Desk Lamp', language: 'en', sync_hash: 'h1', price_current: '10.00', availability: 'InStock' };
    const p = await upsertHttp(s.t, s.sites.en.slug, body);
    const inRange = async () => (await searchIds(s.t, SEARCH_PRODUCTS, { query: 'desk', filters: { price_max: 20, in_stock: true } })).includes(p.id);
    assert.ok(await inRange());
    const res = await s.t.request('POST', `${PRODUCTS}?site_id=${s.sites.en.slug}`, { body: { ...body, price_current: '30.00' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['x-upsert-result'], 'updated');
    assert.ok(!(await inRange()), 'the new price is searched at once');
    await upsertHttp(s.t, s.sites.en.slug, { ...body, availability: 'OutOfStock' });
    assert.ok(!(await inRange()));
    await upsertHttp(s.t, s.sites.en.slug, body);
    assert.ok(await inRange());
  });

  test('knowledge entries: POST, PUT and DELETE are reflected at once', async () => {
    const category = (await s.t.request('POST', '/api/knowledge/categories', { body: { name: 'ryw' } })).body.id;
    const created = await s.t.request('POST', ENTRIES, { body: { title: 'Warranty claims', content: 'Keep the receipt.', category_id: category, visibility: 'internal', language: 'en' } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id;
    const ids = async (query: string, key?: string) => searchIds(s.t, SEARCH_KNOWLEDGE, { query }, { key });
    assert.deepEqual(await ids('warranty'), [id]);
    const put = await s.t.request('PUT', `${ENTRIES}/${id}`, { body: { content: 'Attach a photograph.' } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(await ids('photograph'), [id]);
    assert.deepEqual(await ids('receipt'), []);
    const reader = await s.t.keyWith(['knowledge:read', 'visibility:internal']);
    assert.deepEqual(await ids('warranty', reader), [id]);
    assert.equal((await s.t.request('PUT', `${ENTRIES}/${id}`, { body: { visibility: 'restricted' } })).status, 200);
    assert.deepEqual(await ids('warranty', reader), [], 'raised above the reader\'s ceiling: hidden at once');
    assert.equal((await s.t.request('DELETE', `${ENTRIES}/${id}`)).status, 204);
    assert.deepEqual(await ids('warranty'), []);
    assertError(await s.t.request('GET', relatedEntriesPath(id)), 404);
  });
});

describe('writes made by the workers and background jobs', () => {
  test('products of a bulk import are found within 1.5 s of the job completing (the worker does not refresh; the change stream does)', async (t) => {
    const s = await shop();
    const items = Array.from({ length: 25 }, (_, i) => ({ external_id: `bulk-${i}`, title: `Marmot Blanket ${i}`, language: 'en' }));
    const res = await s.t.request('POST', `${PRODUCTS}/bulk?site_id=${s.sites.en.slug}`, { raw: JSON.stringify(items), headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 202, res.text);
    const job = await s.t.request('GET', `/api/knowledge/jobs/${res.body.job_id}?wait=true`);
    assert.equal(job.body.status, 'completed', job.text);
    const since = performance.now();
    for (;;) {
      const found = await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'marmot', limit: 100 });
      if (found.body.total === items.length) break;
      assert.ok(performance.now() - since < 1500, `only ${found.body.total} of ${items.length} found 1.5 s after the job completed`);
      await new Promise((r) => setTimeout(r, 10));
    }
    t.diagnostic(`all ${items.length} found ${(performance.now() - since).toFixed(0)} ms after the job completed`);
  });

  test("a deleted site's products stop being found (within 5 s, like GET); its site_id is a 404 at once", async (t) => {
    const s = await shop();
    const del = await s.t.request('DELETE', `/api/knowledge/sites/${s.sites.de.slug}`);
    assert.equal(del.status, 204, del.text);
    assertError(await searchHttp(s.t, SEARCH_PRODUCTS, { site_id: s.sites.de.slug }), 404);
    const since = performance.now();
    for (;;) {
      const found = await productKeys(s, { limit: 100 });
      if (!found.some((k) => DE_KEYS.includes(k))) {
        assert.deepEqual(sorted(found), sorted(EN_KEYS), 'the other site stays');
        break;
      }
      assert.ok(performance.now() - since < 5000, `still found after 5 s: ${found.filter((k) => DE_KEYS.includes(k))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    t.diagnostic(`gone after ${(performance.now() - since).toFixed(0)} ms`);
    assert.equal((await searchHttp(s.t, SEARCH_PRODUCTS, { query: 'Häuser' })).body.total, 0);
  });
});

// ---- tenant isolation -------------------------------------------------------------------------------

describe('tenant isolation', () => {
  test('two tenants with identical content never see each other\'s documents', async () => {
    const a = await shop();
    const b = await shop();
    const libA = await library(a.t);
    const libB = await library(b.t);
    for (const [self, peer, selfLib, peerLib] of [[a, b, libA, libB], [b, a, libB, libA]] as const) {
      const own = new Set([...Object.values(self.product).map((p) => p.id), ...Object.values(selfLib.entry).map((e) => e.id)]);
      const foreign = new Set([...Object.values(peer.product).map((p) => p.id), ...Object.values(peerLib.entry).map((e) => e.id)]);
      const answers: HttpResult[] = [
        await searchHttp(self.t, SEARCH_PRODUCTS, { limit: 100 }),
        await searchHttp(self.t, SEARCH_PRODUCTS, { query: 'lantern' }),
        await searchHttp(self.t, SEARCH_PRODUCTS, { query: '4006381333931' }),
        await searchHttp(self.t, SEARCH_PRODUCTS, { query: 'fleece', site_id: 'shop-en', facets: ['brand'] }),
        await searchHttp(self.t, SEARCH_KNOWLEDGE, { query: 'policy', include_expired: true }),
        await searchHttp(self.t, SEARCH_KNOWLEDGE, { limit: 100 }),
      ];
      for (const res of answers) {
        assert.equal(res.status, 200, res.text);
        assert.ok(res.body.hits.length > 0);
        for (const hit of res.body.hits) {
          assert.ok(!foreign.has(hit.id), `a document of the other tenant: ${hit.id}`);
          assert.ok(own.has(hit.id), `an unknown document: ${hit.id}`);
          assert.equal((hit.product ?? hit.entry).tenant_id, self.t.tenant.id);
        }
      }
      const all = await searchHttp(self.t, SEARCH_PRODUCTS, { limit: 100 });
      assert.equal(all.body.total, CATALOGUE.length, 'the total counts only this tenant');
      assertError(await self.t.request('GET', relatedProductsPath(peer.product.shoes.id)), 404);
      assertError(await self.t.request('GET', relatedEntriesPath(peerLib.entry.public.id)), 404);
      // A key of one tenant is no credential at the other.
      const crossed = await stack.request('POST', SEARCH_PRODUCTS, { tenant: self.t.tenant.slug, key: peer.t.key, body: {} });
      assert.equal(crossed.status, 401, crossed.text);
    }
  });
});
