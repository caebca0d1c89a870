// POST /products validation: the field limits of spec §8 and decimals with exact 422 bodies, and the site_id parameter.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422, assertError } from '../../helpers/assertions.js';
import { stack, useStack, PRODUCTS, type Body, x, uniq, err, tooShort, missing, decimalParsing, ge, le, createSite, productBody, post, upsert, getProduct, listProducts } from './fixtures.js';

useStack();

const tooLong = (field: string, n: number) => err(field, `String should have at most ${n} characters`, 'string_too_long');
const decimalType = (field: string) => err(field, 'Decimal input should be an integer, float, string or Decimal object', 'decimal_type');

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
