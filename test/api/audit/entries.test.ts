// The tenant's audit log over real HTTP (spec §5 X-Audit-Source / X-Client-Id; DESIGN §2 "X-Audit-Source
// and X-Client-Id are written to the tenant's audit log with every write", GET /api/knowledge/audit):
// every create, update and delete of a knowledge entry appends one event, newest first, with the
// user, the credential, the OAuth client (never from a header) and the audit channel; a no-op or a
// refused write appends nothing; the entity filter, paging with `before`, the admin scope, tenants.
// Every other write appends one event too: see other-writes.test.ts. Entry tests read the log
// filtered to knowledge_entry, as their fixtures (tenant, category) write events of their own.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { HttpResult, TenantFixture } from '../../helpers/stack.js';
import { assertError } from '../../helpers/assertions.js';
import { newCategory } from '../../helpers/fixtures.js';
import {
  stack, useStack, AUDIT, ENTRIES, ENTRY_EVENTS, keyId, createEntry, updateEntry, deleteEntry, audit, assertNewestFirst,
} from './fixtures.js';

useStack();

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
    const other = await stack.services.users.create(t.tenant.id, { email: `other@${t.tenant.slug}.test`, name: 'Other' });
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
    const types = "'site', 'category', 'product', 'bulk_job', 'settings', 'user', 'api_key', 'oauth_client', 'knowledge_entry', 'synonym_set', 'search_rule' or 'blocked_suggestion'";
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
