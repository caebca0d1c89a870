// POST and GET /sites: the field limits of spec §8, required fields, every error listed, bodies that
// are no object; the response shape, slugs, GET by UUID or slug, the list; tenant isolation.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422, assertError } from '../../helpers/assertions.js';
import {
  stack, useStack, SITES, UUID_V4, SITE_KEYS, type Body, nextSlug, x, siteBody, err, tooShort, tooLong, patternMismatch, missing,
  create, createInOrder, list, defaultId, get,
} from './fixtures.js';

useStack();

// ---- create: limits of spec §8 ----------------------------------------------------------------

describe('POST /sites: field limits', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  const passes = async (over: Body) => {
    const res = await t.request('POST', SITES, { body: siteBody(over) });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const fails = async (over: Body, detail: unknown[]) => assert422(await t.request('POST', SITES, { body: siteBody(over) }), detail);

  test('slug: 1 and 100 characters pass, 0 and 101 fail', async () => {
    assert.equal((await passes({ slug: 'q' })).slug, 'q');
    const long = `${x(99, 'b')}1`;
    assert.equal((await passes({ slug: long })).slug, long);
    assert.equal((await get(t, long)).status, 200);
    await fails({ slug: '' }, [tooShort('slug', 1)]);
    await fails({ slug: x(101, 'c') }, [tooLong('slug', 100)]);
  });

  test('slug: the URL-safe pattern', async () => {
    for (const slug of ['a', 'a-b', 'a1', '7', 'a--b', '0-9z']) {
      assert.equal((await passes({ slug })).slug, slug);
    }
    for (const slug of ['-a', 'a-', 'A', 'a_b', 'a b', 'ab.c', 'é', '-']) {
      await fails({ slug }, [patternMismatch]);
    }
  });

  test('slug must be a string', async () => {
    await fails({ slug: 5 }, [err('slug', 'Input should be a valid string', 'string_type')]);
  });

  test('name: 1 and 200 characters pass, 0 and 201 fail', async () => {
    assert.equal((await passes({ name: 'N' })).name, 'N');
    assert.equal((await passes({ name: x(200) })).name, x(200));
    await fails({ name: '' }, [tooShort('name', 1)]);
    await fails({ name: x(201) }, [tooLong('name', 200)]);
  });

  test('lengths count characters, not bytes or UTF-16 units', async () => {
    // '😀' is one character but two UTF-16 code units.
    assert.equal((await passes({ name: x(200, '😀') })).name, x(200, '😀'));
    await fails({ name: x(201, '😀') }, [tooLong('name', 200)]);
    await fails({ name: x(201, 'é') }, [tooLong('name', 200)]);
    assert.equal((await passes({ language: '😀😀' })).language, '😀😀');
    await fails({ language: '😀' }, [tooShort('language', 2)]);
    await fails({ language: x(5, '😀'), domain: x(256, '😀') }, [tooLong('domain', 255)]);
  });

  test('language: 2 and 5 characters pass, 1 and 6 fail', async () => {
    assert.equal((await passes({ language: 'de' })).language, 'de');
    assert.equal((await passes({ language: 'en-US' })).language, 'en-US');
    await fails({ language: 'e' }, [tooShort('language', 2)]);
    await fails({ language: 'en-USA' }, [tooLong('language', 5)]);
  });

  test('domain: up to 255 characters, null or omitted is null', async () => {
    assert.equal((await passes({ domain: x(255, 'd') })).domain, x(255, 'd'));
    assert.equal((await passes({ domain: null })).domain, null);
    assert.equal((await passes({})).domain, null);
    await fails({ domain: x(256, 'd') }, [tooLong('domain', 255)]);
  });

  test("site_type: up to 50 characters, default 'shop'", async () => {
    assert.equal((await passes({ site_type: x(50, 's') })).site_type, x(50, 's'));
    assert.equal((await passes({ site_type: 'blog' })).site_type, 'blog');
    assert.equal((await passes({})).site_type, 'shop');
    await fails({ site_type: x(51, 's') }, [tooLong('site_type', 50)]);
  });

  test('platform: up to 50 characters, null or omitted is null', async () => {
    assert.equal((await passes({ platform: x(50, 'p') })).platform, x(50, 'p'));
    assert.equal((await passes({ platform: null })).platform, null);
    assert.equal((await passes({})).platform, null);
    await fails({ platform: x(51, 'p') }, [tooLong('platform', 50)]);
  });

  test('config: any object, kept as sent; default {}; anything else is a 422', async () => {
    const config = { theme: 'dark', nested: { list: [1, 'two', null], flag: true }, n: 1.5 };
    assert.deepEqual((await passes({ config })).config, config);
    assert.deepEqual((await passes({ config: {} })).config, {});
    assert.deepEqual((await passes({})).config, {});
    const notDict = [err('config', 'Input should be a valid dictionary', 'dict_type')];
    for (const config of [[], 'x', 3, null, true]) await fails({ config }, notDict);
  });

  test('is_default: a boolean, default false', async () => {
    // The tenant already has a default site from the tests above, so a plain create is not the default.
    assert.equal((await passes({})).is_default, false);
    assert.equal((await passes({ is_default: false })).is_default, false);
    for (const is_default of [null, [], {}]) {
      await fails({ is_default }, [err('is_default', 'Input should be a valid boolean', 'bool_type')]);
    }
  });

  test('slug, name and language are required', async () => {
    assert422(await t.request('POST', SITES, { body: {} }), [missing('slug'), missing('name'), missing('language')]);
    assert422(await t.request('POST', SITES, { body: { slug: nextSlug(), language: 'en' } }), [missing('name')]);
    assert422(await t.request('POST', SITES, { body: { name: 'N', language: 'en' } }), [missing('slug')]);
    assert422(await t.request('POST', SITES, { body: { slug: nextSlug(), name: 'N' } }), [missing('language')]);
  });

  test('every error of a body is listed in one response', async () => {
    const res = await t.request('POST', SITES, {
      body: {
        slug: 'Bad_Slug', name: '', language: 'toolong', domain: x(256), site_type: x(51),
        platform: x(51), config: [], is_default: null,
      },
    });
    assert422(res, [
      patternMismatch,
      tooShort('name', 1),
      tooLong('language', 5),
      tooLong('domain', 255),
      tooLong('site_type', 50),
      tooLong('platform', 50),
      err('config', 'Input should be a valid dictionary', 'dict_type'),
      err('is_default', 'Input should be a valid boolean', 'bool_type'),
    ]);
    assert422(await t.request('POST', SITES, { body: { name: x(201) } }), [missing('slug'), tooLong('name', 200), missing('language')]);
  });

  test('a failed create stores nothing', async () => {
    const before = await list(t);
    const slug = nextSlug();
    assert.equal((await t.request('POST', SITES, { body: { slug, name: '', language: 'en' } })).status, 422);
    assert.equal((await get(t, slug)).status, 404);
    assert.equal((await list(t)).length, before.length);
  });

  test('a body that is not an object, an empty body and broken JSON are 422s', async () => {
    assert422(await t.request('POST', SITES, { body: [] }), [
      { loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' },
    ]);
    assert422(await t.request('POST', SITES, { raw: '', headers: { 'content-type': 'application/json' } }), [
      { loc: ['body'], msg: 'Field required', type: 'missing' },
    ]);
    const broken = await t.request('POST', SITES, { raw: '{"slug": ', headers: { 'content-type': 'application/json' } });
    assert.equal(broken.status, 422, broken.text);
    assert.equal(broken.body.detail.length, 1);
    const [item] = broken.body.detail;
    assert.equal(item.loc[0], 'body');
    assert.equal(typeof item.loc[1], 'number');
    assert.equal(item.msg, 'JSON decode error');
    assert.equal(item.type, 'json_invalid');
  });

  test('unknown keys are ignored', async () => {
    const site = await passes({ colour: 'red', id: randomUUID(), tenant_id: randomUUID() });
    assert.deepEqual(Object.keys(site).sort(), SITE_KEYS);
    assert.equal(site.tenant_id, t.tenant.id);
  });
});

// ---- response shape, slugs, reads -------------------------------------------------------------

describe('site responses and reads', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  test('the response carries exactly the spec keys, echoes the input, and the id is a UUID v4', async () => {
    const body = {
      slug: 'full', name: 'Full Shop', language: 'de-AT', domain: 'shop.example.com', site_type: 'marketplace',
      platform: 'shopware', config: { currency: 'EUR', tax: { rate: 20 } }, is_default: true,
    };
    const res = await t.request('POST', SITES, { body });
    assert.equal(res.status, 201, res.text);
    const site = res.body;
    assert.deepEqual(Object.keys(site).sort(), SITE_KEYS);
    assert.match(site.id, UUID_V4);
    assert.equal(site.tenant_id, t.tenant.id);
    const { id: _id, tenant_id: _tenant, created_at, ...rest } = site;
    assert.deepEqual(rest, body);
    assert.equal(typeof created_at, 'string');
    assert.ok(!Number.isNaN(Date.parse(created_at)), created_at);
    assert.equal(new Date(created_at).toISOString(), created_at);
  });

  test('defaults are filled in the response', async () => {
    const site = await create(t, { slug: 'minimal', name: 'Minimal', language: 'fr' });
    assert.deepEqual(
      { domain: site.domain, site_type: site.site_type, platform: site.platform, config: site.config, is_default: site.is_default },
      { domain: null, site_type: 'shop', platform: null, config: {}, is_default: false },
    );
  });

  test('a taken slug is a 409 with a readable detail', async () => {
    await create(t, { slug: 'taken' });
    const res = await t.request('POST', SITES, { body: siteBody({ slug: 'taken', name: 'Other' }) });
    assertError(res, 409);
    assert.equal((await list(t)).filter((s) => s.slug === 'taken').length, 1);
  });

  test('GET by UUID and by slug return the same site', async () => {
    const site = await create(t, { slug: 'lookup', domain: 'lookup.test' });
    const byId = await get(t, site.id);
    assert.equal(byId.status, 200, byId.text);
    assert.deepEqual(byId.body, site);
    const bySlug = await get(t, 'lookup');
    assert.equal(bySlug.status, 200, bySlug.text);
    assert.deepEqual(bySlug.body, site);
    const byUpper = await get(t, site.id.toUpperCase());
    assert.equal(byUpper.status, 200, byUpper.text);
    assert.deepEqual(byUpper.body, site);
  });

  test('an unknown UUID or slug is a 404', async () => {
    assertError(await get(t, randomUUID()), 404);
    assertError(await get(t, 'no-such-site'), 404);
  });

  test('the list holds every site of the tenant, in creation order', async () => {
    const own = await stack.tenant();
    assert.deepEqual(await list(own), []);
    const created = await createInOrder(own, 3);
    assert.deepEqual(await list(own), created.map((s, i) => ({ ...s, is_default: i === 0 })));
  });
});

// ---- tenant isolation -------------------------------------------------------------------------

describe('tenant isolation', () => {
  let a: TenantFixture;
  let b: TenantFixture;
  let siteA: any;
  let siteB: any;
  before(async () => {
    a = await stack.tenant();
    b = await stack.tenant();
    siteA = await create(a, { slug: 'shared-slug', name: 'A shop' });
    siteB = await create(b, { slug: 'b-only', name: 'B shop' });
  });

  test("another tenant's site is a 404 on GET, PUT and DELETE, by UUID and by slug", async () => {
    for (const ref of [siteA.id, siteA.slug]) {
      assertError(await b.request('GET', `${SITES}/${ref}`), 404);
      assertError(await b.request('PUT', `${SITES}/${ref}`, { body: { name: 'hijacked', is_default: true } }), 404);
      assertError(await b.request('DELETE', `${SITES}/${ref}`), 404);
    }
    // Untouched for its owner.
    const got = await get(a, siteA.id);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, siteA);
    assert.equal(await defaultId(b), siteB.id);
  });

  test("another tenant's sites never appear in the list", async () => {
    assert.deepEqual(await list(b), [siteB]);
    assert.deepEqual(await list(a), [siteA]);
  });

  test('slugs are unique per tenant only; each tenant has its own default', async () => {
    const same = await create(b, { slug: 'shared-slug', name: 'B copy' });
    assert.notEqual(same.id, siteA.id);
    assert.equal(same.tenant_id, b.tenant.id);
    assert.equal(same.is_default, false);
    assert.deepEqual((await get(b, 'shared-slug')).body, same);
    assert.deepEqual((await get(a, 'shared-slug')).body, siteA);
    assert.equal(await defaultId(a), siteA.id);
    assert.equal(await defaultId(b), siteB.id);
  });
});

describe('a slug shaped like a UUID', () => {
  test('is found by slug when no site has that id', async () => {
    const t = await stack.tenant();
    const slug = '3f2c1a9e-1b2c-4d3e-8f90-123456789abc';
    const created = await t.request('POST', '/api/knowledge/sites', { body: { slug, name: 'Odd', language: 'en' } });
    assert.equal(created.status, 201);
    const bySlug = await t.request('GET', `/api/knowledge/sites/${slug}`);
    assert.equal(bySlug.status, 200);
    assert.equal(bySlug.body.id, created.body.id);
    assert.equal((await t.request('DELETE', `/api/knowledge/sites/${slug}`)).status, 204);
  });
});
