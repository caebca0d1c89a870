// Tenant administration over real HTTP: settings, users and API keys (DESIGN §2).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SETTINGS = '/api/knowledge/settings';
const USERS = '/api/knowledge/users';
const KEYS = '/api/knowledge/api-keys';

let stack: Stack;

before(async () => {
  stack = await startStack();
});
after(() => stack.close());

function assertForbidden(res: HttpResult, scope: string): void {
  assert.equal(res.status, 403, res.text);
  assert.equal(res.headers['www-authenticate'], `Bearer error="insufficient_scope", scope="${scope}"`);
  assert.equal(typeof res.body.detail, 'string');
}

function assertUnauthorized(res: HttpResult): void {
  assert.equal(res.status, 401, res.text);
  assert.match(String(res.headers['www-authenticate']), /^Bearer resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource"$/);
}

/** The validation error items of a 422, as `loc.join('.') → type`. */
function errorTypes(res: HttpResult): Record<string, string> {
  assert.equal(res.status, 422, res.text);
  assert.ok(Array.isArray(res.body.detail));
  return Object.fromEntries(res.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc.join('.'), d.type]));
}

/** The search analytics settings (test/search/search-analytics.test.ts), at their defaults. */
const ANALYTICS_DEFAULTS = { search_analytics: true, analytics_retention_days: 90, suggestion_min_searches: 3, search_events_rate_per_s: 10, search_events_key_rate_per_s: 100 };

describe('settings', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  test('GET answers the defaults', async () => {
    const res = await t.request('GET', SETTINGS);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { variant_strategy: 'all', oauth_open_registration: false, rate_limit_per_s: 0, facet_attributes: [], understand_queries: false, ...ANALYTICS_DEFAULTS });
  });

  test('PUT is partial: only given fields change', async () => {
    const first = await t.request('PUT', SETTINGS, { body: { variant_strategy: 'children_only' } });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, { variant_strategy: 'children_only', oauth_open_registration: false, rate_limit_per_s: 0, facet_attributes: [], understand_queries: false, ...ANALYTICS_DEFAULTS });

    const second = await t.request('PUT', SETTINGS, { body: { oauth_open_registration: true } });
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, { variant_strategy: 'children_only', oauth_open_registration: true, rate_limit_per_s: 0, facet_attributes: [], understand_queries: false, ...ANALYTICS_DEFAULTS });

    const read = await t.request('GET', SETTINGS);
    assert.deepEqual(read.body, second.body);

    const empty = await t.request('PUT', SETTINGS, { body: {} });
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body, second.body);

    const unknown = await t.request('PUT', SETTINGS, { body: { variant_strategy: 'all', unknown_key: 1 } });
    assert.equal(unknown.status, 422, 'an unknown setting is named, not dropped');
    assert.deepEqual(unknown.body.detail.map((d: { loc: unknown }) => d.loc), [['body', 'unknown_key']]);
    const back = await t.request('PUT', SETTINGS, { body: { variant_strategy: 'all', oauth_open_registration: false } });
    assert.equal(back.status, 200);
    assert.deepEqual(back.body, { variant_strategy: 'all', oauth_open_registration: false, rate_limit_per_s: 0, facet_attributes: [], understand_queries: false, ...ANALYTICS_DEFAULTS });
  });

  test('an unknown variant_strategy is a 422 enum', async () => {
    const res = await t.request('PUT', SETTINGS, { body: { variant_strategy: 'some' } });
    const types = errorTypes(res);
    assert.deepEqual(res.body.detail[0].loc, ['body', 'variant_strategy']);
    assert.equal(types['body.variant_strategy'], 'enum');
    assert.equal((await t.request('GET', SETTINGS)).body.variant_strategy, 'all');
  });

  test('a negative rate is a 422 greater_than_equal; bad types are listed together', async () => {
    const negative = await t.request('PUT', SETTINGS, { body: { rate_limit_per_s: -1 } });
    assert.deepEqual(negative.body.detail[0].loc, ['body', 'rate_limit_per_s']);
    assert.equal(errorTypes(negative)['body.rate_limit_per_s'], 'greater_than_equal');

    const several = await t.request('PUT', SETTINGS, { body: { rate_limit_per_s: 1.5, oauth_open_registration: 'yes', variant_strategy: 3 } });
    const types = errorTypes(several);
    assert.equal(Object.keys(types).length, 3);
    assert.equal(types['body.variant_strategy'], 'enum');
    assert.equal(types['body.oauth_open_registration'], 'bool_type');
    assert.equal(types['body.rate_limit_per_s'], 'int_from_float');
    assert.deepEqual((await t.request('GET', SETTINGS)).body, { variant_strategy: 'all', oauth_open_registration: false, rate_limit_per_s: 0, facet_attributes: [], understand_queries: false, ...ANALYTICS_DEFAULTS });
  });

  test('a non-admin key is a 403 naming the admin scope', async () => {
    const key = await t.keyWith(['catalog:read', 'catalog:write', 'knowledge:read', 'knowledge:write']);
    assertForbidden(await t.request('GET', SETTINGS, { key }), 'admin');
    assertForbidden(await t.request('PUT', SETTINGS, { key, body: { rate_limit_per_s: 5 } }), 'admin');
    assert.equal((await t.request('GET', SETTINGS)).body.rate_limit_per_s, 0);
  });

  test('without a key it is a 401', async () => {
    assertUnauthorized(await t.request('GET', SETTINGS, { key: '' }));
  });
});

describe('users', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  test('POST creates a user', async () => {
    const res = await t.request('POST', USERS, { body: { email: 'jane@example.com', name: 'Jane' } });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.id, UUID_RE);
    assert.equal(res.body.tenant_id, t.tenant.id);
    assert.equal(res.body.email, 'jane@example.com');
    assert.equal(res.body.name, 'Jane');
    assert.ok(!Number.isNaN(Date.parse(res.body.created_at)));
    assert.deepEqual(Object.keys(res.body).sort(), ['created_at', 'email', 'id', 'name', 'tenant_id']);
  });

  test('a duplicate e-mail address is a 409, case-insensitively', async () => {
    const first = await t.request('POST', USERS, { body: { email: 'Dup@Example.com', name: 'Dup' } });
    assert.equal(first.status, 201);
    for (const email of ['Dup@Example.com', 'dup@example.com', 'DUP@EXAMPLE.COM']) {
      const res = await t.request('POST', USERS, { body: { email, name: 'Again' } });
      assert.equal(res.status, 409, `${email}: ${res.text}`);
      assert.equal(typeof res.body.detail, 'string');
    }
  });

  test('the same e-mail address may exist in another tenant', async () => {
    const other = await stack.tenant();
    assert.equal((await other.request('POST', USERS, { body: { email: 'jane@example.com', name: 'Other Jane' } })).status, 201);
  });

  test('an invalid e-mail address or a missing name is a 422', async () => {
    for (const email of ['not-an-email', 'a@', '@b', 'a b@c.d', '']) {
      const types = errorTypes(await t.request('POST', USERS, { body: { email, name: 'X' } }));
      assert.ok(types['body.email'], `${JSON.stringify(email)} accepted`);
    }
    const types = errorTypes(await t.request('POST', USERS, { body: { email: 5 } }));
    assert.equal(types['body.email'], 'string_type');
    assert.equal(types['body.name'], 'missing');
  });

  test('GET lists users oldest first with X-Total-Count, limit and offset', async () => {
    const own = await stack.tenant();
    for (let i = 0; i < 4; i++) {
      const res = await own.request('POST', USERS, { body: { email: `u${i}@example.com`, name: `User ${i}` } });
      assert.equal(res.status, 201);
    }
    const all = await own.request('GET', USERS);
    assert.equal(all.status, 200);
    assert.equal(all.headers['x-total-count'], '5'); // the fixture's admin plus four
    assert.equal(all.body.length, 5);
    assert.deepEqual(
      all.body.map((u: { email: string }) => u.email).sort(),
      [own.user.email, 'u0@example.com', 'u1@example.com', 'u2@example.com', 'u3@example.com'].sort(),
    );
    // Oldest first: ordered by (created_at, id).
    const order = [...all.body].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    assert.deepEqual(all.body.map((u: { id: string }) => u.id), order.map((u: { id: string }) => u.id));

    const page = await own.request('GET', `${USERS}?limit=2&offset=1`);
    assert.equal(page.status, 200);
    assert.equal(page.headers['x-total-count'], '5');
    assert.deepEqual(page.body.map((u: { id: string }) => u.id), all.body.slice(1, 3).map((u: { id: string }) => u.id));

    const beyond = await own.request('GET', `${USERS}?offset=10`);
    assert.equal(beyond.status, 200);
    assert.deepEqual(beyond.body, []);
    assert.equal(beyond.headers['x-total-count'], '5');

    assert.equal((await own.request('GET', `${USERS}?limit=200`)).status, 200);
  });

  test('bad limit and offset are 422 at query', async () => {
    assert.equal(errorTypes(await t.request('GET', `${USERS}?limit=0`))['query.limit'], 'greater_than_equal');
    assert.equal(errorTypes(await t.request('GET', `${USERS}?limit=201`))['query.limit'], 'less_than_equal');
    assert.equal(errorTypes(await t.request('GET', `${USERS}?offset=-1`))['query.offset'], 'greater_than_equal');
    const both = errorTypes(await t.request('GET', `${USERS}?limit=abc&offset=x`));
    assert.equal(both['query.limit'], 'int_parsing');
    assert.equal(both['query.offset'], 'int_parsing');
  });

  test('a non-admin key is a 403', async () => {
    const key = await t.keyWith(['catalog:read', 'catalog:write']);
    assertForbidden(await t.request('GET', USERS, { key }), 'admin');
    assertForbidden(await t.request('POST', USERS, { key, body: { email: 'x@example.com', name: 'X' } }), 'admin');
  });
});

describe('api keys', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  const KEY_FIELDS = ['allowed_origins', 'created_at', 'expires_at', 'id', 'last_used_at', 'name', 'scopes', 'tenant_id', 'user_id'];

  test('POST creates a key, shown once, that works for its scopes only', async () => {
    const res = await t.request('POST', KEYS, { body: { name: 'reader', scopes: ['catalog:read'] } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), [...KEY_FIELDS, 'key'].sort());
    assert.equal(res.body.digest, undefined);
    assert.ok(res.body.key.startsWith('kcs_'));
    assert.ok(res.body.key.startsWith(`kcs_${res.body.id}_`));
    assert.match(res.body.id, UUID_RE);
    assert.equal(res.body.tenant_id, t.tenant.id);
    assert.equal(res.body.user_id, t.user.id); // defaults to the caller
    assert.equal(res.body.name, 'reader');
    assert.deepEqual(res.body.scopes, ['catalog:read']);
    assert.equal(res.body.expires_at, null);
    assert.equal(res.body.last_used_at, null);
    assert.deepEqual(res.body.allowed_origins, [], 'no origins: a server-side key');
    assert.ok(!Number.isNaN(Date.parse(res.body.created_at)));

    const key = res.body.key as string;
    assert.equal((await t.request('GET', '/api/knowledge/sites', { key })).status, 200);
    assertForbidden(await t.request('POST', '/api/knowledge/sites', { key, body: { slug: 's', name: 'S', language: 'en' } }), 'catalog:write');
    assertForbidden(await t.request('GET', KEYS, { key }), 'admin');
    assertForbidden(await t.request('POST', KEYS, { key, body: { name: 'escalate', scopes: ['admin'] } }), 'admin');
  });

  test('a key can expire; a key for another user is not minted over the API (403, see privilege.test.ts)', async () => {
    const user = await t.request('POST', USERS, { body: { email: 'owner@example.com', name: 'Owner' } });
    assert.equal(user.status, 201);
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const other = await t.request('POST', KEYS, { body: { name: 'owned', scopes: ['catalog:write'], user_id: user.body.id, expires_at: expiresAt } });
    assert.equal(other.status, 403, other.text);
    const res = await t.request('POST', KEYS, { body: { name: 'owned', scopes: ['catalog:write', 'catalog:write'], user_id: t.user.id, expires_at: expiresAt } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.user_id, t.user.id);
    assert.equal(res.body.expires_at, expiresAt);
    assert.deepEqual(res.body.scopes, ['catalog:write']);
    const site = await t.request('POST', '/api/knowledge/sites', { key: res.body.key, body: { slug: 'owned', name: 'Owned', language: 'en' } });
    assert.equal(site.status, 201, site.text);
  });

  test('a key created with a past expires_at is refused and, not being live, not listed', async () => {
    const res = await t.request('POST', KEYS, { body: { name: 'past', scopes: ['catalog:read'], expires_at: '2020-01-01T00:00:00Z' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.expires_at, '2020-01-01T00:00:00.000Z');
    assertUnauthorized(await t.request('GET', '/api/knowledge/sites', { key: res.body.key }));
    const future = await t.request('POST', KEYS, { body: { name: 'future', scopes: ['catalog:read'], expires_at: '2999-01-01T00:00:00Z' } });
    assert.equal(future.status, 201);
    const ids = (await t.request('GET', KEYS)).body.map((k: { id: string }) => k.id);
    assert.ok(!ids.includes(res.body.id), 'an expired key is listed');
    assert.ok(ids.includes(future.body.id));
  });

  test('GET lists live keys without secrets or digests', async () => {
    const created = await t.request('POST', KEYS, { body: { name: 'listed', scopes: ['knowledge:read'] } });
    assert.equal(created.status, 201);
    const res = await t.request('GET', KEYS);
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body));
    assert.ok(res.body.length >= 2);
    for (const item of res.body) {
      assert.deepEqual(Object.keys(item).sort(), KEY_FIELDS);
      assert.equal(item.tenant_id, t.tenant.id);
    }
    assert.ok(res.body.some((k: { id: string }) => k.id === created.body.id));
    assert.ok(!res.text.includes(created.body.key));
    // The secret is all after `kcs_<key id>_` (base64url: it may hold '_' itself).
    const secret = created.body.key.slice(`kcs_${created.body.id}_`.length);
    assert.ok(secret.length >= 32 && !res.text.includes(secret));
    assert.doesNotMatch(res.text, /"key"|"digest"/);
  });

  test('an unknown scope name is a 422 enum', async () => {
    const res = await t.request('POST', KEYS, { body: { name: 'bad', scopes: ['catalog:read', 'catalog:delete'] } });
    const types = errorTypes(res);
    assert.equal(types['body.scopes.1'], 'enum');
    assert.equal(Object.keys(types).length, 1);
  });

  test('other invalid bodies are 422 with every error listed', async () => {
    const empty = errorTypes(await t.request('POST', KEYS, { body: { name: '', scopes: [] } }));
    assert.equal(empty['body.name'], 'string_too_short');
    assert.equal(empty['body.scopes'], 'too_short');

    const missing = errorTypes(await t.request('POST', KEYS, { body: {} }));
    assert.equal(missing['body.name'], 'missing');
    assert.equal(missing['body.scopes'], 'missing');

    const bad = errorTypes(await t.request('POST', KEYS, { body: { name: 'x', scopes: 'admin', user_id: 'nope', expires_at: 'tomorrow' } }));
    assert.equal(bad['body.scopes'], 'list_type');
    assert.equal(bad['body.user_id'], 'uuid_parsing');
    assert.equal(bad['body.expires_at'], 'datetime_parsing');
  });

  test('a user_id that is not the caller (unknown, or of another tenant) is a 403', async () => {
    const unknown = await t.request('POST', KEYS, { body: { name: 'ghost', scopes: ['catalog:read'], user_id: '00000000-0000-4000-8000-000000000000' } });
    assert.equal(unknown.status, 403, unknown.text);
    const other = await stack.tenant();
    const foreign = await t.request('POST', KEYS, { body: { name: 'foreign', scopes: ['catalog:read'], user_id: other.user.id } });
    assert.equal(foreign.status, 403, foreign.text);
  });

  test('DELETE of an unknown key is a 404; a malformed id is a 422', async () => {
    const res = await t.request('DELETE', `${KEYS}/00000000-0000-4000-8000-000000000000`);
    assert.equal(res.status, 404);
    assert.equal(typeof res.body.detail, 'string');
    assert.equal(errorTypes(await t.request('DELETE', `${KEYS}/not-a-uuid`))['path.key_id'], 'uuid_parsing');
  });

  test('DELETE revokes: 204 without a body, then 401 for that key, gone from the list, and a second DELETE is a 404', async () => {
    const created = await t.request('POST', KEYS, { body: { name: 'short-lived', scopes: ['catalog:read'] } });
    assert.equal(created.status, 201);
    const { id, key } = created.body;
    assert.equal((await t.request('GET', '/api/knowledge/sites', { key })).status, 200);

    const res = await t.request('DELETE', `${KEYS}/${id}`);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');

    assertUnauthorized(await t.request('GET', '/api/knowledge/sites', { key }));
    assert.ok(!(await t.request('GET', KEYS)).body.some((k: { id: string }) => k.id === id));
    assert.equal((await t.request('DELETE', `${KEYS}/${id}`)).status, 404);
  });

  test('an upper-case key id in the path revokes the key too', async () => {
    const created = await t.request('POST', KEYS, { body: { name: 'upper', scopes: ['catalog:read'] } });
    assert.equal(created.status, 201);
    const res = await t.request('DELETE', `${KEYS}/${String(created.body.id).toUpperCase()}`);
    assert.equal(res.status, 204);
    assertUnauthorized(await t.request('GET', '/api/knowledge/sites', { key: created.body.key }));
  });

  test('an admin key may revoke itself, after which it is refused', async () => {
    const admin = await t.request('POST', KEYS, { body: { name: 'self', scopes: ['admin'] } });
    assert.equal(admin.status, 201);
    const res = await t.request('DELETE', `${KEYS}/${admin.body.id}`, { key: admin.body.key });
    assert.equal(res.status, 204);
    assertUnauthorized(await t.request('GET', KEYS, { key: admin.body.key }));
  });
});
