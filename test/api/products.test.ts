// Products over real HTTP (spec §2.2, §4.1, §8; DESIGN §3, §4 "Products"): the field limits with
// exact 422 bodies, decimals in and out, the response shape and defaults, the upsert and its
// sync_hash delta rules, variants, translation groups, the list with its filters and paging, the
// single-product routes, deletion by external_id, concurrent upserts, tenant isolation and scopes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';
import { assert422, assertError } from '../helpers/assertions.js';

const PRODUCTS = '/api/knowledge/products';
const SITES = '/api/knowledge/sites';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PRODUCT_KEYS = [
  'id', 'tenant_id', 'site_id', 'external_id', 'title', 'description', 'short_description', 'sku', 'gtin', 'brand',
  'category', 'attributes', 'properties', 'price_current', 'price_msrp', 'price_special', 'price_on_request', 'currency',
  'image_url', 'product_url', 'availability', 'additional_images', 'rating_average', 'rating_count', 'language',
  'translation_group_id', 'parent_product_id', 'is_variant', 'is_parent', 'search_keywords', 'has_similarity_anchor',
  'source', 'sync_hash', 'last_synced_at', 'created_at', 'updated_at', 'embedding_status',
].sort();
const NEVER_IN_RESPONSE = ['parent_external_id', 'similarity_text', 'embedding_text_description', 'embedding_text_properties', 'embedding_text_attributes'];

let stack: Stack;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
});
after(() => stack.close());

// ---- helpers ----------------------------------------------------------------------------------

type Body = Record<string, unknown>;
const x = (n: number, ch = 'a') => ch.repeat(n);
let counter = 0;
const uniq = (prefix = 'x') => `${prefix}-${++counter}`;

const err = (field: string, msg: string, type: string, root = 'body') => ({ loc: [root, field], msg, type });
const tooShort = (field: string, n: number) =>
  err(field, `String should have at least ${n} character${n === 1 ? '' : 's'}`, 'string_too_short');
const tooLong = (field: string, n: number) => err(field, `String should have at most ${n} characters`, 'string_too_long');
const missing = (field: string, root = 'body') => err(field, 'Field required', 'missing', root);
const decimalParsing = (field: string) => err(field, 'Input should be a valid decimal', 'decimal_parsing');
const decimalType = (field: string) => err(field, 'Decimal input should be an integer, float, string or Decimal object', 'decimal_type');
const ge = (field: string, n: number, root = 'body') => err(field, `Input should be greater than or equal to ${n}`, 'greater_than_equal', root);
const le = (field: string, n: number, root = 'body') => err(field, `Input should be less than or equal to ${n}`, 'less_than_equal', root);



async function createSite(t: TenantFixture, over: Body = {}): Promise<any> {
  const res = await t.request('POST', SITES, { body: { slug: uniq('site'), name: 'Shop', language: 'en', ...over } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const productBody = (over: Body = {}): Body => ({ title: 'Product', language: 'en', ...over });
const q = (value: string) => encodeURIComponent(value);

function post(t: TenantFixture, siteRef: string, body: unknown, headers?: Record<string, string>): Promise<HttpResult> {
  return t.request('POST', `${PRODUCTS}?site_id=${q(siteRef)}`, { body, headers });
}

/** POSTs and asserts the status and X-Upsert-Result; returns the product. */
async function upsert(t: TenantFixture, siteRef: string, body: Body, expected: 'created' | 'updated' | 'unchanged', headers?: Record<string, string>): Promise<any> {
  const res = await post(t, siteRef, body, headers);
  assert.equal(res.status, expected === 'created' ? 201 : 200, res.text);
  assert.equal(res.headers['x-upsert-result'], expected);
  return res.body;
}

async function getProduct(t: TenantFixture, id: string): Promise<any> {
  const res = await t.request('GET', `${PRODUCTS}/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function listProducts(t: TenantFixture, query = ''): Promise<{ items: any[]; total: number }> {
  const res = await t.request('GET', `${PRODUCTS}${query}`);
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.body), res.text);
  const total = res.headers['x-total-count'];
  assert.equal(typeof total, 'string', 'X-Total-Count is missing');
  return { items: res.body, total: Number(total) };
}

const byCreated = (a: any, b: any) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

// ---- create: the limits of spec §8 ------------------------------------------------------------

describe('POST /products: field limits', () => {
  let t: TenantFixture;
  let site: any;
  before(async () => {
    t = await stack.tenant();
    site = await createSite(t);
  });

  const passes = async (over: Body) => {
    const res = await post(t, site.slug, productBody(over));
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const fails = async (over: Body, detail: unknown[]) => assert422(await post(t, site.slug, productBody(over)), detail);

  const maxLengths: [string, number][] = [
    ['external_id', 200], ['sku', 100], ['gtin', 50], ['brand', 200], ['currency', 3], ['availability', 50], ['sync_hash', 64],
  ];
  for (const [field, max] of maxLengths) {
    test(`${field}: ${max} characters pass, ${max + 1} fail`, async () => {
      // external_id is the upsert key: make each one unique so every pass is a create.
      const fill = field === 'external_id' ? `${uniq('e')}${x(max)}`.slice(0, max) : x(max, 'z');
      assert.equal([...fill].length, max);
      assert.equal((await passes({ [field]: fill }))[field], fill);
      await fails({ [field]: `${fill}z` }, [tooLong(field, max)]);
      await fails({ [field]: x(max + 50, 'y') }, [tooLong(field, max)]);
    });
  }

  test('nullable strings accept null', async () => {
    const p = await passes({ external_id: null, sku: null, gtin: null, brand: null, availability: null, sync_hash: null, description: null, category: null });
    for (const field of ['external_id', 'sku', 'gtin', 'brand', 'availability', 'sync_hash', 'description', 'category']) assert.equal(p[field], null, field);
  });

  test('currency: null is not a string', async () => {
    await fails({ currency: null }, [err('currency', 'Input should be a valid string', 'string_type')]);
  });

  test('language: 2 and 5 characters pass, 1 and 6 fail', async () => {
    assert.equal((await passes({ language: 'de' })).language, 'de');
    assert.equal((await passes({ language: 'en-US' })).language, 'en-US');
    await fails({ language: 'e' }, [tooShort('language', 2)]);
    await fails({ language: '' }, [tooShort('language', 2)]);
    await fails({ language: 'en-USA' }, [tooLong('language', 5)]);
  });

  test('title: 1 character passes, empty fails, missing is missing', async () => {
    assert.equal((await passes({ title: 'T' })).title, 'T');
    await fails({ title: '' }, [tooShort('title', 1)]);
    assert422(await post(t, site.slug, { language: 'en' }), [missing('title')]);
    assert422(await post(t, site.slug, { title: 'T' }), [missing('language')]);
    assert422(await post(t, site.slug, {}), [missing('title'), missing('language')]);
    await fails({ title: 5 }, [err('title', 'Input should be a valid string', 'string_type')]);
  });

  test('rating_count: an integer >= 0', async () => {
    assert.equal((await passes({ rating_count: 0 })).rating_count, 0);
    assert.equal((await passes({ rating_count: 12345 })).rating_count, 12345);
    await fails({ rating_count: -1 }, [ge('rating_count', 0)]);
    await fails({ rating_count: 1.5 }, [err('rating_count', 'Input should be a valid integer, got a number with a fractional part', 'int_from_float')]);
    await fails({ rating_count: null }, [err('rating_count', 'Input should be a valid integer', 'int_type')]);
  });

  test('rating_average: 0..5 as a number', async () => {
    assert.equal((await passes({ rating_average: 0 })).rating_average, '0');
    assert.equal((await passes({ rating_average: 5 })).rating_average, '5');
    assert.equal((await passes({ rating_average: 4.5 })).rating_average, '4.5');
    await fails({ rating_average: 5.01 }, [le('rating_average', 5)]);
    await fails({ rating_average: 6 }, [le('rating_average', 5)]);
    await fails({ rating_average: -0.1 }, [ge('rating_average', 0)]);
  });

  test('rating_average: 0..5 as a decimal string, kept as given', async () => {
    assert.equal((await passes({ rating_average: '5' })).rating_average, '5');
    assert.equal((await passes({ rating_average: '5.0' })).rating_average, '5.0');
    assert.equal((await passes({ rating_average: '5.000' })).rating_average, '5.000');
    assert.equal((await passes({ rating_average: '0.0' })).rating_average, '0.0');
    assert.equal((await passes({ rating_average: '-0' })).rating_average, '0');
    assert.equal((await passes({ rating_average: '4.99999999999999999999' })).rating_average, '4.99999999999999999999');
    assert.equal((await passes({ rating_average: null })).rating_average, null);
    await fails({ rating_average: '5.01' }, [le('rating_average', 5)]);
    await fails({ rating_average: '5.00000000000000000001' }, [le('rating_average', 5)]);
    await fails({ rating_average: '-0.1' }, [ge('rating_average', 0)]);
    await fails({ rating_average: '1e0' }, [decimalParsing('rating_average')]);
    await fails({ rating_average: true }, [decimalType('rating_average')]);
  });

  test('prices: decimal strings of the spec pattern are answered in canonical form, exactly', async () => {
    const cases: [string, string][] = [
      ['+01.50', '1.50'],
      ['.5', '0.5'],
      ['5.', '5'],
      ['-0', '0'],
      ['19.999999999999999', '19.999999999999999'],
      ['1.50', '1.50'],
      ['0007', '7'],
      ['123456789012345678901234567890.123456789', '123456789012345678901234567890.123456789'],
    ];
    for (const [input, expected] of cases) {
      const p = await passes({ price_current: input, price_msrp: input, price_special: input });
      for (const field of ['price_current', 'price_msrp', 'price_special']) {
        assert.equal(typeof p[field], 'string');
        assert.equal(p[field], expected, `${field} ${input}`);
      }
      const stored = await getProduct(t, p.id);
      assert.equal(stored.price_current, expected);
      assert.equal(stored.price_msrp, expected);
      assert.equal(stored.price_special, expected);
    }
  });

  test('prices: JSON numbers become their shortest decimal text', async () => {
    assert.equal((await passes({ price_current: 1.5 })).price_current, '1.5');
    assert.equal((await passes({ price_current: 10 })).price_current, '10');
    assert.equal((await passes({ price_current: 19.99 })).price_current, '19.99');
    assert.equal((await passes({ price_msrp: 0.1 })).price_msrp, '0.1');
    assert.equal((await passes({ price_special: 0 })).price_special, '0');
    const res = await t.request('POST', `${PRODUCTS}?site_id=${site.id}`, {
      raw: '{"title":"T","language":"en","price_current":1e21,"price_msrp":1e-7,"price_special":1.50}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual([res.body.price_current, res.body.price_msrp, res.body.price_special], ['1000000000000000000000', '0.0000001', '1.5']);
  });

  test('prices: null and omitted are null', async () => {
    const p = await passes({ price_current: null });
    assert.equal(p.price_current, null);
    assert.equal(p.price_msrp, null);
    assert.equal(p.price_special, null);
  });

  test('prices: strings outside the pattern are decimal_parsing errors', async () => {
    for (const value of ['1e5', '--1', '.', '', '+', '-.', '1.2.3', ' 1', 'abc', '1,5']) {
      await fails({ price_current: value }, [decimalParsing('price_current')]);
    }
    await fails({ price_msrp: '1e5' }, [decimalParsing('price_msrp')]);
    await fails({ price_special: '--1' }, [decimalParsing('price_special')]);
  });

  test('prices: other types are decimal_type errors', async () => {
    await fails({ price_current: true }, [decimalType('price_current')]);
    await fails({ price_current: false }, [decimalType('price_current')]);
    await fails({ price_msrp: [] }, [decimalType('price_msrp')]);
    await fails({ price_special: {} }, [decimalType('price_special')]);
  });

  test('every error of a body is listed in one response, in field order', async () => {
    assert422(
      await post(t, site.slug, {
        external_id: x(201), title: '', sku: x(101), gtin: x(51), brand: x(201), price_current: '1e5', price_msrp: true,
        currency: 'EURO', availability: x(51), rating_average: '5.01', rating_count: -1, language: 'e', sync_hash: x(65),
      }),
      [
        tooLong('external_id', 200), tooShort('title', 1), tooLong('sku', 100), tooLong('gtin', 50), tooLong('brand', 200),
        decimalParsing('price_current'), decimalType('price_msrp'), tooLong('currency', 3), tooLong('availability', 50),
        le('rating_average', 5), ge('rating_count', 0), tooShort('language', 2), tooLong('sync_hash', 64),
      ],
    );
  });

  test('a rejected body stores nothing', async () => {
    const before = await listProducts(t, `?site_id=${site.id}&limit=200`);
    const ext = uniq('rejected');
    await fails({ external_id: ext, price_current: '1e5' }, [decimalParsing('price_current')]);
    const after = await listProducts(t, `?site_id=${site.id}&limit=200`);
    assert.equal(after.total, before.total);
    assert.ok(!after.items.some((p) => p.external_id === ext));
  });
});

// ---- the site query parameter -----------------------------------------------------------------

describe('POST /products: site_id', () => {
  let t: TenantFixture;
  let site: any;
  before(async () => {
    t = await stack.tenant();
    site = await createSite(t);
  });

  test('a missing site_id is a 422 at query.site_id', async () => {
    assert422(await t.request('POST', PRODUCTS, { body: productBody() }), [missing('site_id', 'query')]);
  });

  test('query and body errors are listed together', async () => {
    assert422(await t.request('POST', PRODUCTS, { body: { language: 'en' } }), [missing('site_id', 'query'), missing('title')]);
  });

  test('an unknown site is a 404', async () => {
    assertError(await post(t, 'no-such-site', productBody()), 404);
    assertError(await post(t, randomUUID(), productBody()), 404);
  });

  test('the site is found by slug and by UUID; both address the same product', async () => {
    const ext = uniq('ext');
    const bySlug = await upsert(t, site.slug, productBody({ external_id: ext }), 'created');
    assert.equal(bySlug.site_id, site.id);
    const byId = await upsert(t, site.id, productBody({ external_id: ext, title: 'Renamed' }), 'updated');
    assert.equal(byId.id, bySlug.id);
    assert.equal(byId.site_id, site.id);
    assert.equal(byId.title, 'Renamed');
  });
});

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
        last_synced_at: undefined, created_at: undefined, updated_at: undefined, embedding_status: 'skipped',
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
        created_at: undefined, updated_at: undefined, embedding_status: 'skipped',
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

// ---- variants ---------------------------------------------------------------------------------

describe('variants', () => {
  let t: TenantFixture;
  let site: any;
  let other: any;
  before(async () => {
    t = await stack.tenant();
    site = await createSite(t);
    other = await createSite(t);
  });

  test('a variant posted before its parent links once the parent arrives', async () => {
    const variant = await upsert(t, site.slug, productBody({ external_id: 'V1', parent_external_id: 'P', is_variant: true }), 'created');
    assert.equal(variant.parent_product_id, null);
    assert.equal(variant.is_variant, true);
    assert.equal(variant.is_parent, false);
    assert.equal((await getProduct(t, variant.id)).parent_product_id, null);

    const parent = await upsert(t, site.slug, productBody({ external_id: 'P', is_parent: true }), 'created');
    assert.equal(parent.is_parent, true);
    assert.equal(parent.is_variant, false);
    assert.equal(parent.parent_product_id, null);

    assert.equal((await getProduct(t, variant.id)).parent_product_id, parent.id);
    const listed = (await listProducts(t, `?site_id=${site.id}`)).items.find((p) => p.id === variant.id);
    assert.equal(listed.parent_product_id, parent.id);

    // A variant posted after its parent links at once.
    const late = await upsert(t, site.slug, productBody({ external_id: 'V2', parent_external_id: 'P', is_variant: true }), 'created');
    assert.equal(late.parent_product_id, parent.id);

    // parent_external_id is never echoed.
    assert.ok(!('parent_external_id' in late));

    // Once the parent is gone the link is gone too.
    assert.equal((await t.request('DELETE', `${PRODUCTS}/${parent.id}`)).status, 204);
    assert.equal((await getProduct(t, variant.id)).parent_product_id, null);
  });

  test('is_parent and is_variant are stored as given, together too', async () => {
    const both = await upsert(t, site.slug, productBody({ is_parent: true, is_variant: true }), 'created');
    assert.deepEqual([both.is_parent, both.is_variant], [true, true]);
    const none = await upsert(t, site.slug, productBody({ is_parent: false, is_variant: false }), 'created');
    assert.deepEqual([none.is_parent, none.is_variant], [false, false]);
  });

  test('the parent is looked up in the variant\'s own site only', async () => {
    const foreignParent = await upsert(t, other.slug, productBody({ external_id: 'Q', is_parent: true }), 'created');
    const variant = await upsert(t, site.slug, productBody({ external_id: 'VQ', parent_external_id: 'Q', is_variant: true }), 'created');
    assert.equal(variant.parent_product_id, null);
    assert.equal((await getProduct(t, variant.id)).parent_product_id, null);
    // The parent in the other site links its own variants.
    const ownVariant = await upsert(t, other.slug, productBody({ external_id: 'VQ', parent_external_id: 'Q', is_variant: true }), 'created');
    assert.equal(ownVariant.parent_product_id, foreignParent.id);
  });

  test('changing parent_external_id relinks; dropping it unlinks', async () => {
    const p1 = await upsert(t, site.slug, productBody({ external_id: 'R1', is_parent: true }), 'created');
    const p2 = await upsert(t, site.slug, productBody({ external_id: 'R2', is_parent: true }), 'created');
    const v = productBody({ external_id: 'RV', is_variant: true });
    assert.equal((await upsert(t, site.slug, { ...v, parent_external_id: 'R1' }, 'created')).parent_product_id, p1.id);
    assert.equal((await upsert(t, site.slug, { ...v, parent_external_id: 'R2' }, 'updated')).parent_product_id, p2.id);
    assert.equal((await upsert(t, site.slug, v, 'updated')).parent_product_id, null);
  });
});

// ---- translation groups -----------------------------------------------------------------------

describe('translation groups', () => {
  test('one external_id across the sites of a tenant is one group; other ids and other tenants are other groups', async () => {
    const t = await stack.tenant();
    const u = await stack.tenant();
    const en = await createSite(t, { language: 'en' });
    const de = await createSite(t, { language: 'de' });
    const fr = await createSite(t, { language: 'fr' });
    const foreign = await createSite(u);

    const a = await upsert(t, en.slug, productBody({ external_id: 'ART-1', title: 'Shoe' }), 'created');
    const b = await upsert(t, de.slug, productBody({ external_id: 'ART-1', title: 'Schuh', language: 'de' }), 'created');
    const c = await upsert(t, fr.slug, productBody({ external_id: 'ART-1', title: 'Chaussure', language: 'fr' }), 'created');
    const d = await upsert(t, en.slug, productBody({ external_id: 'ART-2' }), 'created');
    const e = await upsert(u, foreign.slug, productBody({ external_id: 'ART-1' }), 'created');

    assert.notEqual(a.id, b.id);
    for (const p of [a, d, e]) assert.match(p.translation_group_id, UUID_V4);
    assert.equal(b.translation_group_id, a.translation_group_id);
    assert.equal(c.translation_group_id, a.translation_group_id);
    assert.notEqual(d.translation_group_id, a.translation_group_id);
    assert.notEqual(e.translation_group_id, a.translation_group_id);

    // Updates keep the group.
    const a2 = await upsert(t, en.slug, productBody({ external_id: 'ART-1', title: 'Shoe v2' }), 'updated');
    assert.equal(a2.translation_group_id, a.translation_group_id);
    assert.equal((await getProduct(t, b.id)).translation_group_id, a.translation_group_id);
  });

  test('concurrent first pushes of one external_id into several sites agree on one group', async () => {
    const t = await stack.tenant();
    const sites = await Promise.all(Array.from({ length: 6 }, () => createSite(t)));
    const created = await Promise.all(sites.map((s) => upsert(t, s.slug, productBody({ external_id: 'SAME' }), 'created')));
    assert.equal(new Set(created.map((p) => p.translation_group_id)).size, 1);
  });
});

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
