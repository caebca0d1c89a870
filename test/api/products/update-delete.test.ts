// GET/PUT/DELETE /products/{product_id} and DELETE /products?site_id=&external_id=.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422, assertError } from '../../helpers/assertions.js';
import { stack, useStack, PRODUCTS, uniq, err, tooShort, missing, decimalParsing, createSite, productBody, q, upsert, getProduct, listProducts } from './fixtures.js';

useStack();

// ---- single-product routes --------------------------------------------------------------------

describe('GET/PUT/DELETE /products/{product_id}', () => {
  let t: TenantFixture;
  let site: any;
  before(async () => {
    t = await stack.tenant();
    site = await createSite(t);
  });

  const UUID_ERROR = err('product_id', 'Input should be a valid UUID', 'uuid_parsing', 'path');

  test('a non-UUID id is a 422 at path.product_id on every method', async () => {
    assert422(await t.request('GET', `${PRODUCTS}/not-a-uuid`), [UUID_ERROR]);
    assert422(await t.request('PUT', `${PRODUCTS}/not-a-uuid`, { body: productBody() }), [UUID_ERROR]);
    assert422(await t.request('DELETE', `${PRODUCTS}/123`), [UUID_ERROR]);
  });

  test('an unknown id is a 404 on every method', async () => {
    const id = randomUUID();
    assertError(await t.request('GET', `${PRODUCTS}/${id}`), 404);
    assertError(await t.request('PUT', `${PRODUCTS}/${id}`, { body: productBody() }), 404);
    assertError(await t.request('DELETE', `${PRODUCTS}/${id}`), 404);
  });

  test('GET by an upper-case id finds the product', async () => {
    const p = await upsert(t, site.slug, productBody(), 'created');
    assert.deepEqual(await getProduct(t, p.id.toUpperCase()), p);
  });

  test('PUT replaces fully and answers 200 with X-Upsert-Result', async () => {
    const p = await upsert(t, site.slug, productBody({
      external_id: uniq('put'), description: 'D', brand: 'B', category: 'c', price_current: '5', currency: 'USD',
      attributes: { a: 1 }, additional_images: ['i'], search_keywords: ['k'], rating_count: 2, similarity_text: 's', sync_hash: 'h',
    }), 'created');
    await delay(5);
    const res = await t.request('PUT', `${PRODUCTS}/${p.id}`, { body: { title: 'Replaced', language: 'de', external_id: p.external_id } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['x-upsert-result'], 'updated');
    assert.deepEqual(
      { ...res.body, updated_at: undefined, last_synced_at: undefined },
      {
        ...p, title: 'Replaced', language: 'de', description: null, brand: null, category: null, price_current: null,
        currency: 'EUR', attributes: {}, additional_images: [], search_keywords: [], rating_count: 0,
        has_similarity_anchor: false, sync_hash: null, updated_at: undefined, last_synced_at: undefined,
      },
    );
    assert.ok(Date.parse(res.body.updated_at) > Date.parse(p.updated_at));
    assert.deepEqual(await getProduct(t, p.id), res.body);

    const same = await t.request('PUT', `${PRODUCTS}/${p.id}`, { body: { title: 'Replaced', language: 'de', external_id: p.external_id } });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.headers['x-upsert-result'], 'unchanged');
    assert.equal(same.body.updated_at, res.body.updated_at);
  });

  test('PUT without an external_id clears it and frees it for another product', async () => {
    const ext = uniq('put-clear');
    const p = await upsert(t, site.slug, productBody({ external_id: ext }), 'created');
    const res = await t.request('PUT', `${PRODUCTS}/${p.id}`, { body: productBody({ title: 'No key now' }) });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.id, p.id);
    assert.equal(res.body.external_id, null);
    const fresh = await upsert(t, site.slug, productBody({ external_id: ext }), 'created');
    assert.notEqual(fresh.id, p.id);
  });

  test('PUT may change the external_id to a free one', async () => {
    const oldExt = uniq('put-old');
    const newExt = uniq('put-new');
    const p = await upsert(t, site.slug, productBody({ external_id: oldExt }), 'created');
    const res = await t.request('PUT', `${PRODUCTS}/${p.id}`, { body: productBody({ external_id: newExt, title: 'Re-keyed' }) });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['x-upsert-result'], 'updated');
    assert.equal(res.body.id, p.id);
    assert.equal(res.body.external_id, newExt);
    assert.equal(res.body.created_at, p.created_at);
    // The new key addresses the same product; the old key is free again.
    assert.equal((await upsert(t, site.slug, productBody({ external_id: newExt, title: 'Re-keyed' }), 'unchanged')).id, p.id);
    assertError(await t.request('DELETE', `${PRODUCTS}?site_id=${site.id}&external_id=${q(oldExt)}`), 404);
    assert.notEqual((await upsert(t, site.slug, productBody({ external_id: oldExt }), 'created')).id, p.id);
  });

  test("PUT to an external_id another product of the site has is a 409 and changes nothing", async () => {
    const a = await upsert(t, site.slug, productBody({ external_id: uniq('a') }), 'created');
    const b = await upsert(t, site.slug, productBody({ external_id: uniq('b') }), 'created');
    assertError(await t.request('PUT', `${PRODUCTS}/${b.id}`, { body: productBody({ external_id: a.external_id, title: 'Stolen' }) }), 409);
    assert.deepEqual(await getProduct(t, b.id), b);
    assert.deepEqual(await getProduct(t, a.id), a);
  });

  test('PUT validates its body like POST', async () => {
    const p = await upsert(t, site.slug, productBody(), 'created');
    assert422(await t.request('PUT', `${PRODUCTS}/${p.id}`, { body: { title: '', language: 'en', price_current: '1e5' } }), [
      tooShort('title', 1), decimalParsing('price_current'),
    ]);
    assert422(await t.request('PUT', `${PRODUCTS}/not-a-uuid`, { body: { language: 'en' } }), [UUID_ERROR, missing('title')]);
  });

  test('DELETE answers 204, then the product is a 404; its external_id can be reused', async () => {
    const ext = uniq('del');
    const p = await upsert(t, site.slug, productBody({ external_id: ext, category: 'del-cat' }), 'created');
    const res = await t.request('DELETE', `${PRODUCTS}/${p.id}`);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assertError(await t.request('GET', `${PRODUCTS}/${p.id}`), 404);
    assertError(await t.request('DELETE', `${PRODUCTS}/${p.id}`), 404);
    assertError(await t.request('PUT', `${PRODUCTS}/${p.id}`, { body: productBody() }), 404);
    assert.ok(!(await listProducts(t, `?site_id=${site.id}&limit=200`)).items.some((i) => i.id === p.id));
    assert.equal((await listProducts(t, '?category=del-cat')).total, 0);

    const again = await upsert(t, site.slug, productBody({ external_id: ext }), 'created');
    assert.notEqual(again.id, p.id);
  });
});

describe('DELETE /products?site_id=&external_id=', () => {
  let t: TenantFixture;
  let site: any;
  before(async () => {
    t = await stack.tenant();
    site = await createSite(t);
  });

  test('deletes the product of that site with that external_id', async () => {
    const ext = uniq('conn');
    const other = await createSite(t);
    const p = await upsert(t, site.slug, productBody({ external_id: ext }), 'created');
    const twin = await upsert(t, other.slug, productBody({ external_id: ext }), 'created');
    const res = await t.request('DELETE', `${PRODUCTS}?site_id=${site.slug}&external_id=${q(ext)}`);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assertError(await t.request('GET', `${PRODUCTS}/${p.id}`), 404);
    assert.deepEqual(await getProduct(t, twin.id), twin);
    assertError(await t.request('DELETE', `${PRODUCTS}?site_id=${site.id}&external_id=${q(ext)}`), 404);
  });

  test('an external_id with reserved characters', async () => {
    const ext = 'a/b?c&d=e f#ü';
    const p = await upsert(t, site.slug, productBody({ external_id: ext }), 'created');
    assert.equal((await t.request('DELETE', `${PRODUCTS}?site_id=${site.id}&external_id=${q(ext)}`)).status, 204);
    assertError(await t.request('GET', `${PRODUCTS}/${p.id}`), 404);
  });

  test('an unknown external_id or site is a 404', async () => {
    assertError(await t.request('DELETE', `${PRODUCTS}?site_id=${site.id}&external_id=nope`), 404);
    assertError(await t.request('DELETE', `${PRODUCTS}?site_id=no-such-site&external_id=nope`), 404);
  });

  test('a missing external_id or site_id is a 422', async () => {
    assert422(await t.request('DELETE', `${PRODUCTS}?site_id=${site.id}`), [missing('external_id', 'query')]);
    assert422(await t.request('DELETE', `${PRODUCTS}?external_id=x`), [missing('site_id', 'query')]);
    assert422(await t.request('DELETE', PRODUCTS), [missing('site_id', 'query'), missing('external_id', 'query')]);
  });
});
