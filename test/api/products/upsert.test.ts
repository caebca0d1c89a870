// POST /products as an upsert: by external_id, the sync_hash delta rules, and concurrent upserts of one external_id.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { stack, useStack, type Body, uniq, createSite, productBody, post, upsert, getProduct, listProducts } from './fixtures.js';

useStack();

// ---- upsert by external_id --------------------------------------------------------------------

describe('POST /products: upsert by external_id', () => {
  let t: TenantFixture;
  let site: any;
  before(async () => {
    t = await stack.tenant();
    site = await createSite(t);
  });

  test('created, then unchanged for the same body, then updated for a changed one', async () => {
    const body = productBody({ external_id: uniq('up'), title: 'First', description: 'D', price_current: '10.00', category: 'c' });
    const created = await upsert(t, site.slug, body, 'created');

    await delay(5);
    const same = await upsert(t, site.slug, body, 'unchanged');
    assert.deepEqual({ ...same, last_synced_at: undefined }, { ...created, last_synced_at: undefined });
    assert.equal(same.updated_at, created.updated_at);
    assert.ok(Date.parse(same.last_synced_at) >= Date.parse(created.last_synced_at));

    await delay(5);
    const changed = await upsert(t, site.slug, { ...body, title: 'Second' }, 'updated');
    assert.equal(changed.title, 'Second');
    assert.equal(changed.id, created.id);
    assert.equal(changed.created_at, created.created_at);
    assert.equal(changed.translation_group_id, created.translation_group_id);
    assert.ok(Date.parse(changed.updated_at) > Date.parse(created.updated_at));
    assert.ok(Date.parse(changed.last_synced_at) >= Date.parse(same.last_synced_at));
    assert.deepEqual(await getProduct(t, created.id), changed);

    // The same changed body again: unchanged once more.
    const again = await upsert(t, site.slug, { ...body, title: 'Second' }, 'unchanged');
    assert.equal(again.updated_at, changed.updated_at);

    // Only one product carries that external_id.
    const all = (await listProducts(t, `?site_id=${site.id}&limit=200`)).items.filter((p) => p.external_id === body.external_id);
    assert.equal(all.length, 1);
  });

  test('a changed price alone is an update', async () => {
    const body = productBody({ external_id: uniq('price'), price_current: '10.00' });
    const created = await upsert(t, site.slug, body, 'created');
    const updated = await upsert(t, site.slug, { ...body, price_current: '10.0' }, 'updated');
    assert.equal(updated.price_current, '10.0');
    assert.equal(updated.id, created.id);
  });

  test('an update replaces: omitted optional fields go back to their defaults', async () => {
    const ext = uniq('replace');
    const created = await upsert(t, site.slug, productBody({
      external_id: ext, description: 'D', brand: 'B', price_current: 5, currency: 'USD', attributes: { a: 1 },
      additional_images: ['i'], search_keywords: ['k'], rating_count: 3, is_parent: true, similarity_text: 's',
    }), 'created');
    const updated = await upsert(t, site.slug, productBody({ external_id: ext }), 'updated');
    assert.equal(updated.id, created.id);
    assert.deepEqual(
      [updated.description, updated.brand, updated.price_current, updated.currency, updated.attributes, updated.additional_images,
        updated.search_keywords, updated.rating_count, updated.is_parent, updated.has_similarity_anchor],
      [null, null, null, 'EUR', {}, [], [], 0, false, false],
    );
  });

  test('without an external_id every POST creates a new product', async () => {
    const body = productBody({ title: 'No key', description: 'same' });
    const a = await upsert(t, site.slug, body, 'created');
    const b = await upsert(t, site.slug, body, 'created');
    const c = await upsert(t, site.slug, { ...body, external_id: null }, 'created');
    assert.equal(new Set([a.id, b.id, c.id]).size, 3);
  });

  test('external_ids are per site: the same one in another site is another product', async () => {
    const other = await createSite(t);
    const ext = uniq('per-site');
    const a = await upsert(t, site.slug, productBody({ external_id: ext }), 'created');
    const b = await upsert(t, other.slug, productBody({ external_id: ext }), 'created');
    assert.notEqual(a.id, b.id);
    assert.equal(b.site_id, other.id);
  });
});

// ---- sync_hash: the delta rules ---------------------------------------------------------------

describe('POST /products: sync_hash', () => {
  let t: TenantFixture;
  let site: any;
  before(async () => {
    t = await stack.tenant();
    site = await createSite(t);
  });

  const content = {
    title: 'Original title', description: 'Original description', short_description: 'Short', sku: 'S1', gtin: 'G1',
    brand: 'Brand', category: 'cat-a', attributes: { a: 1 }, properties: { p: 'x' }, language: 'en', is_variant: false,
    is_parent: false, similarity_text: 'anchor', search_keywords: ['kw'],
  };
  const volatile = {
    price_current: '10.00', price_msrp: '12.00', price_special: null, price_on_request: false, currency: 'EUR',
    availability: 'in_stock', rating_average: '4.0', rating_count: 3, image_url: 'https://img/1.jpg',
    additional_images: ['https://img/2.jpg'], product_url: 'https://shop/p/1',
  };
  const CONTENT_FIELDS = ['title', 'description', 'short_description', 'sku', 'gtin', 'brand', 'category', 'attributes',
    'properties', 'language', 'is_variant', 'is_parent', 'has_similarity_anchor', 'search_keywords', 'source', 'sync_hash'];
  const pick = (p: any, fields: string[]) => Object.fromEntries(fields.map((f) => [f, p[f]]));

  test('(a) same sync_hash: the volatile fields change, the content fields stay', async () => {
    const ext = uniq('a');
    const created = await upsert(t, site.slug, { ...content, ...volatile, external_id: ext, sync_hash: 'h1' }, 'created');
    await delay(5);
    const newVolatile = {
      price_current: '+09.50', price_msrp: 11, price_special: '.99', price_on_request: true, currency: 'CHF',
      availability: 'out_of_stock', rating_average: 4.5, rating_count: 8, image_url: 'https://img/9.jpg',
      additional_images: ['https://img/8.jpg', 'https://img/7.jpg'], product_url: 'https://shop/p/9',
    };
    const newContent = {
      title: 'Changed title', description: 'Changed description', short_description: null, sku: 'S2', gtin: null,
      brand: 'Other', category: 'cat-b', attributes: { b: 2 }, properties: {}, language: 'de', is_variant: true,
      is_parent: true, similarity_text: null, search_keywords: [], parent_external_id: 'somebody',
    };
    const updated = await upsert(t, site.slug, { ...newContent, ...newVolatile, external_id: ext, sync_hash: 'h1' }, 'updated', { 'X-Audit-Source': 'other-channel' });
    assert.deepEqual(
      pick(updated, Object.keys(volatile)),
      {
        price_current: '9.50', price_msrp: '11', price_special: '0.99', price_on_request: true, currency: 'CHF',
        availability: 'out_of_stock', rating_average: '4.5', rating_count: 8, image_url: 'https://img/9.jpg',
        additional_images: ['https://img/8.jpg', 'https://img/7.jpg'], product_url: 'https://shop/p/9',
      },
    );
    assert.deepEqual(pick(updated, CONTENT_FIELDS), pick(created, CONTENT_FIELDS));
    assert.equal(updated.parent_product_id, null);
    assert.equal(updated.id, created.id);
    assert.equal(updated.created_at, created.created_at);
    assert.ok(Date.parse(updated.updated_at) > Date.parse(created.updated_at));
    assert.ok(Date.parse(updated.last_synced_at) >= Date.parse(created.last_synced_at));
    assert.deepEqual(await getProduct(t, created.id), updated);

    // The list indexes follow the stored content: still under cat-a and en, not cat-b or de.
    assert.ok((await listProducts(t, `?site_id=${site.id}&category=cat-a&language=en&limit=200`)).items.some((p) => p.id === created.id));
    assert.ok(!(await listProducts(t, `?site_id=${site.id}&category=cat-b&limit=200`)).items.some((p) => p.id === created.id));
    assert.ok(!(await listProducts(t, `?site_id=${site.id}&language=de&limit=200`)).items.some((p) => p.id === created.id));
  });

  test('(a) each volatile field alone is an update under the same sync_hash', async () => {
    const changes: Body = {
      price_current: '11', price_msrp: '13', price_special: '9', price_on_request: true, currency: 'USD',
      availability: 'preorder', rating_average: '4.1', rating_count: 4, image_url: 'https://img/x.jpg',
      additional_images: [], product_url: 'https://shop/p/x',
    };
    for (const [field, value] of Object.entries(changes)) {
      const ext = uniq(`vol-${field}`);
      const created = await upsert(t, site.slug, { ...content, ...volatile, external_id: ext, sync_hash: 'h' }, 'created');
      const updated = await upsert(t, site.slug, { ...content, ...volatile, title: 'ignored', [field]: value, external_id: ext, sync_hash: 'h' }, 'updated');
      assert.deepEqual(updated[field], value, field);
      assert.equal(updated.title, content.title, field);
      assert.deepEqual({ ...updated, [field]: undefined, updated_at: undefined, last_synced_at: undefined },
        { ...created, [field]: undefined, updated_at: undefined, last_synced_at: undefined }, field);
    }
  });

  test('(b) same sync_hash and no volatile change: unchanged, even with different content', async () => {
    const ext = uniq('b');
    const created = await upsert(t, site.slug, { ...content, ...volatile, external_id: ext, sync_hash: 'h2' }, 'created');
    await delay(5);
    const same = await upsert(t, site.slug, { ...content, ...volatile, title: 'Not applied', brand: 'Nope', external_id: ext, sync_hash: 'h2' }, 'unchanged');
    assert.deepEqual({ ...same, last_synced_at: undefined }, { ...created, last_synced_at: undefined });
    assert.ok(Date.parse(same.last_synced_at) >= Date.parse(created.last_synced_at));
    // Volatile values written differently but equal in canonical form are no change either.
    await upsert(t, site.slug, { ...content, ...volatile, price_current: '+010.00', external_id: ext, sync_hash: 'h2' }, 'unchanged');
    assert.deepEqual({ ...(await getProduct(t, created.id)), last_synced_at: undefined }, { ...created, last_synced_at: undefined });
  });

  test('(c) a different sync_hash: the full update path', async () => {
    const ext = uniq('c');
    const created = await upsert(t, site.slug, { ...content, ...volatile, external_id: ext, sync_hash: 'h3' }, 'created');
    const updated = await upsert(t, site.slug, { ...content, ...volatile, title: 'New title', brand: 'New brand', external_id: ext, sync_hash: 'h4' }, 'updated');
    assert.equal(updated.title, 'New title');
    assert.equal(updated.brand, 'New brand');
    assert.equal(updated.sync_hash, 'h4');
    assert.equal(updated.id, created.id);
    // The new hash with the same body: unchanged.
    await upsert(t, site.slug, { ...content, ...volatile, title: 'New title', brand: 'New brand', external_id: ext, sync_hash: 'h4' }, 'unchanged');
  });

  test('(d) no sync_hash and the same content: unchanged', async () => {
    const ext = uniq('d');
    const created = await upsert(t, site.slug, { ...content, ...volatile, external_id: ext }, 'created');
    const same = await upsert(t, site.slug, { ...content, ...volatile, external_id: ext }, 'unchanged');
    assert.equal(same.updated_at, created.updated_at);
    const changed = await upsert(t, site.slug, { ...content, ...volatile, description: 'changed', external_id: ext }, 'updated');
    assert.equal(changed.description, 'changed');
  });

  test('(e) sync_hash null against a stored hash: the full update path', async () => {
    const ext = uniq('e');
    const created = await upsert(t, site.slug, { ...content, ...volatile, external_id: ext, sync_hash: 'h5' }, 'created');
    const updated = await upsert(t, site.slug, { ...content, ...volatile, title: 'Applied', external_id: ext, sync_hash: null }, 'updated');
    assert.equal(updated.title, 'Applied');
    assert.equal(updated.sync_hash, null);
    assert.equal(updated.id, created.id);

    // Omitted is the same as null; and the same content again without a hash is unchanged.
    const ext2 = uniq('e2');
    await upsert(t, site.slug, { ...content, external_id: ext2, sync_hash: 'h6' }, 'created');
    const cleared = await upsert(t, site.slug, { ...content, external_id: ext2 }, 'updated');
    assert.equal(cleared.sync_hash, null);
    await upsert(t, site.slug, { ...content, external_id: ext2 }, 'unchanged');
  });
});

// ---- concurrency ------------------------------------------------------------------------------

describe('concurrent upserts', () => {
  test('50 parallel POSTs of one external_id: all succeed, exactly one creates, one product results', async () => {
    const t = await stack.tenant();
    const site = await createSite(t);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post(t, site.slug, productBody({ external_id: 'RACE', title: `Title ${i}` }))),
    );
    for (const res of results) assert.ok(res.status === 200 || res.status === 201, `${res.status} ${res.text}`);
    assert.equal(results.filter((r) => r.status === 201).length, 1);
    for (const res of results) {
      const expected = res.status === 201 ? ['created'] : ['updated', 'unchanged'];
      assert.ok(expected.includes(String(res.headers['x-upsert-result'])), String(res.headers['x-upsert-result']));
    }
    assert.equal(new Set(results.map((r) => r.body.id)).size, 1);

    const { items, total } = await listProducts(t, `?site_id=${site.id}`);
    assert.equal(total, 1);
    assert.equal(items.length, 1);
    assert.equal(items[0].external_id, 'RACE');
    assert.equal(items[0].id, results[0].body.id);
    assert.ok(/^Title \d+$/.test(items[0].title));
    assert.equal((await listProducts(t, '')).total, 1);
    assert.equal((await listProducts(t, '?language=en')).total, 1);
  });
});
