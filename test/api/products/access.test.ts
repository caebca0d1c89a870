// Products across tenants and scopes: tenant isolation, catalog:read and catalog:write.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HttpResult } from '../../helpers/stack.js';
import { assertError } from '../../helpers/assertions.js';
import { stack, useStack, PRODUCTS, createSite, productBody, upsert, getProduct, listProducts } from './fixtures.js';

useStack();

// ---- tenants and scopes -----------------------------------------------------------------------

describe('tenant isolation', () => {
  test("another tenant's product is a 404 on GET, PUT and DELETE and never listed", async () => {
    const a = await stack.tenant();
    const b = await stack.tenant();
    const siteA = await createSite(a, { slug: 'same-slug' });
    const siteB = await createSite(b, { slug: 'same-slug' });
    const p = await upsert(a, siteA.slug, productBody({ external_id: 'shared', category: 'cat' }), 'created');

    assertError(await b.request('GET', `${PRODUCTS}/${p.id}`), 404);
    assertError(await b.request('PUT', `${PRODUCTS}/${p.id}`, { body: productBody({ title: 'hijacked' }) }), 404);
    assertError(await b.request('DELETE', `${PRODUCTS}/${p.id}`), 404);
    assertError(await b.request('GET', `${PRODUCTS}?site_id=${siteA.id}`), 404);
    assertError(await b.request('POST', `${PRODUCTS}?site_id=${siteA.id}`, { body: productBody() }), 404);
    assertError(await b.request('DELETE', `${PRODUCTS}?site_id=${siteA.id}&external_id=shared`), 404);
    assertError(await b.request('DELETE', `${PRODUCTS}?site_id=same-slug&external_id=shared`), 404);

    for (const query of ['', '?category=cat', '?language=en', `?site_id=${siteB.id}`, '?site_id=same-slug']) {
      const { items, total } = await listProducts(b, query);
      assert.deepEqual(items, [], query);
      assert.equal(total, 0, query);
    }
    // B's own product with the same external_id and slug is its own.
    const mine = await upsert(b, 'same-slug', productBody({ external_id: 'shared' }), 'created');
    assert.notEqual(mine.id, p.id);
    assert.equal(mine.site_id, siteB.id);
    assert.deepEqual(await getProduct(a, p.id), p);
    assert.deepEqual((await listProducts(a, '')).items, [p]);
  });
});

describe('scopes', () => {
  test('catalog:read cannot write; catalog:write cannot read', async () => {
    const t = await stack.tenant();
    const site = await createSite(t);
    const p = await upsert(t, site.slug, productBody({ external_id: 'scoped' }), 'created');
    const readKey = await t.keyWith(['catalog:read']);
    const writeKey = await t.keyWith(['catalog:write']);

    const forbidden = (res: HttpResult) => {
      assertError(res, 403);
      assert.match(String(res.headers['www-authenticate']), /insufficient_scope/);
    };
    forbidden(await t.request('POST', `${PRODUCTS}?site_id=${site.id}`, { key: readKey, body: productBody() }));
    forbidden(await t.request('PUT', `${PRODUCTS}/${p.id}`, { key: readKey, body: productBody() }));
    forbidden(await t.request('DELETE', `${PRODUCTS}/${p.id}`, { key: readKey }));
    forbidden(await t.request('DELETE', `${PRODUCTS}?site_id=${site.id}&external_id=scoped`, { key: readKey }));
    assert.equal((await t.request('GET', `${PRODUCTS}/${p.id}`, { key: readKey })).status, 200);
    assert.equal((await t.request('GET', PRODUCTS, { key: readKey })).status, 200);

    forbidden(await t.request('GET', PRODUCTS, { key: writeKey }));
    forbidden(await t.request('GET', `${PRODUCTS}/${p.id}`, { key: writeKey }));
    const created = await t.request('POST', `${PRODUCTS}?site_id=${site.id}`, { key: writeKey, body: productBody() });
    assert.equal(created.status, 201, created.text);

    assertError(await stack.request('GET', PRODUCTS, { tenant: t.tenant.slug }), 401);
    assert.deepEqual(await getProduct(t, p.id), p);
  });
});
