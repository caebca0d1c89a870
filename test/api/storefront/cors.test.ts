// CORS of the storefront routes (DESIGN §2): the preflight echoes the Origin; a key's
// allowed_origins decides who reads the real answer, errors included; an Origin a key does not
// list is a 403 without CORS headers on every route; same-origin requests (the console) pass for
// every key; keys without a list stay server-side keys; the OAuth and MCP routes keep `*`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../../helpers/assertions.js';
import { startStack, type Stack, type TenantFixture } from '../../helpers/stack.js';
import { assertNoCors, assertReadableFrom, catalogue, corsHeaders, K, keyWith, LOCAL_SHOP, SEARCH, SHOP, type Catalogue } from './fixtures.js';

let stack: Stack;
let t: TenantFixture;
let shop: Catalogue;
/** A storefront key: search alone, usable from SHOP and LOCAL_SHOP. */
let searchKey: string;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
  t = await stack.tenant();
  shop = await catalogue(t);
  searchKey = await keyWith(t, ['search'], [SHOP, LOCAL_SHOP]);
});
after(() => stack.close());

const search = (key: string, origin: string | undefined, body: unknown = { query: 'drill', site_id: 'shop' }) =>
  t.request('POST', SEARCH, { key, body, headers: origin ? { Origin: origin } : {} });
const related = () => `${K}/products/${shop.productIds[0]}/related`;

describe('preflight', () => {
  test('OPTIONS on the storefront routes (search, multi-search, facet values, related): 204 echoing the Origin, with the methods and headers they take', async () => {
    for (const [path, method] of [[SEARCH, 'POST'], [`${K}/search/multi`, 'POST'], [`${K}/search/facet-values`, 'POST'], [related(), 'GET']]) {
      const res = await t.request('OPTIONS', path, {
        key: undefined,
        headers: { Origin: 'https://anyone.example', 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization,content-type' },
      });
      assert.equal(res.status, 204, `${path}: ${res.status} ${res.text}`);
      assert.equal(res.headers['access-control-allow-origin'], 'https://anyone.example');
      assert.equal(res.headers['access-control-allow-methods'], `${method}, OPTIONS`);
      assert.equal(res.headers['access-control-allow-headers'], 'Authorization, Content-Type');
      assert.equal(res.headers['access-control-max-age'], '86400');
      assert.equal(res.headers.vary, 'Origin');
      assert.ok(res.headers['x-request-id']);
    }
  });

  test('without an Origin, or with one that is not scheme://host[:port], nothing is echoed', async () => {
    for (const origin of [undefined, 'null', 'https://shop.example/path', 'https://*.example']) {
      const res = await t.request('OPTIONS', SEARCH, { key: undefined, headers: origin === undefined ? {} : { Origin: origin } });
      assert.equal(res.status, 204);
      assert.equal(res.headers['access-control-allow-origin'], undefined, String(origin));
    }
  });
});

describe('a key with allowed_origins', () => {
  test('a listed Origin reads search and related products', async () => {
    const found = await search(searchKey, SHOP);
    assert.equal(found.status, 200, found.text);
    assertReadableFrom(found, SHOP);
    assert.equal(found.headers['access-control-allow-credentials'], undefined, 'no cookies: bearer keys only');
    const local = await search(searchKey, LOCAL_SHOP);
    assertReadableFrom(local, LOCAL_SHOP);
    const rel = await t.request('GET', related(), { key: searchKey, headers: { Origin: SHOP } });
    assert.equal(rel.status, 200, rel.text);
    assertReadableFrom(rel, SHOP);
  });

  test('its errors are readable from a listed Origin too: 403, 404, 422, 429', async () => {
    assertReadableFrom(await search(searchKey, SHOP, { query: 'drill', limit: 1000 }), SHOP);
    const invalid = await search(searchKey, SHOP, { limit: 'many' });
    assert.equal(invalid.status, 422);
    assertReadableFrom(invalid, SHOP);
    const unknownSite = await search(searchKey, SHOP, { query: 'x', site_id: 'nope' });
    assert.equal(unknownSite.status, 404);
    assertReadableFrom(unknownSite, SHOP);
    // A key with a list but neither scope: the 403 names them, readable by the page that sent it.
    const unscoped = await keyWith(t, ['knowledge:read'], [SHOP]);
    const forbidden = await search(unscoped, SHOP);
    assertError(forbidden, 403);
    assertReadableFrom(forbidden, SHOP);
    assert.equal(forbidden.headers['www-authenticate'], 'Bearer error="insufficient_scope", scope="catalog:read search"');
  });

  test('over the per-key rate limit: 429 with Retry-After, readable from the listed Origin', async () => {
    const limited = await stack.tenant();
    await catalogue(limited);
    const key = await keyWith(limited, ['search'], [SHOP]);
    try {
      assert.equal((await limited.request('PUT', `${K}/settings`, { body: { rate_limit_per_s: 1 } })).status, 200);
      const burst = await Promise.all(Array.from({ length: 6 }, () =>
        limited.request('POST', SEARCH, { key, body: { query: 'drill' }, headers: { Origin: SHOP } })));
      const refused = burst.filter((r) => r.status === 429);
      assert.ok(refused.length > 0, burst.map((r) => r.status).join(','));
      for (const r of refused) {
        assert.match(String(r.headers['retry-after']), /^\d+$/);
        assertReadableFrom(r, SHOP);
      }
    } finally {
      assert.equal((await limited.request('PUT', `${K}/settings`, { body: { rate_limit_per_s: 0 } })).status, 200);
    }
  });

  test('an Origin it does not list: 403 without any CORS header, on every route', async () => {
    for (const origin of ['https://evil.example', 'https://shop.example.evil.test', 'http://shop.example', 'https://shop.example:8443', 'null']) {
      const res = await search(searchKey, origin);
      assertError(res, 403);
      assert.match(res.body.detail, /allowed_origins/);
      assert.equal(res.headers['www-authenticate'], undefined);
      assertNoCors(res);
    }
    const reader = await keyWith(t, ['catalog:read', 'search'], [SHOP]);
    const list = await t.request('GET', `${K}/products?site_id=shop`, { key: reader, headers: { Origin: 'https://evil.example' } });
    assertError(list, 403);
    assertNoCors(list);
    assert.equal((await t.request('GET', `${K}/products?site_id=shop`, { key: reader, headers: { Origin: SHOP } })).status, 200);
  });

  test('the Origin is compared as browsers serialise it: case and the default port do not matter', async () => {
    const res = await search(searchKey, 'HTTPS://SHOP.EXAMPLE:443');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['access-control-allow-origin'], 'HTTPS://SHOP.EXAMPLE:443', 'the Origin is echoed as sent');
  });

  test('same-origin requests (the console on the tenant host) and requests without an Origin pass', async () => {
    const own = `http://${t.tenant.slug}.localhost:${stack.port}`;
    const reader = await keyWith(t, ['catalog:read', 'search', 'admin'], [SHOP]);
    for (const [method, path, body] of [['GET', `${K}/sites`], ['GET', `${K}/whoami`], ['POST', SEARCH, { query: 'drill' }], ['GET', `${K}/api-keys`]] as const) {
      const same = await t.request(method, path, { key: reader, body, headers: { Origin: own } });
      assert.equal(same.status, 200, `${method} ${path}: ${same.text}`);
      assert.equal(same.headers['access-control-allow-origin'], undefined);
      assert.equal((await t.request(method, path, { key: reader, body })).status, 200, 'no Origin: a server-side call');
    }
  });
});

describe('keys without allowed_origins', () => {
  test('behave as before: any Origin passes, and no CORS header lets a browser read the answer', async () => {
    const key = await keyWith(t, ['search']);
    for (const origin of [SHOP, 'https://evil.example']) {
      const res = await search(key, origin);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(corsHeaders(res), {});
      assert.equal(res.headers.vary, 'Origin');
    }
    const reader = await keyWith(t, ['catalog:read']);
    const list = await t.request('GET', `${K}/sites`, { key: reader, headers: { Origin: 'https://evil.example' } });
    assert.equal(list.status, 200);
    assertNoCors(list);
  });

  test('before a credential is known (401) the answer is readable, as the preflight is', async () => {
    for (const key of ['kcs_00000000-0000-4000-8000-000000000000_aaaaaaaaaaaaaaaaaaaaaaaa', '']) {
      const res = await t.request('POST', SEARCH, { key: key || undefined, body: { query: 'x' }, headers: { Origin: SHOP } });
      assertError(res, 401);
      assertReadableFrom(res, SHOP);
    }
  });
});

describe('the OAuth and MCP routes keep Access-Control-Allow-Origin: *', () => {
  test('discovery, /mcp and their preflights', async () => {
    const meta = await t.request('GET', '/.well-known/oauth-authorization-server', { key: undefined, headers: { Origin: SHOP } });
    assert.equal(meta.status, 200);
    assert.equal(meta.headers['access-control-allow-origin'], '*');
    const preflight = await t.request('OPTIONS', '/mcp', { key: undefined, headers: { Origin: SHOP, 'Access-Control-Request-Method': 'POST' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.match(String(preflight.headers['access-control-allow-headers']), /Mcp-Session-Id/);
    const mcp = await t.request('POST', '/mcp', { key: undefined, body: {}, headers: { Origin: SHOP } });
    assert.equal(mcp.status, 401);
    assert.equal(mcp.headers['access-control-allow-origin'], '*');
  });
});
