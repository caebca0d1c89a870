// Hostile input over real HTTP: lone surrogates, numbers beyond what the store holds,
// deep nesting, stream-id cursors, malformed Host headers and prototype keys are each a 4xx with
// the documented body, never a 500, and the service answers /readyz afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { assert422, assertError } from '../helpers/assertions.js';

const UNICODE_MSG = 'Input should be a valid string, unable to parse raw data as a unicode string';
const LONE = 'x\udfff';

let stack: Stack;
let t: TenantFixture;
let categoryId: string;
let siteId: string;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
  t = await stack.tenant();
  categoryId = (await t.request('POST', '/api/knowledge/categories', { body: { name: 'Hostile' } })).body.id;
  siteId = (await t.request('POST', '/api/knowledge/sites', { body: { slug: 'hostile', name: 'Hostile', language: 'en' } })).body.id;
});
after(async () => {
  // Whatever was sent, the service is still up.
  assert.equal((await stack.request('GET', '/readyz')).status, 200);
  await stack.close();
});

const entry = (extra: Record<string, unknown> = {}) => ({ title: 'T', content: 'C', category_id: categoryId, visibility: 'public', ...extra });
const product = (extra: Record<string, unknown> = {}) => ({ title: 'P', language: 'en', ...extra });
const postProduct = (body: unknown) => t.request('POST', `/api/knowledge/products?site_id=${siteId}`, { body });
const unicodeError = (...loc: (string | number)[]) => ({ loc, msg: UNICODE_MSG, type: 'string_unicode' });
const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('lone UTF-16 surrogates', () => {
  test('in a string field of a knowledge entry, on create and update', async () => {
    assert422(await t.request('POST', '/api/knowledge/knowledge-entries', { body: entry({ layer: LONE }) }), [unicodeError('body', 'layer')]);
    const created = await t.request('POST', '/api/knowledge/knowledge-entries', { body: entry() });
    assert.equal(created.status, 201, created.text);
    const res = await t.request('PUT', `/api/knowledge/knowledge-entries/${created.body.id}`, { body: { layer: LONE, title: '\ud800' } });
    assert422(res, [unicodeError('body', 'layer'), unicodeError('body', 'title')]);
  });

  test('in a product field and in a key of a free-form object', async () => {
    assert422(await postProduct(product({ category: LONE })), [unicodeError('body', 'category')]);
    assert422(await postProduct(product({ attributes: { [LONE]: 'v' } })), [unicodeError('body', 'attributes', LONE)]);
  });

  test('a bulk item with one is rejected with its 422 detail list, the others are accepted', async () => {
    const items = [product({ external_id: 'ok-1' }), product({ external_id: 'bad-1', category: LONE })];
    const res = await t.request('POST', `/api/knowledge/products/bulk?site_id=${siteId}&wait=true`, {
      raw: JSON.stringify(items), headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.counts, { created: 1, updated: 0, unchanged: 0, failed: 0, rejected: 1 });
    assert.deepEqual(res.body.errors, [{ index: 1, detail: [unicodeError('body', 'category')] }]);
  });

  test('in an NDJSON bulk body: escapes in any case, in values and keys, are rejected; text escaped everywhere is accepted', async () => {
    const lines = [
      '{"title":"Caf\\u00E9","language":"en","external_id":"nd-ok"}',
      '{"title":"T","language":"en","external_id":"nd-1","category":"x\\uDC00"}',
      '{"title":"T","language":"en","external_id":"nd-2","attributes":{"k\\uD83Dy":"v"}}',
      '{"title":"\\u0054\\u00e9","language":"en","external_id":"nd-3"}',
    ];
    const res = await t.request('POST', `/api/knowledge/products/bulk?site_id=${siteId}&wait=true`, {
      raw: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.counts, { created: 2, updated: 0, unchanged: 0, failed: 0, rejected: 2 });
    assert.deepEqual(res.body.errors, [
      { index: 1, detail: [unicodeError('body', 'category')] },
      { index: 2, detail: [unicodeError('body', 'attributes', 'k\ud83dy')] },
    ]);
  });

  test('a pair (an emoji) is a well-formed character and accepted', async () => {
    const res = await postProduct(product({ category: 'x😀' }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.category, 'x😀');
  });
});

describe('numbers beyond what the store holds', () => {
  test('ttl_seconds of a memory entry', async () => {
    for (const ttl of [8640000000000, 9007199254740992]) {
      const res = await t.request('POST', '/api/knowledge/knowledge-entries', { body: entry({ type: 'memory', metadata: { ttl_seconds: ttl } }) });
      assert422(res, [{ loc: ['body', 'metadata', 'ttl_seconds'], msg: 'Input should be less than or equal to 3153600000', type: 'less_than_equal' }]);
    }
  });

  test('a number JSON cannot hold (1e400) is refused, in a typed field or a free-form object', async () => {
    const finite = (...loc: (string | number)[]) => ({ loc, msg: 'Input should be a finite number', type: 'finite_number' });
    const res = await t.request('POST', `/api/knowledge/products?site_id=${siteId}`, {
      raw: '{"title":"P","language":"en","price_current":1e400,"attributes":{"w":[1,-1e999]}}', headers: { 'content-type': 'application/json' },
    });
    assert422(res, [finite('body', 'price_current'), finite('body', 'attributes', 'w', 1)]);
    const cat = await t.request('POST', '/api/knowledge/categories', { raw: '{"name":"N","sort_order":1e400}', headers: { 'content-type': 'application/json' } });
    assert422(cat, [finite('body', 'sort_order')]);
  });

  test('a decimal string beyond a double (400 digits) is refused; so is an instant outside years 0000–9999', async () => {
    assert422(await postProduct(product({ price_current: '9'.repeat(400) })), [{ loc: ['body', 'price_current'], msg: 'Input should be a finite number', type: 'finite_number' }]);
    const datetime = (loc: (string | number)[]) => ({ loc, msg: 'Input should be a valid datetime', type: 'datetime_parsing' });
    for (const at of ['0000-01-01T00:00:00+01:00', '9999-12-31T23:59:59-01:00']) {
      const res = await t.request('POST', '/api/knowledge/knowledge-entries', { body: entry({ type: 'memory', metadata: { expires_at: at } }) });
      assert422(res, [datetime(['body', 'metadata', 'expires_at'])]);
    }
    assert422(await t.request('POST', '/api/knowledge/api-keys', { body: { name: 'k', scopes: ['catalog:read'], expires_at: '9999-12-31T23:59:59-01:00' } }), [datetime(['body', 'expires_at'])]);
    const last = await t.request('POST', '/api/knowledge/knowledge-entries', { body: entry({ type: 'memory', metadata: { expires_at: '9999-12-31T23:59:59Z' } }) });
    assert.equal(last.status, 201, last.text);
  });

  test('offset, sort_order, rating_count and priority are 32-bit', async () => {
    const lte = (loc: (string | number)[]) => ({ loc, msg: 'Input should be less than or equal to 2147483647', type: 'less_than_equal' });
    assert422(await t.request('GET', `/api/knowledge/products?site_id=${siteId}&offset=99999999999999999999`), [lte(['query', 'offset'])]);
    assert422(await t.request('GET', '/api/knowledge/knowledge-entries?offset=2147483648'), [lte(['query', 'offset'])]);
    assert422(await t.request('POST', '/api/knowledge/categories', { body: { name: 'Big', sort_order: 1e20 } }), [lte(['body', 'sort_order'])]);
    assert422(await postProduct(product({ rating_count: 2 ** 53 })), [lte(['body', 'rating_count'])]);
    const res = await t.request('POST', '/api/knowledge/knowledge-entries', { body: entry({ type: 'bootstrap', metadata: { priority: 2 ** 31 } }) });
    assert422(res, [lte(['body', 'metadata', 'priority'])]);
    const top = await t.request('GET', '/api/knowledge/knowledge-entries?offset=2147483647');
    assert.equal(top.status, 200, top.text);
    assert.deepEqual(top.body, []);
  });
});

describe('deep nesting', () => {
  const tooDeep = (loc: (string | number)[]) => ({ loc, msg: 'Value error, nesting deeper than 32 levels', type: 'value_error' });

  test('300 KB of nested objects on POST /search/knowledge', async () => {
    const depth = Math.floor(300_000 / 7);
    const raw = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const res = await t.request('POST', '/api/knowledge/search/knowledge', { raw, headers: { 'content-type': 'application/json' } });
    // The search body knows no field "a": it is named too.
    assert422(res, [{ loc: ['body', 'a'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }, tooDeep(['body', ...Array<string>(32).fill('a')])]);
  });

  test('10,000 levels of arrays in config, attributes and metadata', async () => {
    const deep = nestedArrays(10_000);
    const json = { 'content-type': 'application/json' };
    const arrays = (...loc: (string | number)[]) => tooDeep([...loc, ...Array<number>(32 - loc.length + 1).fill(0)]);
    const site = await t.request('POST', '/api/knowledge/sites', { raw: `{"slug":"deep","name":"D","language":"en","config":{"x":${deep}}}`, headers: json });
    assert422(site, [arrays('body', 'config', 'x')]);
    const prod = await t.request('POST', `/api/knowledge/products?site_id=${siteId}`, { raw: `{"title":"P","language":"en","attributes":{"x":${deep}}}`, headers: json });
    assert422(prod, [arrays('body', 'attributes', 'x')]);
    const raw = JSON.stringify(entry()).replace(/}$/, `,"metadata":{"x":${deep}}}`);
    assert422(await t.request('POST', '/api/knowledge/knowledge-entries', { raw, headers: json }), [arrays('body', 'metadata', 'x')]);
  });

  test('32 levels are accepted', async () => {
    // body (1) → attributes (2) → 30 arrays (3..32)
    const res = await t.request('POST', `/api/knowledge/products?site_id=${siteId}`, {
      raw: `{"title":"P","language":"en","external_id":"deep-ok","attributes":{"x":${nestedArrays(30)}}}`, headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 201, res.text);
  });
});

describe('audit cursor', () => {
  test('before must be a stream id Redis holds, with events before it', async () => {
    const pattern = { msg: "String should match pattern '^(?!0+-0+$)\\d{1,15}-\\d{1,15}$'", type: 'string_pattern_mismatch' };
    for (const before of ['0-0', '99999999999999999999-0', '1-99999999999999999999']) {
      const res = await t.request('GET', `/api/knowledge/audit?entity_id=${categoryId}&before=${before}`);
      assert422(res, [{ loc: ['query', 'before'], ...pattern }]);
    }
    const res = await t.request('GET', '/api/knowledge/audit?before=0-1');
    assert.equal(res.status, 200, res.text);
  });
});

describe('OAuth client registration', () => {
  const registration = (method: unknown) => ({
    client_name: 'Hostile', redirect_uris: ['http://127.0.0.1:9/cb'], grant_types: ['authorization_code'], response_types: ['code'],
    token_endpoint_auth_method: method,
  });
  test('a value that is no string is named by its type, never turned into text', async () => {
    const json = { 'content-type': 'application/json' };
    for (const [method, type] of [['{"toString":[]}', 'object'], [nestedArrays(5000), 'array'], ['7', 'number']] as const) {
      const raw = JSON.stringify(registration('M')).replace('"M"', method);
      const res = await t.request('POST', '/oauth/register', { raw, headers: json });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalid_client_metadata');
      assert.match(res.body.error_description, new RegExp(`token_endpoint_auth_method of type ${type};`));
    }
  });
});

describe('Host header', () => {
  test('a port out of range or a malformed host is a 400, on every route that reads the Host', async () => {
    for (const host of [`${t.tenant.slug}.localhost:99999999999`, `${t.tenant.slug}.localhost:0`, `${t.tenant.slug}.localhost:65536`, `${t.tenant.slug}.localhost:`, 'a b.localhost']) {
      const mcp = await t.request('POST', '/mcp', { host, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      assertError(mcp, 400);
      assertError(await t.request('GET', '/.well-known/oauth-authorization-server', { host }), 400);
    }
  });

  test('a well-formed Host with port 65535 names the tenant, and metadata hands that Host out', async () => {
    const host = `${t.tenant.slug}.localhost:65535`;
    const res = await t.request('GET', '/.well-known/oauth-authorization-server', { host });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.issuer, `http://${host}`);
  });
});

describe('prototype keys', () => {
  const reserved = (key: string, ...loc: (string | number)[]) =>
    ({ loc: [...loc, key], msg: `Value error, the key '${key}' is reserved`, type: 'value_error' });
  const json = { 'content-type': 'application/json' };

  test('__proto__, constructor and prototype anywhere in a body are refused', async () => {
    const prod = await t.request('POST', `/api/knowledge/products?site_id=${siteId}`, {
      raw: '{"title":"P","language":"en","attributes":{"__proto__":{"polluted":1}},"properties":{"a":[{"constructor":1}]}}', headers: json,
    });
    assert422(prod, [reserved('__proto__', 'body', 'attributes'), reserved('constructor', 'body', 'properties', 'a', 0)]);
    const site = await t.request('POST', '/api/knowledge/sites', { raw: '{"slug":"proto","name":"P","language":"en","config":{"prototype":{}}}', headers: json });
    assert422(site, [reserved('prototype', 'body', 'config')]);
    const top = await t.request('POST', '/api/knowledge/categories', { raw: '{"name":"P","__proto__":{"sort_order":5}}', headers: json });
    assert422(top, [reserved('__proto__', 'body')]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('the same words inside values are plain data', async () => {
    const res = await postProduct(product({ attributes: { note: '__proto__' }, search_keywords: ['constructor'] }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.attributes, { note: '__proto__' });
  });
});
