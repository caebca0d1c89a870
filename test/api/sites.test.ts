// Sites over real HTTP: the limits of spec §8, the response shape, slugs, the default-site rules,
// partial updates, deletion (with the background purge of products) and tenant isolation.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { keys } from '../../src/store/keys.js';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';
import { assert422, assertError } from '../helpers/assertions.js';

const SITES = '/api/knowledge/sites';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SLUG_PATTERN = '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$';
const SITE_KEYS = ['config', 'created_at', 'domain', 'id', 'is_default', 'language', 'name', 'platform', 'site_type', 'slug', 'tenant_id'];

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

// ---- helpers ----------------------------------------------------------------------------------

let slugCounter = 0;
const nextSlug = () => `site-${++slugCounter}`;
const x = (n: number, ch = 'a') => ch.repeat(n);

type Body = Record<string, unknown>;
/** A valid create body with a fresh slug; `over` replaces or adds fields. */
const siteBody = (over: Body = {}): Body => ({ slug: nextSlug(), name: 'Shop', language: 'en', ...over });

const err = (field: string, msg: string, type: string) => ({ loc: ['body', field], msg, type });
const tooShort = (field: string, n: number) =>
  err(field, `String should have at least ${n} character${n === 1 ? '' : 's'}`, 'string_too_short');
const tooLong = (field: string, n: number) => err(field, `String should have at most ${n} characters`, 'string_too_long');
const patternMismatch = err('slug', `String should match pattern '${SLUG_PATTERN}'`, 'string_pattern_mismatch');
const missing = (field: string) => err(field, 'Field required', 'missing');



async function create(t: TenantFixture, over: Body = {}): Promise<any> {
  const res = await t.request('POST', SITES, { body: siteBody(over) });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Creates sites one after the other, a few ms apart, so their creation order is unambiguous. */
async function createInOrder(t: TenantFixture, count: number): Promise<any[]> {
  const out = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) await delay(5);
    out.push(await create(t));
  }
  return out;
}

async function list(t: TenantFixture): Promise<any[]> {
  const res = await t.request('GET', SITES);
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.body));
  return res.body;
}

/** The id of the tenant's default site, asserting that there is at most one. */
async function defaultId(t: TenantFixture): Promise<string | null> {
  const defaults = (await list(t)).filter((s) => s.is_default === true);
  assert.ok(defaults.length <= 1, `more than one default site: ${defaults.map((s) => s.slug).join(', ')}`);
  return defaults[0]?.id ?? null;
}

async function get(t: TenantFixture, idOrSlug: string): Promise<HttpResult> {
  return t.request('GET', `${SITES}/${idOrSlug}`);
}

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

// ---- the default site -------------------------------------------------------------------------

describe('default site', () => {
  test('the first site becomes the default, later ones do not', async () => {
    const t = await stack.tenant();
    const [first, second] = await createInOrder(t, 2);
    assert.equal(first.is_default, true);
    assert.equal(second.is_default, false);
    assert.equal(await defaultId(t), first.id);
  });

  test('the first site is the default even when created with is_default: false', async () => {
    const t = await stack.tenant();
    const first = await create(t, { is_default: false });
    assert.equal(first.is_default, true);
    assert.equal(await defaultId(t), first.id);
  });

  test('creating with is_default: true moves the default', async () => {
    const t = await stack.tenant();
    const [first] = await createInOrder(t, 1);
    const second = await create(t, { is_default: true });
    assert.equal(second.is_default, true);
    assert.equal((await get(t, first.id)).body.is_default, false);
    assert.equal(await defaultId(t), second.id);
  });

  test('PUT is_default: true moves the default', async () => {
    const t = await stack.tenant();
    const [first, second, third] = await createInOrder(t, 3);
    const res = await t.request('PUT', `${SITES}/${third.id}`, { body: { is_default: true } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.is_default, true);
    assert.equal(await defaultId(t), third.id);
    assert.equal((await get(t, first.id)).body.is_default, false);
    assert.equal((await get(t, second.id)).body.is_default, false);
    // Setting it again on the default is harmless.
    const again = await t.request('PUT', `${SITES}/${third.slug}`, { body: { is_default: true } });
    assert.equal(again.status, 200, again.text);
    assert.equal(await defaultId(t), third.id);
  });

  test('PUT is_default: false on the default site is a 409; on another site it changes nothing', async () => {
    const t = await stack.tenant();
    const [first, second] = await createInOrder(t, 2);
    assertError(await t.request('PUT', `${SITES}/${first.id}`, { body: { is_default: false, name: 'Renamed' } }), 409);
    const unchanged = await get(t, first.id);
    assert.deepEqual(unchanged.body, first);
    const other = await t.request('PUT', `${SITES}/${second.id}`, { body: { is_default: false } });
    assert.equal(other.status, 200, other.text);
    assert.equal(other.body.is_default, false);
    assert.equal(await defaultId(t), first.id);
  });

  test('PUT is_default: null changes nothing', async () => {
    const t = await stack.tenant();
    const [first, second] = await createInOrder(t, 2);
    assert.equal((await t.request('PUT', `${SITES}/${first.id}`, { body: { is_default: null } })).body.is_default, true);
    assert.equal((await t.request('PUT', `${SITES}/${second.id}`, { body: { is_default: null } })).body.is_default, false);
    assert.equal(await defaultId(t), first.id);
  });

  test('deleting the default makes the oldest remaining site the default', async () => {
    const t = await stack.tenant();
    const [s1, s2, s3, s4] = await createInOrder(t, 4);
    assert.equal(await defaultId(t), s1.id);

    assert.equal((await t.request('PUT', `${SITES}/${s3.id}`, { body: { is_default: true } })).status, 200);
    assert.equal(await defaultId(t), s3.id);

    // Deleting a site that is not the default leaves the default where it is.
    assert.equal((await t.request('DELETE', `${SITES}/${s1.id}`)).status, 204);
    assert.equal(await defaultId(t), s3.id);

    // Deleting the default: the oldest remaining (s2) takes over, not the newest.
    assert.equal((await t.request('DELETE', `${SITES}/${s3.id}`)).status, 204);
    assert.equal(await defaultId(t), s2.id);
    assert.equal((await get(t, s2.id)).body.is_default, true);
    assert.equal((await get(t, s4.id)).body.is_default, false);

    assert.equal((await t.request('DELETE', `${SITES}/${s2.slug}`)).status, 204);
    assert.equal(await defaultId(t), s4.id);

    // The last site goes: no default; the next site created is the first again and becomes the default.
    assert.equal((await t.request('DELETE', `${SITES}/${s4.id}`)).status, 204);
    assert.deepEqual(await list(t), []);
    const fresh = await create(t);
    assert.equal(fresh.is_default, true);
    assert.equal(await defaultId(t), fresh.id);
  });

  test('there is exactly one default through a series of changes', async () => {
    const t = await stack.tenant();
    const sites = await createInOrder(t, 3);
    const steps: Array<() => Promise<unknown>> = [
      () => create(t, { is_default: true }),
      () => t.request('PUT', `${SITES}/${sites[1].id}`, { body: { is_default: true } }),
      () => create(t, { is_default: false }),
      () => t.request('PUT', `${SITES}/${sites[2].id}`, { body: { is_default: true, name: 'now default' } }),
      () => t.request('DELETE', `${SITES}/${sites[2].id}`),
      () => t.request('PUT', `${SITES}/${sites[0].id}`, { body: { is_default: true } }),
    ];
    for (const step of steps) {
      await step();
      const all = await list(t);
      assert.equal(all.filter((s) => s.is_default).length, 1, JSON.stringify(all.map((s) => [s.slug, s.is_default])));
    }
  });
});

describe('default site under concurrent writes', () => {
  test('concurrent creates and moves leave exactly one default', async () => {
    const t = await stack.tenant();
    const existing = await createInOrder(t, 4);
    const results = await Promise.all([
      ...Array.from({ length: 8 }, () => t.request('POST', SITES, { body: siteBody({ is_default: true }) })),
      ...existing.map((s) => t.request('PUT', `${SITES}/${s.id}`, { body: { is_default: true } })),
    ]);
    for (const res of results) assert.ok(res.status === 201 || res.status === 200, res.text);
    const all = await list(t);
    assert.equal(all.length, 12);
    assert.equal(all.filter((s) => s.is_default).length, 1);
  });
});

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
