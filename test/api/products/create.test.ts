// POST /products: the response shape and defaults, write-only fields, has_similarity_anchor and source.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { stack, useStack, UUID_V4, x, uniq, createSite, productBody, upsert, getProduct, listProducts } from './fixtures.js';

useStack();

const PRODUCT_KEYS = [
  'id', 'tenant_id', 'site_id', 'external_id', 'title', 'description', 'short_description', 'sku', 'gtin', 'brand',
  'category', 'attributes', 'properties', 'price_current', 'price_msrp', 'price_special', 'price_on_request', 'currency',
  'image_url', 'product_url', 'availability', 'additional_images', 'rating_average', 'rating_count', 'language',
  'translation_group_id', 'parent_product_id', 'is_variant', 'is_parent', 'search_keywords', 'has_similarity_anchor',
  'source', 'sync_hash', 'last_synced_at', 'created_at', 'updated_at', 'embedding_status', 'embedding_skipped_reason',
].sort();
const NEVER_IN_RESPONSE = ['parent_external_id', 'similarity_text', 'embedding_text_description', 'embedding_text_properties', 'embedding_text_attributes'];

// ---- response shape and defaults --------------------------------------------------------------

describe('POST /products: response shape and defaults', () => {
  let t: TenantFixture;
  let site: any;
  before(async () => {
    t = await stack.tenant();
    site = await createSite(t);
  });

  test('a minimal product: the exact key set and every default', async () => {
    const before = Date.now();
    const p = await upsert(t, site.slug, { title: 'Minimal', language: 'de' }, 'created');
    assert.deepEqual(Object.keys(p).sort(), PRODUCT_KEYS);
    assert.match(p.id, UUID_V4);
    assert.deepEqual(
      { ...p, id: undefined, created_at: undefined, updated_at: undefined, last_synced_at: undefined },
      {
        id: undefined, tenant_id: t.tenant.id, site_id: site.id, external_id: null, title: 'Minimal', description: null,
        short_description: null, sku: null, gtin: null, brand: null, category: null, attributes: {}, properties: {},
        price_current: null, price_msrp: null, price_special: null, price_on_request: false, currency: 'EUR',
        image_url: null, product_url: null, availability: null, additional_images: [], rating_average: null,
        rating_count: 0, language: 'de', translation_group_id: null, parent_product_id: null, is_variant: false,
        is_parent: false, search_keywords: [], has_similarity_anchor: false, source: 'api', sync_hash: null,
        last_synced_at: undefined, created_at: undefined, updated_at: undefined, embedding_status: 'skipped', embedding_skipped_reason: 'embedding_off',
      },
    );
    for (const field of ['created_at', 'updated_at', 'last_synced_at']) {
      assert.equal(typeof p[field], 'string', field);
      assert.ok(!Number.isNaN(Date.parse(p[field])), `${field}: ${p[field]}`);
      assert.ok(Date.parse(p[field]) >= before - 1000, field);
    }
    assert.equal(p.updated_at, p.created_at);
    assert.deepEqual(await getProduct(t, p.id), p);
  });

  test('a full product: every field as sent; the write-only fields never appear', async () => {
    const body = {
      external_id: uniq('full'), title: 'Trail Shoe', description: 'A shoe for trails', short_description: 'Shoe',
      sku: 'SKU-1', gtin: '4006381333931', brand: 'Acme', category: 'shoes',
      attributes: { color: 'red', sizes: [40, 41], nested: { a: null } }, properties: { weight: '300 g', waterproof: true },
      price_current: '89.90', price_msrp: 99, price_special: '79.5', price_on_request: true, currency: 'USD',
      image_url: 'https://img.example/1.jpg', additional_images: ['https://img.example/2.jpg', 'https://img.example/3.jpg'],
      product_url: 'https://shop.example/p/1', availability: 'in_stock', rating_average: '4.50', rating_count: 17,
      language: 'en-GB', parent_external_id: 'no-such-parent', is_variant: true, is_parent: false,
      similarity_text: 'trail shoe red', search_keywords: ['sneaker', 'runner'],
      embedding_text_description: 'desc text', embedding_text_properties: 'props text', embedding_text_attributes: 'attrs text',
      sync_hash: x(64, 'f'), unknown_key: 'ignored',
    };
    const p = await upsert(t, site.id, body, 'created');
    assert.deepEqual(Object.keys(p).sort(), PRODUCT_KEYS);
    for (const key of [...NEVER_IN_RESPONSE, 'unknown_key']) assert.ok(!(key in p), key);
    assert.deepEqual(
      { ...p, id: undefined, created_at: undefined, updated_at: undefined, last_synced_at: undefined, translation_group_id: undefined },
      {
        id: undefined, tenant_id: t.tenant.id, site_id: site.id, external_id: body.external_id, title: 'Trail Shoe',
        description: 'A shoe for trails', short_description: 'Shoe', sku: 'SKU-1', gtin: '4006381333931', brand: 'Acme',
        category: 'shoes', attributes: body.attributes, properties: body.properties, price_current: '89.90',
        price_msrp: '99', price_special: '79.5', price_on_request: true, currency: 'USD', image_url: body.image_url,
        product_url: body.product_url, availability: 'in_stock', additional_images: body.additional_images,
        rating_average: '4.50', rating_count: 17, language: 'en-GB', translation_group_id: undefined,
        parent_product_id: null, is_variant: true, is_parent: false, search_keywords: ['sneaker', 'runner'],
        has_similarity_anchor: true, source: 'api', sync_hash: x(64, 'f'), last_synced_at: undefined,
        created_at: undefined, updated_at: undefined, embedding_status: 'skipped', embedding_skipped_reason: 'embedding_off',
      },
    );
    assert.match(p.translation_group_id, UUID_V4);
    const got = await getProduct(t, p.id);
    assert.deepEqual(got, p);
    for (const key of NEVER_IN_RESPONSE) assert.ok(!(key in got), key);
    const listed = (await listProducts(t, `?site_id=${site.id}&limit=200`)).items.find((i) => i.id === p.id);
    assert.deepEqual(listed, p);
  });

  test('has_similarity_anchor is true only for a non-blank similarity_text', async () => {
    assert.equal((await upsert(t, site.slug, productBody({ similarity_text: 'anchor' }), 'created')).has_similarity_anchor, true);
    assert.equal((await upsert(t, site.slug, productBody({ similarity_text: '   ' }), 'created')).has_similarity_anchor, false);
    assert.equal((await upsert(t, site.slug, productBody({ similarity_text: '' }), 'created')).has_similarity_anchor, false);
    assert.equal((await upsert(t, site.slug, productBody({ similarity_text: null }), 'created')).has_similarity_anchor, false);
    assert.equal((await upsert(t, site.slug, productBody(), 'created')).has_similarity_anchor, false);
  });

  test("source is 'api', or the X-Audit-Source header's value", async () => {
    assert.equal((await upsert(t, site.slug, productBody(), 'created')).source, 'api');
    const p = await upsert(t, site.slug, productBody(), 'created', { 'X-Audit-Source': 'shopware-connector' });
    assert.equal(p.source, 'shopware-connector');
    assert.equal((await getProduct(t, p.id)).source, 'shopware-connector');
  });
});
