// Every write other than a knowledge entry's appends one audit event too: sites, categories,
// products, bulk jobs (one event per job), settings, users, API keys, OAuth clients; and the
// entity_type filter.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { HttpResult, TenantFixture } from '../../helpers/stack.js';
import { stack, useStack, keyId, audit, assertNewestFirst } from './fixtures.js';

useStack();

// ---- every other write -------------------------------------------------------------------------

const K = '/api/knowledge';

/** The events of one entity, oldest first, as [action, version] pairs. */
async function history(t: TenantFixture, id: string): Promise<[string, number | null][]> {
  return (await audit(t, `?entity_id=${id}`)).reverse().map((ev) => [ev.action, ev.version]);
}

async function ok(res: HttpResult, status: number): Promise<any> {
  assert.equal(res.status, status, res.text);
  return res.body;
}

describe('audit: every kind of write is one event', () => {
  test('sites, categories, products, settings, users, API keys: who, how, which', async () => {
    const t = await stack.tenant();
    const via = { 'X-Audit-Source': 'connector' };
    const site = await ok(await t.request('POST', `${K}/sites`, { body: { slug: 's1', name: 'S', language: 'en' }, headers: via }), 201);
    await ok(await t.request('PUT', `${K}/sites/${site.id}`, { body: { name: 'S2' }, headers: via }), 200);
    const cat = await ok(await t.request('POST', `${K}/categories`, { body: { name: 'C' }, headers: via }), 201);
    await ok(await t.request('PUT', `${K}/categories/${cat.id}`, { body: { name: 'C2' }, headers: via }), 200);
    await ok(await t.request('DELETE', `${K}/categories/${cat.id}`, { headers: via }), 204);
    const product = await ok(await t.request('POST', `${K}/products?site_id=s1`, { body: { title: 'P', language: 'en', external_id: 'p1' }, headers: via }), 201);
    await ok(await t.request('PUT', `${K}/products/${product.id}`, { body: { title: 'P2', language: 'en', external_id: 'p1' }, headers: via }), 200);
    await ok(await t.request('POST', `${K}/products?site_id=s1`, { body: { title: 'P3', language: 'en', external_id: 'p1' }, headers: via }), 200);
    await ok(await t.request('DELETE', `${K}/products?site_id=s1&external_id=p1`, { headers: via }), 204);
    const other = await ok(await t.request('POST', `${K}/products?site_id=s1`, { body: { title: 'Q', language: 'en' }, headers: via }), 201);
    await ok(await t.request('DELETE', `${K}/products/${other.id}`, { headers: via }), 204);
    await ok(await t.request('PUT', `${K}/settings`, { body: { variant_strategy: 'children_only' }, headers: via }), 200);
    const user = await ok(await t.request('POST', `${K}/users`, { body: { email: `u@${t.tenant.slug}.test`, name: 'U' }, headers: via }), 201);
    const key = await ok(await t.request('POST', `${K}/api-keys`, { body: { name: 'k', scopes: ['catalog:read'] }, headers: via }), 201);
    await ok(await t.request('DELETE', `${K}/api-keys/${key.id}`, { headers: via }), 204);
    await ok(await t.request('DELETE', `${K}/sites/${site.id}`, { headers: via }), 204);

    assert.deepEqual(await history(t, site.id), [['create', null], ['update', null], ['delete', null]]);
    assert.deepEqual(await history(t, cat.id), [['create', null], ['update', null], ['delete', null]]);
    assert.deepEqual(await history(t, product.id), [['create', 1], ['update', 2], ['update', 3], ['delete', null]]);
    assert.deepEqual(await history(t, other.id), [['create', 1], ['delete', null]]);
    assert.deepEqual(await history(t, t.tenant.id), [['update', null]]);
    assert.deepEqual(await history(t, user.id), [['create', null]]);
    assert.deepEqual(await history(t, key.id), [['create', null], ['delete', null]]);

    const mine = (await audit(t)).filter((ev) => ev.audit_source === 'connector');
    assert.equal(mine.length, 16);
    for (const ev of mine) {
      assert.deepEqual([ev.user_id, ev.credential_id, ev.client_id], [t.user.id, keyId(t.key), null]);
    }
    const typeOf = (id: string) => mine.find((ev) => ev.entity_id === id).entity_type;
    assert.deepEqual([site.id, cat.id, product.id, t.tenant.id, user.id, key.id].map(typeOf), ['site', 'category', 'product', 'settings', 'user', 'api_key']);
    // Writes of the service itself (the fixture's user and key) are the system's.
    const fixture = (await audit(t, '?entity_type=user')).find((ev) => ev.entity_id === t.user.id);
    assert.deepEqual([fixture.audit_source, fixture.user_id, fixture.credential_id], ['system', null, null]);
  });

  test('an unchanged upsert, a refused write and a site purge write no event', async () => {
    const t = await stack.tenant();
    await ok(await t.request('POST', `${K}/sites`, { body: { slug: 's1', name: 'S', language: 'en' } }), 201);
    const body = { title: 'P', language: 'en', external_id: 'p1' };
    const product = await ok(await t.request('POST', `${K}/products?site_id=s1`, { body }), 201);
    const res = await t.request('POST', `${K}/products?site_id=s1`, { body });
    assert.equal(res.headers['x-upsert-result'], 'unchanged');
    assert.equal((await t.request('POST', `${K}/sites`, { body: { slug: 's1', name: 'again', language: 'en' } })).status, 409);
    assert.equal((await t.request('DELETE', `${K}/products/${randomUUID()}`)).status, 404);
    assert.equal((await t.request('DELETE', `${K}/api-keys/${randomUUID()}`)).status, 404);
    assert.equal((await t.request('POST', `${K}/categories`, { body: { name: 'x', parent_id: randomUUID() } })).status, 422);
    assert.deepEqual(await history(t, product.id), [['create', 1]]);
    assert.deepEqual((await audit(t, '?entity_type=site')).map((ev) => ev.action), ['create']);
    assert.deepEqual(await audit(t, '?entity_type=category'), []);
  });

  test('a bulk import is one bulk_job event with its counts, never one per item', async () => {
    const t = await stack.tenant();
    const site = await ok(await t.request('POST', `${K}/sites`, { body: { slug: 's1', name: 'S', language: 'en' } }), 201);
    const items = [{ title: 'A', language: 'en', external_id: 'a' }, { title: 'B', language: 'en', external_id: 'b' }, { title: '' }];
    const raw = items.map((i) => JSON.stringify(i)).join('\n');
    const job = await ok(await t.request('POST', `${K}/products/bulk?site_id=s1&wait=true`, {
      raw, headers: { 'content-type': 'application/x-ndjson', 'X-Audit-Source': 'feed' },
    }), 200);
    assert.equal(job.status, 'completed');
    assert.deepEqual(await audit(t, '?entity_type=product'), []);
    const [event, ...more] = await audit(t, '?entity_type=bulk_job');
    assert.deepEqual(more, []);
    assert.deepEqual(
      [event.action, event.entity_id, event.user_id, event.credential_id, event.audit_source, event.version],
      ['create', job.id, t.user.id, keyId(t.key), 'feed', null],
    );
    assert.deepEqual(event.details, { site_id: site.id, total: 3, accepted: 2, rejected: 1 });
  });

  test('OAuth clients: registration and deletion; a token\'s writes carry its client id', async () => {
    const t = await stack.tenant();
    const client = await ok(await t.request('POST', '/oauth/register', {
      body: { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post', scope: 'catalog:read catalog:write' },
      headers: { 'X-Audit-Source': 'console' },
    }), 201);
    const token = await ok(await t.request('POST', '/oauth/token', {
      raw: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }), 200);
    const site = await ok(await t.request('POST', `${K}/sites`, { key: token.access_token, body: { slug: 'o1', name: 'O', language: 'en' } }), 201);
    await ok(await t.request('DELETE', `${K}/oauth/clients/${client.client_id}`), 204);

    const [created] = await audit(t, `?entity_id=${site.id}`);
    assert.deepEqual([created.user_id, created.client_id, created.audit_source], [t.user.id, client.client_id, 'api']);
    assert.ok(created.credential_id && created.credential_id !== keyId(t.key));
    const ofClient = await audit(t, `?entity_type=oauth_client&entity_id=${client.client_id}`);
    assert.deepEqual(ofClient.map((ev) => [ev.action, ev.audit_source, ev.user_id]), [['delete', 'api', t.user.id], ['create', 'console', t.user.id]]);
  });

  test('filters: entity_type alone, entity_type with entity_id, paging with before in a type', async () => {
    const t = await stack.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await ok(await t.request('POST', `${K}/categories`, { body: { name: `c${i}` } }), 201)).id);
    await ok(await t.request('POST', `${K}/sites`, { body: { slug: 's1', name: 'S', language: 'en' } }), 201);
    const cats = await audit(t, '?entity_type=category');
    assert.deepEqual(cats.map((ev) => ev.entity_id), [...ids].reverse());
    assertNewestFirst(cats);
    const all = await audit(t);
    assert.deepEqual(cats, all.filter((ev) => ev.entity_type === 'category'));
    assert.deepEqual(await audit(t, `?entity_type=category&entity_id=${ids[0]}`), [cats[4]]);
    assert.deepEqual(await audit(t, `?entity_type=site&entity_id=${ids[0]}`), []);
    const first = await audit(t, '?entity_type=category&limit=2');
    assert.deepEqual(first, cats.slice(0, 2));
    assert.deepEqual(await audit(t, `?entity_type=category&limit=2&before=${first[1].id}`), cats.slice(2, 4));
    assert.deepEqual(await audit(t, `?entity_type=category&before=${cats[3].id}`), cats.slice(4));
  });
});
