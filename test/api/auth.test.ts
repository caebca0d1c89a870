// Tenant routing, authentication, scopes, X-Scopes, revocation, rate limit and tenant isolation
// over real HTTP (DESIGN §2).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';

let stack: Stack;
let acme: TenantFixture;
let globex: TenantFixture;

before(async () => {
  stack = await startStack();
  acme = await stack.tenant();
  globex = await stack.tenant();
});
after(() => stack.close());

const SITES = '/api/knowledge/sites';
let siteCounter = 0;
const newSite = () => ({ slug: `site-${++siteCounter}`, name: `Site ${siteCounter}`, language: 'en' });

function assertUnauthorized(res: HttpResult, tenantSlug: string): void {
  assert.equal(res.status, 401, res.text);
  assert.equal(
    res.headers['www-authenticate'],
    `Bearer resource_metadata="http://${tenantSlug}.localhost:${stack.port}/.well-known/oauth-protected-resource"`,
  );
  assert.equal(typeof res.body.detail, 'string');
}

function assertForbidden(res: HttpResult, scope: string): void {
  assert.equal(res.status, 403, res.text);
  assert.equal(res.headers['www-authenticate'], `Bearer error="insufficient_scope", scope="${scope}"`);
  assert.equal(typeof res.body.detail, 'string');
}

describe('tenant routing', () => {
  test('an unknown tenant is a 404 Unknown tenant', async () => {
    const res = await stack.request('GET', SITES, { host: `nosuch.localhost:${stack.port}`, key: acme.key });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: 'Unknown tenant' });
  });

  test('an unknown tenant is a 404 before any credential check', async () => {
    const res = await stack.request('GET', SITES, { host: `nosuch.localhost:${stack.port}` });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: 'Unknown tenant' });
    assert.equal(res.headers['www-authenticate'], undefined);
  });

  for (const host of ['localhost', '127.0.0.1']) {
    test(`a Host without a tenant label (${host}) is a 404`, async () => {
      const res = await stack.request('GET', SITES, { host: `${host}:${stack.port}`, key: acme.key });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: 'Unknown tenant' });
    });
  }

  test('the tenant is the leftmost label of the Host, case-insensitively and without a port', async () => {
    const slug = acme.tenant.slug;
    for (const host of [`${slug.toUpperCase()}.LOCALHOST:${stack.port}`, `${slug}.localhost`, `${slug}.localhost:${stack.port}`]) {
      const res = await stack.request('GET', SITES, { host, key: acme.key });
      assert.equal(res.status, 200, `${host}: ${res.text}`);
    }
  });

  test('a Host of another domain is a 404', async () => {
    const res = await stack.request('GET', SITES, { host: `${acme.tenant.slug}.example.com`, key: acme.key });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: 'Unknown tenant' });
  });
});

describe('authentication', () => {
  test('the all-scopes key works', async () => {
    const res = await acme.request('GET', SITES);
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body));
  });

  test('a missing token is a 401 with resource_metadata', async () => {
    assertUnauthorized(await stack.request('GET', SITES, { tenant: acme.tenant.slug }), acme.tenant.slug);
  });

  test('a non-Bearer Authorization header is a 401', async () => {
    const res = await stack.request('GET', SITES, { tenant: acme.tenant.slug, headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
    assertUnauthorized(res, acme.tenant.slug);
  });

  for (const token of ['garbage', 'kcs_', 'kcs_not-a-uuid_abcdefghijklmnopqrstuvwxyz', `kcs_${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}_${'a'.repeat(32)}`]) {
    test(`a malformed or unknown token is a 401 (${token.slice(0, 20)}…)`, async () => {
      assertUnauthorized(await acme.request('GET', SITES, { key: token }), acme.tenant.slug);
    });
  }

  test('the wrong secret for a real key id is a 401', async () => {
    const [, id, secret] = /^kcs_([0-9a-f-]{36})_(.+)$/.exec(acme.key)!;
    const wrong = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
    assertUnauthorized(await acme.request('GET', SITES, { key: `kcs_${id}_${wrong}` }), acme.tenant.slug);
    assertUnauthorized(await acme.request('GET', SITES, { key: `kcs_${id}_${'x'.repeat(32)}` }), acme.tenant.slug);
  });

  test("another tenant's key is a 401", async () => {
    assertUnauthorized(await acme.request('GET', SITES, { key: globex.key }), acme.tenant.slug);
  });

  test('an expired key is a 401; one expiring later works', async () => {
    const expired = await stack.services.apiKeys.create(acme.tenant.id, {
      userId: acme.user.id,
      name: 'expired',
      scopes: ['catalog:read'],
      expiresAt: new Date(Date.now() - 60_000).toISOString(),
    });
    assertUnauthorized(await acme.request('GET', SITES, { key: expired.key }), acme.tenant.slug);

    const live = await stack.services.apiKeys.create(acme.tenant.id, {
      userId: acme.user.id,
      name: 'live',
      scopes: ['catalog:read'],
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    assert.equal((await acme.request('GET', SITES, { key: live.key })).status, 200);
  });

  test('401 comes before validation and content-type checks', async () => {
    const res = await stack.request('POST', SITES, { tenant: acme.tenant.slug, raw: 'not json', headers: { 'content-type': 'text/plain' } });
    assertUnauthorized(res, acme.tenant.slug);
  });
});

describe('scopes', () => {
  test('catalog:read may read sites but not create them', async () => {
    const key = await acme.keyWith(['catalog:read']);
    assert.equal((await acme.request('GET', SITES, { key })).status, 200);
    assertForbidden(await acme.request('POST', SITES, { key, body: newSite() }), 'catalog:write');
  });

  test('403 comes before body validation', async () => {
    const key = await acme.keyWith(['catalog:read']);
    assertForbidden(await acme.request('POST', SITES, { key, body: { nonsense: true } }), 'catalog:write');
  });

  test('knowledge:* keys cannot read or write sites', async () => {
    const key = await acme.keyWith(['knowledge:read', 'knowledge:write']);
    assertForbidden(await acme.request('GET', SITES, { key }), 'catalog:read');
    assertForbidden(await acme.request('POST', SITES, { key, body: newSite() }), 'catalog:write');
  });

  test('a write scope does not imply the read scope', async () => {
    const key = await acme.keyWith(['catalog:write']);
    const created = await acme.request('POST', SITES, { key, body: newSite() });
    assert.equal(created.status, 201, created.text);
    assertForbidden(await acme.request('GET', SITES, { key }), 'catalog:read');
    assertForbidden(await acme.request('GET', `${SITES}/${created.body.id}`, { key }), 'catalog:read');
  });

  test('admin scope is needed for settings; catalog scopes do not grant it', async () => {
    const key = await acme.keyWith(['catalog:read', 'catalog:write', 'knowledge:read', 'knowledge:write']);
    assertForbidden(await acme.request('GET', '/api/knowledge/settings', { key }), 'admin');
  });

  test('an admin-only key cannot read catalog data', async () => {
    const key = await acme.keyWith(['admin']);
    assert.equal((await acme.request('GET', '/api/knowledge/settings', { key })).status, 200);
    assertForbidden(await acme.request('GET', SITES, { key }), 'catalog:read');
  });
});

describe('X-Scopes', () => {
  test('narrows the all-scopes key', async () => {
    const headers = { 'x-scopes': 'catalog:read' };
    assert.equal((await acme.request('GET', SITES, { headers })).status, 200);
    assertForbidden(await acme.request('POST', SITES, { headers, body: newSite() }), 'catalog:write');
    assertForbidden(await acme.request('GET', '/api/knowledge/settings', { headers }), 'admin');
  });

  test('cannot widen a key', async () => {
    const key = await acme.keyWith(['catalog:read']);
    const headers = { 'x-scopes': 'catalog:read catalog:write admin' };
    assert.equal((await acme.request('GET', SITES, { key, headers })).status, 200);
    assertForbidden(await acme.request('POST', SITES, { key, headers, body: newSite() }), 'catalog:write');
    assertForbidden(await acme.request('GET', '/api/knowledge/settings', { key, headers }), 'admin');
  });

  test('an empty or blank header narrows nothing', async () => {
    for (const value of ['', '   ']) {
      const headers = { 'x-scopes': value };
      assert.equal((await acme.request('GET', SITES, { headers })).status, 200);
      const created = await acme.request('POST', SITES, { headers, body: newSite() });
      assert.equal(created.status, 201, created.text);
      assert.equal((await acme.request('GET', '/api/knowledge/settings', { headers })).status, 200);
    }
  });

  test('is a set intersection: extra unknown names are ignored, several names combine', async () => {
    const headers = { 'x-scopes': 'bogus catalog:read  catalog:write' };
    assert.equal((await acme.request('GET', SITES, { headers })).status, 200);
    assert.equal((await acme.request('POST', SITES, { headers, body: newSite() })).status, 201);
    assertForbidden(await acme.request('GET', '/api/knowledge/settings', { headers }), 'admin');
  });

  test('a header naming only scopes the key lacks leaves nothing', async () => {
    const key = await acme.keyWith(['catalog:read']);
    assertForbidden(await acme.request('GET', SITES, { key, headers: { 'x-scopes': 'admin' } }), 'catalog:read');
  });
});

describe('revocation', () => {
  test('a revoked key gets 401 on its next request', async () => {
    const created = await acme.request('POST', '/api/knowledge/api-keys', { body: { name: 'to revoke', scopes: ['catalog:read'] } });
    assert.equal(created.status, 201, created.text);
    const { key, id } = created.body;
    assert.equal((await acme.request('GET', SITES, { key })).status, 200);

    const revoked = await acme.request('DELETE', `/api/knowledge/api-keys/${id}`);
    assert.equal(revoked.status, 204);
    assert.equal(revoked.text, '');

    assertUnauthorized(await acme.request('GET', SITES, { key }), acme.tenant.slug);
    // Other keys of the tenant are not affected.
    assert.equal((await acme.request('GET', SITES)).status, 200);
  });
});

describe('rate limit', () => {
  test('a per-key token bucket answers 429 with Retry-After; other keys keep their own bucket', async () => {
    const t = await stack.tenant();
    const settingsKey = await t.keyWith(['admin']);
    const burstKey = await t.keyWith(['catalog:read']);
    const otherKey = await t.keyWith(['catalog:read']);
    try {
      const set = await t.request('PUT', '/api/knowledge/settings', { key: settingsKey, body: { rate_limit_per_s: 2 } });
      assert.equal(set.status, 200, set.text);
      assert.equal(set.body.rate_limit_per_s, 2);

      const burst = await Promise.all(Array.from({ length: 10 }, () => t.request('GET', SITES, { key: burstKey })));
      const limited = burst.filter((r) => r.status === 429);
      assert.ok(limited.length > 0, `statuses: ${burst.map((r) => r.status).join(',')}`);
      assert.ok(burst.some((r) => r.status === 200));
      for (const r of burst) assert.ok(r.status === 200 || r.status === 429, `unexpected ${r.status}`);
      for (const r of limited) {
        const retryAfter = String(r.headers['retry-after']);
        assert.match(retryAfter, /^\d+$/);
        assert.ok(Number(retryAfter) >= 1);
        assert.equal(typeof r.body.detail, 'string');
        assert.ok(r.headers['x-request-id']);
      }

      // The first key's empty bucket does not hold back another key of the same tenant.
      const other = await t.request('GET', SITES, { key: otherKey });
      assert.equal(other.status, 200, other.text);
    } finally {
      const reset = await t.request('PUT', '/api/knowledge/settings', { key: await t.keyWith(['admin']), body: { rate_limit_per_s: 0 } });
      assert.equal(reset.status, 200, reset.text);
      assert.equal(reset.body.rate_limit_per_s, 0);
    }
    // With the limit off, a burst passes.
    const burst = await Promise.all(Array.from({ length: 10 }, () => t.request('GET', SITES, { key: burstKey })));
    assert.deepEqual(burst.map((r) => r.status), Array(10).fill(200));
  });

  test("one tenant's limit does not apply to another tenant", async () => {
    const limitedTenant = await stack.tenant();
    const free = await stack.tenant();
    const set = await limitedTenant.request('PUT', '/api/knowledge/settings', { body: { rate_limit_per_s: 1 } });
    assert.equal(set.status, 200);
    try {
      const burst = await Promise.all(Array.from({ length: 8 }, () => free.request('GET', SITES)));
      assert.deepEqual(burst.map((r) => r.status), Array(8).fill(200));
    } finally {
      const reset = await limitedTenant.request('PUT', '/api/knowledge/settings', { key: await limitedTenant.keyWith(['admin']), body: { rate_limit_per_s: 0 } });
      assert.equal(reset.status, 200);
    }
  });
});

describe('tenant isolation', () => {
  test("tenant A's key on tenant B's host is a 401", async () => {
    assertUnauthorized(await globex.request('GET', SITES, { key: acme.key }), globex.tenant.slug);
    assertUnauthorized(await globex.request('POST', SITES, { key: acme.key, body: newSite() }), globex.tenant.slug);
    assertUnauthorized(await globex.request('GET', '/api/knowledge/settings', { key: acme.key }), globex.tenant.slug);
  });

  test("A's resources are not visible to B", async () => {
    const site = await acme.request('POST', SITES, { body: { slug: 'isolated', name: 'Only A', language: 'en' } });
    assert.equal(site.status, 201, site.text);
    const category = await acme.request('POST', '/api/knowledge/categories', { body: { name: 'A only' } });
    assert.equal(category.status, 201, category.text);
    const user = await acme.request('POST', '/api/knowledge/users', { body: { email: 'only-a@example.com', name: 'Only A' } });
    assert.equal(user.status, 201, user.text);

    assert.equal((await globex.request('GET', `${SITES}/${site.body.id}`)).status, 404);
    assert.equal((await globex.request('GET', `${SITES}/isolated`)).status, 404);
    assert.equal((await globex.request('GET', `/api/knowledge/categories/${category.body.id}`)).status, 404);
    assert.ok(!(await globex.request('GET', SITES)).body.some((s: { id: string }) => s.id === site.body.id));
    assert.ok(!(await globex.request('GET', '/api/knowledge/categories')).body.some((c: { id: string }) => c.id === category.body.id));
    assert.ok(!(await globex.request('GET', '/api/knowledge/users')).body.some((u: { id: string }) => u.id === user.body.id));
    const bKeys = await globex.request('GET', '/api/knowledge/api-keys');
    assert.ok(bKeys.body.every((k: { tenant_id: string }) => k.tenant_id === globex.tenant.id));

    // B cannot change or delete A's site, and may use the same slug for its own.
    assert.equal((await globex.request('PUT', `${SITES}/${site.body.id}`, { body: { name: 'Hijacked' } })).status, 404);
    assert.equal((await globex.request('DELETE', `${SITES}/${site.body.id}`)).status, 404);
    assert.equal((await globex.request('DELETE', `/api/knowledge/categories/${category.body.id}`)).status, 404);
    const own = await globex.request('POST', SITES, { body: { slug: 'isolated', name: 'Only B', language: 'de' } });
    assert.equal(own.status, 201, own.text);

    const stillA = await acme.request('GET', `${SITES}/isolated`);
    assert.equal(stillA.status, 200);
    assert.equal(stillA.body.id, site.body.id);
    assert.equal(stillA.body.name, 'Only A');
  });

  test("B cannot revoke A's key", async () => {
    const created = await acme.request('POST', '/api/knowledge/api-keys', { body: { name: 'A key', scopes: ['catalog:read'] } });
    assert.equal(created.status, 201);
    const res = await globex.request('DELETE', `/api/knowledge/api-keys/${created.body.id}`);
    assert.equal(res.status, 404);
    assert.equal((await acme.request('GET', SITES, { key: created.body.key })).status, 200);
  });

  test("B's settings are independent of A's", async () => {
    const changed = await acme.request('PUT', '/api/knowledge/settings', { body: { variant_strategy: 'children_only' } });
    assert.equal(changed.status, 200);
    const b = await globex.request('GET', '/api/knowledge/settings');
    assert.equal(b.body.variant_strategy, 'all');
    await acme.request('PUT', '/api/knowledge/settings', { body: { variant_strategy: 'all' } });
  });
});
