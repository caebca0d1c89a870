// The tenant's audit log over real HTTP (spec §5 X-Audit-Source / X-Client-Id; DESIGN §2 "X-Audit-Source
// and X-Client-Id are written to the tenant's audit log with every write", GET /api/knowledge/audit):
// every create, update and delete of a knowledge entry appends one event, newest first, with the
// user, the credential, the OAuth client (never from a header) and the audit channel; a no-op or a
// refused write appends nothing; the entity filter, paging with `before`, the admin scope, tenants.
// Every other write (sites, categories, products, bulk jobs, settings, users, API keys, OAuth
// clients) appends one event too: see the last describe blocks. Entry tests read the log filtered
// to knowledge_entry, as their fixtures (tenant, category) write events of their own.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';
import { assertError } from '../helpers/assertions.js';
import { newCategory, withKey } from '../helpers/fixtures.js';

const AUDIT = '/api/knowledge/audit';
const ENTRIES = '/api/knowledge/knowledge-entries';
const EVENT_ID = /^\d+-\d+$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const EVENT_KEYS = ['id', 'at', 'action', 'entity_type', 'entity_id', 'version', 'user_id', 'credential_id', 'client_id', 'audit_source'].sort();
const ENTRY_EVENTS = '?entity_type=knowledge_entry';

let stack: Stack;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
});
after(() => stack.close());

// ---- helpers ----------------------------------------------------------------------------------

type Body = Record<string, unknown>;
let counter = 0;
const uniq = (prefix = 'x') => `${prefix}-${++counter}`;

/** The id of an API key: `kcs_<key id>_<secret>`. */
const keyId = (key: string) => key.split('_')[1];


async function createEntry(t: TenantFixture, cat: string, over: Body = {}, key?: string, headers?: Record<string, string>): Promise<any> {
  const path = over.visibility === 'personal' ? `${ENTRIES}/personal` : ENTRIES;
  const res = await t.request('POST', path, withKey(key, { body: { title: uniq('E'), content: 'c', category_id: cat, visibility: 'public', ...over }, headers }));
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function updateEntry(t: TenantFixture, id: string, body: Body, key?: string, headers?: Record<string, string>): Promise<any> {
  const res = await t.request('PUT', `${ENTRIES}/${id}`, withKey(key, { body, headers }));
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function deleteEntry(t: TenantFixture, id: string, key?: string, headers?: Record<string, string>): Promise<void> {
  const res = await t.request('DELETE', `${ENTRIES}/${id}`, withKey(key, { headers }));
  assert.equal(res.status, 204, res.text);
}

async function audit(t: TenantFixture, query = ''): Promise<any[]> {
  const res = await t.request('GET', `${AUDIT}${query}`);
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.body), res.text);
  for (const event of res.body) assertEventShape(event);
  return res.body;
}

function assertEventShape(event: any): void {
  const { details, ...rest } = event;
  assert.deepEqual(Object.keys(rest).sort(), EVENT_KEYS);
  assert.ok(details === undefined || event.entity_type === 'bulk_job', 'only a bulk job carries details');
  assert.match(event.id, EVENT_ID);
  assert.match(event.at, ISO);
  assert.ok(['create', 'update', 'delete'].includes(event.action), event.action);
}

/** Stream ids compare as (milliseconds, sequence). */
const compareIds = (a: string, b: string) => {
  const [am, as] = a.split('-').map(BigInt);
  const [bm, bs] = b.split('-').map(BigInt);
  return am !== bm ? (am < bm ? -1 : 1) : as === bs ? 0 : as < bs ? -1 : 1;
};

function assertNewestFirst(events: any[]): void {
  for (let i = 1; i < events.length; i++) assert.equal(compareIds(events[i - 1].id, events[i].id), 1, 'events are not newest first');
}

// ---- the events of a write ---------------------------------------------------------------------

describe('GET /api/knowledge/audit: one event per write', () => {
  test('create, update and delete each append an event, newest first, with who and how', async () => {
    const t = await stack.tenant();
    const cat = await newCategory(t);
    const start = Date.now();
    const e = await createEntry(t, cat);
    await updateEntry(t, e.id, { title: 'Changed' });
    await deleteEntry(t, e.id);
    const end = Date.now();

    const events = await audit(t, ENTRY_EVENTS);
    assert.equal(events.length, 3);
    assertNewestFirst(events);
    const common = {
      entity_type: 'knowledge_entry', entity_id: e.id, user_id: t.user.id, credential_id: keyId(t.key), client_id: null, audit_source: 'api',
    };
    assert.deepEqual(events.map(({ id: _i, at: _a, ...rest }) => rest), [
      { ...common, action: 'delete', version: 2 },
      { ...common, action: 'update', version: 2 },
      { ...common, action: 'create', version: 1 },
    ]);
    for (const event of events) {
      const at = Date.parse(event.at);
      assert.ok(at >= start - 1000 && at <= end + 1000, event.at);
    }
    assert.ok(events[0].at >= events[1].at && events[1].at >= events[2].at);
    assert.equal(new Set(events.map((ev) => ev.id)).size, 3);
    // The entity filter sees the same three.
    assert.deepEqual(await audit(t, `?entity_id=${e.id}`), events);
    assert.deepEqual(await audit(t, `?entity_type=knowledge_entry&entity_id=${e.id}`), events);
  });

  test('every changing update is one event carrying the new version', async () => {
    const t = await stack.tenant();
    const cat = await newCategory(t);
    const e = await createEntry(t, cat);
    for (let i = 0; i < 4; i++) await updateEntry(t, e.id, { summary: `s${i}` });
    const events = await audit(t, `?entity_id=${e.id}`);
    assert.deepEqual(events.map((ev) => [ev.action, ev.version]), [
      ['update', 5], ['update', 4], ['update', 3], ['update', 2], ['create', 1],
    ]);
  });

  test('a personal entry\'s writes are audited too', async () => {
    const t = await stack.tenant();
    const cat = await newCategory(t);
    const p = await createEntry(t, cat, { visibility: 'personal' });
    await updateEntry(t, p.id, { title: 'mine' });
    await deleteEntry(t, p.id);
    assert.deepEqual((await audit(t, `?entity_id=${p.id}`)).map((ev) => ev.action), ['delete', 'update', 'create']);
  });

  test('audit_source is the X-Audit-Source value (default api); X-Client-Id cannot spoof client_id', async () => {
    const t = await stack.tenant();
    const cat = await newCategory(t);
    const e = await createEntry(t, cat, {}, undefined, { 'X-Audit-Source': 'mcp', 'X-Client-Id': 'spoofed-client' });
    await updateEntry(t, e.id, { title: 'via connector' }, undefined, { 'X-Audit-Source': 'connector' });
    await updateEntry(t, e.id, { title: 'spoof only' }, undefined, { 'X-Client-Id': 'another-spoof' });
    await deleteEntry(t, e.id, undefined, { 'X-Audit-Source': 'cleanup-job', 'X-Client-Id': 'x' });
    const events = await audit(t, `?entity_id=${e.id}`);
    assert.deepEqual(events.map((ev) => [ev.action, ev.audit_source, ev.client_id]), [
      ['delete', 'cleanup-job', null],
      ['update', 'api', null],
      ['update', 'connector', null],
      ['create', 'mcp', null],
    ]);
  });

  test('user_id and credential_id are those of the key that wrote', async () => {
    const t = await stack.tenant();
    const cat = await newCategory(t);
    const other = await stack.services.users.create(t.tenant.id, `other@${t.tenant.slug}.test`, 'Other');
    const otherKey = (await stack.services.apiKeys.create(t.tenant.id, { userId: other.id, name: 'writer', scopes: ['knowledge:read', 'knowledge:write'] })).key;
    const ownerKey = await t.keyWith(['knowledge:read', 'knowledge:write']);
    const e = await createEntry(t, cat, {}, otherKey);
    await updateEntry(t, e.id, { title: 'by owner' }, ownerKey);
    await deleteEntry(t, e.id, otherKey);
    const events = await audit(t, `?entity_id=${e.id}`);
    assert.deepEqual(events.map((ev) => [ev.action, ev.user_id, ev.credential_id, ev.client_id]), [
      ['delete', other.id, keyId(otherKey), null],
      ['update', t.user.id, keyId(ownerKey), null],
      ['create', other.id, keyId(otherKey), null],
    ]);
  });

  test('a no-op update writes no event; refused writes write none either', async () => {
    const t = await stack.tenant();
    const cat = await newCategory(t);
    const e = await createEntry(t, cat, { summary: 's' });
    await updateEntry(t, e.id, { title: 'v2' });
    const before = await audit(t, ENTRY_EVENTS);
    assert.equal(before.length, 2);

    // No-ops: nothing stored changes.
    for (const body of [{}, { title: 'v2' }, { title: null, content: null }, { summary: 's' }]) {
      assert.equal((await updateEntry(t, e.id, body)).version, 2);
    }
    // Refused: stale If-Match, validation, immutable type, above the ceiling, unknown entry.
    const publicOnly = await t.keyWith(['knowledge:read', 'knowledge:write']);
    const refused: [HttpResult, number][] = [
      [await t.request('PUT', `${ENTRIES}/${e.id}`, { body: { title: 'stale' }, headers: { 'If-Match': '1' } }), 412],
      [await t.request('DELETE', `${ENTRIES}/${e.id}`, { headers: { 'If-Match': '1' } }), 412],
      [await t.request('PUT', `${ENTRIES}/${e.id}`, { body: { title: '' } }), 422],
      [await t.request('PUT', `${ENTRIES}/${e.id}`, { body: { type: 'skill' } }), 422],
      [await t.request('PUT', `${ENTRIES}/${e.id}`, { body: { category_id: randomUUID() } }), 422],
      [await t.request('POST', ENTRIES, { body: { title: 't', content: 'c', category_id: randomUUID(), visibility: 'public' } }), 422],
      [await t.request('POST', ENTRIES, { body: { title: 't', content: 'c', category_id: cat, visibility: 'personal' } }), 422],
      [await t.request('PUT', `${ENTRIES}/${e.id}`, { key: publicOnly, body: { visibility: 'restricted' } }), 403],
      [await t.request('POST', ENTRIES, { key: publicOnly, body: { title: 't', content: 'c', category_id: cat, visibility: 'internal' } }), 403],
      [await t.request('DELETE', `${ENTRIES}/${randomUUID()}`), 404],
    ];
    for (const [res, status] of refused) assert.equal(res.status, status, res.text);
    assert.deepEqual(await audit(t, ENTRY_EVENTS), before);
  });
});

// ---- reading the log ---------------------------------------------------------------------------

describe('GET /api/knowledge/audit: filter, paging, access', () => {
  let t: TenantFixture;
  let cat: string;
  let a: any;
  let b: any;
  before(async () => {
    t = await stack.tenant();
    cat = await newCategory(t);
    a = await createEntry(t, cat);
    b = await createEntry(t, cat);
    await updateEntry(t, a.id, { title: 'a2' });
    await updateEntry(t, b.id, { title: 'b2' });
    await updateEntry(t, a.id, { title: 'a3' });
    const c = await createEntry(t, cat);
    await deleteEntry(t, c.id);
  });

  test('the entry events of the tenant, newest first', async () => {
    const events = await audit(t, ENTRY_EVENTS);
    assert.equal(events.length, 7);
    assertNewestFirst(events);
    assert.deepEqual(events.slice(2).map((ev) => [ev.entity_id, ev.action, ev.version]), [
      [a.id, 'update', 3], [b.id, 'update', 2], [a.id, 'update', 2], [b.id, 'create', 1], [a.id, 'create', 1],
    ]);
    assert.deepEqual(events.slice(0, 2).map((ev) => [ev.action, ev.version]), [['delete', 1], ['create', 1]]);
    assert.equal(events[0].entity_id, events[1].entity_id);
  });

  test('entity_id selects one entry\'s events', async () => {
    const all = await audit(t, ENTRY_EVENTS);
    const ofA = await audit(t, `?entity_id=${a.id}`);
    assert.deepEqual(ofA, all.filter((ev) => ev.entity_id === a.id));
    assert.deepEqual(ofA.map((ev) => [ev.action, ev.version]), [['update', 3], ['update', 2], ['create', 1]]);
    assert.deepEqual(await audit(t, `?entity_id=${b.id.toUpperCase()}`), all.filter((ev) => ev.entity_id === b.id));
    assert.deepEqual(await audit(t, `?entity_id=${randomUUID()}`), []);
  });

  test('paging with before=<event id> walks the whole log without overlap', async () => {
    const all = await audit(t, '?limit=200');
    const pages: any[] = [];
    let cursor = '';
    for (let i = 0; i < 10; i++) {
      const page = await audit(t, `?limit=2${cursor ? `&before=${cursor}` : ''}`);
      if (page.length === 0) break;
      assert.ok(page.length <= 2);
      pages.push(...page);
      cursor = page[page.length - 1].id;
    }
    assert.deepEqual(pages, all);
    assert.equal(new Set(pages.map((ev) => ev.id)).size, all.length);
    // before is exclusive: the event itself is not on the next page.
    assert.deepEqual(await audit(t, `?before=${all[0].id}`), all.slice(1));
    assert.deepEqual(await audit(t, `?before=${all[all.length - 1].id}`), []);
    assert.deepEqual(await audit(t, '?limit=3'), all.slice(0, 3));
  });

  test('paging works within one entity too', async () => {
    const ofA = await audit(t, `?entity_id=${a.id}`);
    const first = await audit(t, `?entity_id=${a.id}&limit=2`);
    assert.deepEqual(first, ofA.slice(0, 2));
    assert.deepEqual(await audit(t, `?entity_id=${a.id}&limit=2&before=${first[1].id}`), ofA.slice(2));
  });

  test('the query is validated (422 at query)', async () => {
    const check = async (query: string, detail: unknown[]) => {
      const res = await t.request('GET', `${AUDIT}${query}`);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.body, { detail });
    };
    await check('?entity_id=x', [{ loc: ['query', 'entity_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }]);
    await check('?before=abc', [{ loc: ['query', 'before'], msg: "String should match pattern '^(?!0+-0+$)\\d{1,15}-\\d{1,15}$'", type: 'string_pattern_mismatch' }]);
    await check('?limit=0', [{ loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' }]);
    await check('?limit=201', [{ loc: ['query', 'limit'], msg: 'Input should be less than or equal to 200', type: 'less_than_equal' }]);
    const types = "'site', 'category', 'product', 'bulk_job', 'settings', 'user', 'api_key', 'oauth_client' or 'knowledge_entry'";
    await check('?entity_type=tenant', [{ loc: ['query', 'entity_type'], msg: `Input should be ${types}`, type: 'enum' }]);
  });

  test('the admin scope is required: 403 insufficient_scope otherwise; 401 without a key', async () => {
    const writer = await t.keyWith(['knowledge:read', 'knowledge:write', 'visibility:restricted', 'catalog:read', 'catalog:write']);
    for (const res of [
      await t.request('GET', AUDIT, { key: writer }),
      await t.request('GET', AUDIT, { headers: { 'X-Scopes': 'knowledge:read knowledge:write' } }),
    ]) {
      assertError(res, 403);
      assert.equal(res.headers['www-authenticate'], 'Bearer error="insufficient_scope", scope="admin"');
    }
    const admin = await t.keyWith(['admin']);
    assert.equal((await t.request('GET', AUDIT, { key: admin })).status, 200);
    assert.equal((await t.request('GET', AUDIT, { headers: { 'X-Scopes': 'admin' } })).status, 200);
    const anonymous = await stack.request('GET', AUDIT, { tenant: t.tenant.slug });
    assertError(anonymous, 401);
  });
});

// ---- tenants -----------------------------------------------------------------------------------

describe('audit: tenant isolation', () => {
  test('tenant B\'s audit never shows A\'s events', async () => {
    const ta = await stack.tenant();
    const tb = await stack.tenant();
    const catA = await newCategory(ta);
    const e = await createEntry(ta, catA);
    await updateEntry(ta, e.id, { title: 'a2' });
    assert.ok((await audit(tb)).every((ev) => ev.entity_id !== e.id && ev.entity_id !== catA));
    assert.deepEqual(await audit(tb, `?entity_id=${e.id}`), []);
    const catB = await newCategory(tb);
    const f = await createEntry(tb, catB);
    const eventsB = await audit(tb, ENTRY_EVENTS);
    assert.deepEqual(eventsB.map((ev) => [ev.entity_id, ev.action, ev.user_id]), [[f.id, 'create', tb.user.id]]);
    const eventsA = await audit(ta, ENTRY_EVENTS);
    assert.deepEqual(eventsA.map((ev) => [ev.entity_id, ev.action]), [[e.id, 'update'], [e.id, 'create']]);
    assert.deepEqual(await audit(ta, `?entity_id=${f.id}`), []);
    // A cursor from A's log pages nothing of A's into B's: B's only entry event is newer than it.
    assert.deepEqual(await audit(tb, `${ENTRY_EVENTS}&before=${eventsA[0].id}`), []);
  });
});

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
