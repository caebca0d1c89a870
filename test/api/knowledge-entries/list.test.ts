// GET /knowledge-entries: each filter and their combinations, the caller's ceiling, paging and X-Total-Count.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422 } from '../../helpers/assertions.js';
import { newCategory } from '../../helpers/fixtures.js';
import { stack, useStack, ENTRIES, VISIBILITIES, TYPES, FULL_SCOPES, type Body, x, err, tooLong, enumOf, uuidParsing, ge, le, create, putOk, del, list } from './fixtures.js';

useStack();

const byCreated = (a: any, b: any) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

// ---- the list: filters and paging --------------------------------------------------------------

describe('GET /knowledge-entries: filters and paging', () => {
  let t: TenantFixture;
  let c1: string;
  let c2: string;
  const p1 = randomUUID();
  const p2 = randomUUID();
  let entries: any[] = [];
  before(async () => {
    t = await stack.tenant();
    c1 = await newCategory(t);
    c2 = await newCategory(t);
    const specs: Body[] = [
      { category_id: c1, type: 'knowledge', visibility: 'public', layer: 'L1', project_ids: [p1] },
      { category_id: c1, type: 'skill', visibility: 'internal', layer: 'L2', project_ids: [p1, p2] },
      { category_id: c2, type: 'process', visibility: 'public', layer: 'L1', project_ids: null },
      { category_id: c2, type: 'knowledge', visibility: 'restricted', layer: null, project_ids: [p2] },
      { category_id: c1, type: 'memory', visibility: 'community', layer: 'L1', project_ids: [p2] },
      { category_id: c2, type: 'glossary', visibility: 'workspace', layer: 'L2', project_ids: [] },
      { category_id: c1, type: 'knowledge', visibility: 'personal', layer: 'L1', project_ids: [p1] },
      { category_id: c2, type: 'bootstrap', visibility: 'public', layer: 'l1', project_ids: [p1.toUpperCase()] },
    ];
    entries = [];
    for (const spec of specs) entries.push(await create(t, spec.category_id as string, spec));
    // UUIDs are case-insensitive: the upper-case project id is stored in canonical lower case.
    assert.deepEqual(entries[7].project_ids, [p1]);
  });

  const expectIds = (pred: (e: any) => boolean) => entries.filter(pred).sort(byCreated).map((e) => e.id);

  test('without filters: every entry in (created_at, id) order', async () => {
    const res = await list(t);
    assert.deepEqual(res.ids, expectIds(() => true));
    assert.equal(res.total, entries.length);
    assert.deepEqual(res.items, [...entries].sort(byCreated));
  });

  // Queries are functions: the ids they name exist only once before() ran.
  const cases: [() => string, (e: any) => boolean][] = [];
  const add = (query: () => string, pred: (e: any) => boolean) => cases.push([query, pred]);
  add(() => `category_id=${c1}`, (e) => e.category_id === c1);
  add(() => `category_id=${c2}`, (e) => e.category_id === c2);
  add(() => `category_id=${randomUUID()}`, () => false);
  for (const type of TYPES) add(() => `type=${type}`, (e) => e.type === type);
  add(() => `project_id=${p1}`, (e) => (e.project_ids ?? []).includes(p1));
  add(() => `project_id=${p2}`, (e) => (e.project_ids ?? []).includes(p2));
  add(() => `project_id=${p1.toUpperCase()}`, (e) => (e.project_ids ?? []).includes(p1));
  add(() => `project_id=${randomUUID()}`, () => false);
  for (const visibility of VISIBILITIES) add(() => `visibility=${visibility}`, (e) => e.visibility === visibility);
  add(() => 'layer=L1', (e) => e.layer === 'L1');
  add(() => 'layer=L2', (e) => e.layer === 'L2');
  add(() => 'layer=l1', (e) => e.layer === 'l1');
  add(() => 'layer=L3', () => false);
  add(() => `category_id=${c1}&type=knowledge`, (e) => e.category_id === c1 && e.type === 'knowledge');
  add(() => `category_id=${c1}&layer=L1&project_id=${p1}`, (e) => e.category_id === c1 && e.layer === 'L1' && (e.project_ids ?? []).includes(p1));
  add(() => 'type=knowledge&visibility=restricted', (e) => e.type === 'knowledge' && e.visibility === 'restricted');
  add(() => `category_id=${c2}&visibility=public&layer=L1`, (e) => e.category_id === c2 && e.visibility === 'public' && e.layer === 'L1');
  add(() => `category_id=${c1}&project_id=${p2}&type=memory`, (e) => e.category_id === c1 && (e.project_ids ?? []).includes(p2) && e.type === 'memory');
  add(() => `project_id=${p2}&visibility=internal&layer=L2&type=skill&category_id=${c1}`, (e) => e.project_ids?.includes(p2) && e.visibility === 'internal' && e.layer === 'L2' && e.type === 'skill' && e.category_id === c1);
  add(() => `project_id=${p1}&type=knowledge&visibility=personal`, (e) => (e.project_ids ?? []).includes(p1) && e.type === 'knowledge' && e.visibility === 'personal');
  add(() => `category_id=${c2}&type=skill`, () => false);

  test('each filter and combinations select exactly the matching entries', async () => {
    for (const [query, pred] of cases) {
      const q = query();
      const res = await list(t, `?${q}`);
      const want = expectIds(pred);
      assert.deepEqual(res.ids, want, q);
      assert.equal(res.total, want.length, q);
    }
  });

  test('filters combine with the caller\'s ceiling', async () => {
    const publicOnly = await t.keyWith(FULL_SCOPES);
    for (const [query, want] of [
      [`category_id=${c1}`, expectIds((e) => e.category_id === c1 && (e.visibility === 'public' || e.visibility === 'personal'))],
      ['visibility=internal', []],
      ['visibility=workspace', []],
      [`project_id=${p2}`, []],
      ['layer=L1', expectIds((e) => e.layer === 'L1' && (e.visibility === 'public' || e.visibility === 'personal'))],
    ] as [string, string[]][]) {
      const res = await list(t, `?${query}`, publicOnly);
      assert.deepEqual(res.ids, want, query);
      assert.equal(res.total, want.length, query);
    }
  });

  test('updates move entries between the filter indexes', async () => {
    const cat = await newCategory(t);
    const p3 = randomUUID();
    const e = await create(t, cat, { type: 'process', layer: 'LX', project_ids: [p3] });
    assert.deepEqual((await list(t, `?project_id=${p3}`)).ids, [e.id]);
    assert.deepEqual((await list(t, '?layer=LX')).ids, [e.id]);
    await putOk(t, e.id, { project_ids: [randomUUID()], layer: 'LY', category_id: c2, visibility: 'restricted' });
    assert.deepEqual((await list(t, `?project_id=${p3}`)).ids, []);
    assert.deepEqual((await list(t, '?layer=LX')).ids, []);
    assert.deepEqual((await list(t, '?layer=LY')).ids, [e.id]);
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, []);
    assert.ok((await list(t, `?category_id=${c2}&visibility=restricted&type=process`)).ids.includes(e.id));
    assert.deepEqual((await list(t, '?visibility=public&layer=LY')).ids, []);
    await putOk(t, e.id, { layer: null, project_ids: null });
    assert.deepEqual((await list(t, '?layer=LY')).ids, []);
    assert.equal((await del(t, e.id)).status, 204);
    assert.equal((await list(t)).total, entries.length);
  });

  test('limit and offset page through a stable order with X-Total-Count', async () => {
    const all = expectIds(() => true);
    const pages: string[] = [];
    for (let offset = 0; offset < all.length; offset += 3) {
      const res = await list(t, `?limit=3&offset=${offset}`);
      assert.equal(res.total, all.length);
      assert.equal(res.ids.length, Math.min(3, all.length - offset));
      pages.push(...res.ids);
    }
    assert.deepEqual(pages, all);
    assert.deepEqual((await list(t, '?limit=3&offset=0')).ids, all.slice(0, 3));
    const beyond = await list(t, `?limit=5&offset=${all.length}`);
    assert.deepEqual(beyond.ids, []);
    assert.equal(beyond.total, all.length);
    const one = await list(t, `?limit=1&offset=2&category_id=${c1}`);
    const c1Ids = expectIds((e) => e.category_id === c1);
    assert.deepEqual(one.ids, [c1Ids[2]]);
    assert.equal(one.total, c1Ids.length);
    assert.deepEqual((await list(t, '?limit=200')).ids, all);
    assert.deepEqual((await list(t, '?limit=1')).ids, all.slice(0, 1));
  });

  test('the default page is 50 entries', async () => {
    const own = await stack.tenant();
    const cat = await newCategory(own);
    const made: any[] = [];
    for (let i = 0; i < 51; i++) made.push(await create(own, cat));
    const all = made.sort(byCreated).map((e) => e.id);
    const first = await list(own);
    assert.deepEqual(first.ids, all.slice(0, 50));
    assert.equal(first.total, 51);
    const rest = await list(own, '?offset=50');
    assert.deepEqual(rest.ids, all.slice(50));
    assert.equal(rest.total, 51);
  });

  test('limit 1-200 and offset >= 0; malformed filters are 422 at query', async () => {
    assert422(await t.request('GET', `${ENTRIES}?limit=0`), [ge(['query', 'limit'], 1)]);
    assert422(await t.request('GET', `${ENTRIES}?limit=201`), [le(['query', 'limit'], 200)]);
    assert422(await t.request('GET', `${ENTRIES}?offset=-1`), [ge(['query', 'offset'], 0)]);
    assert422(await t.request('GET', `${ENTRIES}?limit=abc`), [
      err(['query', 'limit'], 'Input should be a valid integer, unable to parse string as an integer', 'int_parsing'),
    ]);
    assert422(await t.request('GET', `${ENTRIES}?type=note`), [enumOf(['query', 'type'], TYPES)]);
    assert422(await t.request('GET', `${ENTRIES}?visibility=secret`), [enumOf(['query', 'visibility'], VISIBILITIES)]);
    assert422(await t.request('GET', `${ENTRIES}?category_id=x`), [uuidParsing(['query', 'category_id'])]);
    assert422(await t.request('GET', `${ENTRIES}?project_id=x`), [uuidParsing(['query', 'project_id'])]);
    assert422(await t.request('GET', `${ENTRIES}?layer=${x(51)}`), [tooLong(['query', 'layer'], 50)]);
    assert422(await t.request('GET', `${ENTRIES}?category_id=x&type=note&limit=0`), [
      uuidParsing(['query', 'category_id']), enumOf(['query', 'type'], TYPES), ge(['query', 'limit'], 1),
    ]);
  });
});
