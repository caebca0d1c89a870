// Categories over real HTTP: the limits of spec §8, the response shape, reads, list order and
// filters, the tree view, partial updates with moves and cycle checks, deletion, tenant isolation.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { assert422, assertError } from '../helpers/assertions.js';

const CATEGORIES = '/api/knowledge/categories';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CATEGORY_KEYS = ['created_at', 'description', 'id', 'name', 'parent_id', 'sort_order', 'tenant_id', 'updated_at'];

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

// ---- helpers ----------------------------------------------------------------------------------

const x = (n: number, ch = 'a') => ch.repeat(n);
type Body = Record<string, unknown>;

const err = (field: string, msg: string, type: string, root = 'body') => ({ loc: [root, field], msg, type });
const UUID_ERROR = 'Input should be a valid UUID';
const NO_PARENT = err('parent_id', 'Parent category not found', 'value_error');
const CYCLE = err('parent_id', 'A category cannot be moved below itself or its descendants', 'value_error');



async function create(t: TenantFixture, body: Body): Promise<any> {
  const res = await t.request('POST', CATEGORIES, { body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Creates categories one after the other, a few ms apart, so created_at orders them unambiguously. */
async function createInOrder(t: TenantFixture, bodies: Body[]): Promise<any[]> {
  const out = [];
  for (const [i, body] of bodies.entries()) {
    if (i > 0) await delay(5);
    out.push(await create(t, body));
  }
  return out;
}

async function list(t: TenantFixture, query = ''): Promise<any[]> {
  const res = await t.request('GET', `${CATEGORIES}${query}`);
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.body));
  return res.body;
}

const names = (items: Array<{ name: string }>) => items.map((c) => c.name);
const get = (t: TenantFixture, id: string) => t.request('GET', `${CATEGORIES}/${id}`);
const put = (t: TenantFixture, id: string, body: unknown) => t.request('PUT', `${CATEGORIES}/${id}`, { body });
const del = (t: TenantFixture, id: string) => t.request('DELETE', `${CATEGORIES}/${id}`);

/** A tree reduced to names: [name, [children...]]. */
type Shape = [string, Shape[]];
const shape = (nodes: any[]): Shape[] => nodes.map((n) => [n.name, shape(n.children)]);

// ---- create: limits ---------------------------------------------------------------------------

describe('POST /categories: field limits', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });
  const post = (body: unknown) => t.request('POST', CATEGORIES, { body });

  test('name: 1 and 200 characters pass, 0 and 201 fail', async () => {
    assert.equal((await create(t, { name: 'N' })).name, 'N');
    assert.equal((await create(t, { name: x(200) })).name, x(200));
    assert.equal((await create(t, { name: x(200, '😀') })).name, x(200, '😀'));
    assert422(await post({ name: '' }), [err('name', 'String should have at least 1 character', 'string_too_short')]);
    assert422(await post({ name: x(201) }), [err('name', 'String should have at most 200 characters', 'string_too_long')]);
    assert422(await post({ name: x(201, '😀') }), [err('name', 'String should have at most 200 characters', 'string_too_long')]);
  });

  test('name is required and must be a string', async () => {
    assert422(await post({}), [err('name', 'Field required', 'missing')]);
    assert422(await post({ description: 'no name' }), [err('name', 'Field required', 'missing')]);
    assert422(await post({ name: 5 }), [err('name', 'Input should be a valid string', 'string_type')]);
    assert422(await post({ name: null }), [err('name', 'Input should be a valid string', 'string_type')]);
  });

  test('sort_order: an integer >= 0, default 0', async () => {
    assert.equal((await create(t, { name: 'zero' })).sort_order, 0);
    assert.equal((await create(t, { name: 'explicit zero', sort_order: 0 })).sort_order, 0);
    assert.equal((await create(t, { name: 'big', sort_order: 1_000_000 })).sort_order, 1_000_000);
    assert422(await post({ name: 'n', sort_order: -1 }), [
      err('sort_order', 'Input should be greater than or equal to 0', 'greater_than_equal'),
    ]);
    assert422(await post({ name: 'n', sort_order: 1.5 }), [
      err('sort_order', 'Input should be a valid integer, got a number with a fractional part', 'int_from_float'),
    ]);
    assert422(await post({ name: 'n', sort_order: 'x' }), [err('sort_order', 'Input should be a valid integer', 'int_type')]);
  });

  test('description: a string or null, default null', async () => {
    assert.equal((await create(t, { name: 'd1' })).description, null);
    assert.equal((await create(t, { name: 'd2', description: null })).description, null);
    const long = x(10_000, 'd');
    assert.equal((await create(t, { name: 'd3', description: long })).description, long);
    assert.equal((await create(t, { name: 'd4', description: '' })).description, '');
    assert422(await post({ name: 'n', description: 5 }), [err('description', 'Input should be a valid string', 'string_type')]);
  });

  test('parent_id: a UUID of an existing category of the tenant', async () => {
    const parent = await create(t, { name: 'parent' });
    assert.equal((await create(t, { name: 'child', parent_id: parent.id })).parent_id, parent.id);
    assert.equal((await create(t, { name: 'upper-case ref', parent_id: parent.id.toUpperCase() })).parent_id, parent.id);
    assert.equal((await create(t, { name: 'top', parent_id: null })).parent_id, null);
    assert422(await post({ name: 'n', parent_id: 'not-a-uuid' }), [err('parent_id', UUID_ERROR, 'uuid_parsing')]);
    assert422(await post({ name: 'n', parent_id: 42 }), [err('parent_id', 'Input should be a valid string', 'string_type')]);
    assert422(await post({ name: 'n', parent_id: randomUUID() }), [NO_PARENT]);
  });

  test('every error of a body is listed in one response', async () => {
    assert422(await post({ name: '', description: [], parent_id: 'nope', sort_order: -3 }), [
      err('name', 'String should have at least 1 character', 'string_too_short'),
      err('description', 'Input should be a valid string', 'string_type'),
      err('parent_id', UUID_ERROR, 'uuid_parsing'),
      err('sort_order', 'Input should be greater than or equal to 0', 'greater_than_equal'),
    ]);
    assert422(await post({ sort_order: 2.5 }), [
      err('name', 'Field required', 'missing'),
      err('sort_order', 'Input should be a valid integer, got a number with a fractional part', 'int_from_float'),
    ]);
  });

  test('a refused create stores nothing', async () => {
    const before = await list(t);
    assert.equal((await post({ name: 'orphan', parent_id: randomUUID() })).status, 422);
    assert.equal((await post({ name: 'bad order', sort_order: -1 })).status, 422);
    assert.deepEqual(await list(t), before);
  });
});

// ---- response shape and reads -----------------------------------------------------------------

describe('category responses and reads', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  test('the response carries exactly the spec keys; id is a UUID v4', async () => {
    const res = await t.request('POST', CATEGORIES, { body: { name: 'Shoes', description: 'All shoes', sort_order: 3, extra: 'ignored' } });
    assert.equal(res.status, 201, res.text);
    const c = res.body;
    assert.deepEqual(Object.keys(c).sort(), CATEGORY_KEYS);
    assert.match(c.id, UUID_V4);
    assert.equal(c.tenant_id, t.tenant.id);
    assert.equal(c.name, 'Shoes');
    assert.equal(c.description, 'All shoes');
    assert.equal(c.parent_id, null);
    assert.equal(c.sort_order, 3);
    for (const at of [c.created_at, c.updated_at]) assert.equal(new Date(at).toISOString(), at);
    assert.equal(c.updated_at, c.created_at);
  });

  test('GET returns the stored category', async () => {
    const c = await create(t, { name: 'Boots', description: null, sort_order: 1 });
    const res = await get(t, c.id);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, c);
    const upper = await get(t, c.id.toUpperCase());
    assert.equal(upper.status, 200, upper.text);
    assert.deepEqual(upper.body, c);
  });

  test('a category_id that is not a UUID is a 422 at path.category_id', async () => {
    const notUuid = [err('category_id', UUID_ERROR, 'uuid_parsing', 'path')];
    assert422(await get(t, 'shoes'), notUuid);
    assert422(await get(t, '123'), notUuid);
    assert422(await put(t, 'shoes', { name: 'x' }), notUuid);
    assert422(await del(t, 'shoes'), notUuid);
  });

  test('an unknown UUID is a 404 on GET, PUT and DELETE', async () => {
    const id = randomUUID();
    assertError(await get(t, id), 404);
    assertError(await put(t, id, { name: 'x' }), 404);
    assertError(await del(t, id), 404);
  });
});

// ---- list, filters, tree ----------------------------------------------------------------------

describe('GET /categories', () => {
  let t: TenantFixture;
  // Created in this order:        sort_order   parent
  //   Clothing                        2          -
  //   Books                           1          -
  //   Music                           1          -       (same sort_order as Books, created later)
  //   Garden                          0          -
  //   Shirts                          5          Clothing
  //   Trousers                        0          Clothing
  //   Linen                           0          Shirts
  //   Fiction                         0          Books
  let c: Record<string, any>;
  before(async () => {
    t = await stack.tenant();
    const [clothing, books, music, garden] = await createInOrder(t, [
      { name: 'Clothing', sort_order: 2 },
      { name: 'Books', sort_order: 1 },
      { name: 'Music', sort_order: 1 },
      { name: 'Garden', sort_order: 0 },
    ]);
    const [shirts, trousers] = await createInOrder(t, [
      { name: 'Shirts', sort_order: 5, parent_id: clothing.id },
      { name: 'Trousers', parent_id: clothing.id },
    ]);
    const [linen, fiction] = await createInOrder(t, [
      { name: 'Linen', parent_id: shirts.id },
      { name: 'Fiction', parent_id: books.id },
    ]);
    c = { clothing, books, music, garden, shirts, trousers, linen, fiction };
  });

  test('lists every category by sort_order, then created_at', async () => {
    const all = await list(t);
    assert.deepEqual(names(all), ['Garden', 'Trousers', 'Linen', 'Fiction', 'Books', 'Music', 'Clothing', 'Shirts']);
    for (const item of all) assert.deepEqual(Object.keys(item).sort(), CATEGORY_KEYS);
    assert.deepEqual(all.find((i) => i.id === c.linen.id), c.linen);
    assert.deepEqual(await list(t, '?tree=false'), all);
  });

  test('?parent_id= returns the direct children only, in order', async () => {
    assert.deepEqual(names(await list(t, `?parent_id=${c.clothing.id}`)), ['Trousers', 'Shirts']);
    assert.deepEqual(await list(t, `?parent_id=${c.shirts.id}`), [c.linen]);
    assert.deepEqual(await list(t, `?parent_id=${c.linen.id}`), []);
    assert.deepEqual(await list(t, `?parent_id=${c.garden.id}`), []);
  });

  test('?parent_id= of an unknown category is a 404; a non-UUID is a 422', async () => {
    assertError(await t.request('GET', `${CATEGORIES}?parent_id=${randomUUID()}`), 404);
    assertError(await t.request('GET', `${CATEGORIES}?tree=true&parent_id=${randomUUID()}`), 404);
    assert422(await t.request('GET', `${CATEGORIES}?parent_id=clothing`), [err('parent_id', UUID_ERROR, 'uuid_parsing', 'query')]);
  });

  test('?tree=true nests children under `children`, each level in order', async () => {
    const tree = await list(t, '?tree=true');
    assert.deepEqual(shape(tree), [
      ['Garden', []],
      ['Books', [['Fiction', []]]],
      ['Music', []],
      ['Clothing', [['Trousers', []], ['Shirts', [['Linen', []]]]]],
    ]);
    const clothing = tree.find((n) => n.id === c.clothing.id);
    const { children, ...rest } = clothing;
    assert.deepEqual(rest, c.clothing);
    assert.deepEqual(children[1].children[0], { ...c.linen, children: [] });
  });

  test('?tree=true with parent_id nests below that category', async () => {
    assert.deepEqual(shape(await list(t, `?tree=true&parent_id=${c.clothing.id}`)), [['Trousers', []], ['Shirts', [['Linen', []]]]]);
  });

  test('?tree=maybe is a 422 bool_parsing at query.tree', async () => {
    assert422(await t.request('GET', `${CATEGORIES}?tree=maybe`), [
      err('tree', 'Input should be a valid boolean, unable to interpret input', 'bool_parsing', 'query'),
    ]);
  });
});

// ---- partial update, moves, cycles ------------------------------------------------------------

describe('PUT /categories/{category_id}', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  /** A > B > C, and D at the top; created a few ms apart so that created_at orders them. */
  async function chain() {
    const a = await create(t, { name: 'A', description: 'top', sort_order: 4 });
    await delay(5);
    const b = await create(t, { name: 'B', parent_id: a.id });
    await delay(5);
    const cc = await create(t, { name: 'C', parent_id: b.id });
    await delay(5);
    const d = await create(t, { name: 'D' });
    return { a, b, c: cc, d };
  }

  test('only the provided fields change; updated_at moves, created_at stays', async () => {
    const { a } = await chain();
    await delay(5);
    const res = await put(t, a.id, { name: 'A renamed' });
    assert.equal(res.status, 200, res.text);
    const { updated_at, ...rest } = res.body;
    const { updated_at: before, ...expected } = a;
    assert.deepEqual(rest, { ...expected, name: 'A renamed' });
    assert.ok(Date.parse(updated_at) > Date.parse(before), `${updated_at} should be after ${before}`);
    assert.deepEqual((await get(t, a.id)).body, res.body);

    const res2 = await put(t, a.id, { sort_order: 9, description: 'changed' });
    assert.equal(res2.status, 200, res2.text);
    assert.deepEqual({ ...res2.body, updated_at: null }, { ...res.body, sort_order: 9, description: 'changed', updated_at: null });
  });

  test('null for name or sort_order means no change; null description clears it', async () => {
    const { a } = await chain();
    const res = await put(t, a.id, { name: null, sort_order: null });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual({ ...res.body, updated_at: null }, { ...a, updated_at: null });
    const cleared = await put(t, a.id, { description: null });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.description, null);
    assert.equal(cleared.body.name, 'A');
    assert.equal(cleared.body.sort_order, 4);
  });

  test('an empty body changes nothing but updated_at', async () => {
    const { b } = await chain();
    const res = await put(t, b.id, {});
    assert.equal(res.status, 200, res.text);
    assert.deepEqual({ ...res.body, updated_at: null }, { ...b, updated_at: null });
  });

  test('validation errors of an update, all listed; nothing is stored', async () => {
    const { a } = await chain();
    assert422(await put(t, a.id, { name: '' }), [err('name', 'String should have at least 1 character', 'string_too_short')]);
    assert422(await put(t, a.id, { name: x(201) }), [err('name', 'String should have at most 200 characters', 'string_too_long')]);
    assert.equal((await put(t, a.id, { name: x(200) })).status, 200);
    assert422(await put(t, a.id, { sort_order: -1 }), [
      err('sort_order', 'Input should be greater than or equal to 0', 'greater_than_equal'),
    ]);
    assert422(await put(t, a.id, { sort_order: 0.5 }), [
      err('sort_order', 'Input should be a valid integer, got a number with a fractional part', 'int_from_float'),
    ]);
    assert422(await put(t, a.id, { parent_id: 'nope' }), [err('parent_id', UUID_ERROR, 'uuid_parsing')]);
    assert422(await put(t, a.id, { name: '', description: 1, parent_id: 'x', sort_order: 'x' }), [
      err('name', 'String should have at least 1 character', 'string_too_short'),
      err('description', 'Input should be a valid string', 'string_type'),
      err('parent_id', UUID_ERROR, 'uuid_parsing'),
      err('sort_order', 'Input should be a valid integer', 'int_type'),
    ]);
    assert.equal((await get(t, a.id)).body.name, x(200));
  });

  test('a parent that does not exist is a 422 at body.parent_id', async () => {
    const { b } = await chain();
    assert422(await put(t, b.id, { parent_id: randomUUID() }), [NO_PARENT]);
    assert.deepEqual((await get(t, b.id)).body, b);
  });

  test('moving a category below itself or one of its descendants is a 422 (cycle)', async () => {
    const { a, b, c } = await chain();
    assert422(await put(t, a.id, { parent_id: a.id }), [CYCLE]);
    assert422(await put(t, a.id, { parent_id: b.id }), [CYCLE]);
    assert422(await put(t, a.id, { parent_id: c.id }), [CYCLE]);
    assert422(await put(t, b.id, { parent_id: c.id, name: 'not stored' }), [CYCLE]);
    assert422(await put(t, c.id, { parent_id: c.id.toUpperCase() }), [CYCLE]);
    // Nothing moved.
    for (const item of [a, b, c]) assert.deepEqual((await get(t, item.id)).body, item);
    assert.deepEqual(await list(t, `?parent_id=${a.id}`), [b]);
    assert.deepEqual(await list(t, `?parent_id=${b.id}`), [c]);
  });

  test('moving to another parent updates both parents’ children', async () => {
    const { a, b, c, d } = await chain();
    const moved = await put(t, c.id, { parent_id: d.id });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.parent_id, d.id);
    assert.deepEqual(await list(t, `?parent_id=${b.id}`), []);
    assert.deepEqual(await list(t, `?parent_id=${d.id}`), [moved.body]);
    // A whole subtree can move too, as long as it is not below itself: B (now a leaf) under D.
    const movedB = await put(t, b.id, { parent_id: d.id });
    assert.equal(movedB.status, 200, movedB.text);
    assert.deepEqual(await list(t, `?parent_id=${a.id}`), []);
    assert.deepEqual(names(await list(t, `?parent_id=${d.id}`)), ['B', 'C']);
  });

  test('parent_id: null moves the category to the top level', async () => {
    const { a, b, c } = await chain();
    const res = await put(t, b.id, { parent_id: null });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.parent_id, null);
    assert.deepEqual(await list(t, `?parent_id=${a.id}`), []);
    // Its own children move with it.
    assert.deepEqual(await list(t, `?parent_id=${b.id}`), [c]);
    const tree = await list(t, '?tree=true');
    const top = tree.find((n) => n.id === b.id);
    assert.ok(top, 'B is a top-level node of the tree');
    assert.deepEqual(shape([top]), [['B', [['C', []]]]]);
    assert.deepEqual(shape(tree.filter((n) => n.id === a.id)), [['A', []]]);
    // A is no longer above B and C, so moving A below C is fine now.
    const under = await put(t, a.id, { parent_id: c.id });
    assert.equal(under.status, 200, under.text);
    assert.deepEqual(shape((await list(t, '?tree=true')).filter((n) => n.id === b.id)), [['B', [['C', [['A', []]]]]]]);
  });
});

// ---- delete -----------------------------------------------------------------------------------

describe('DELETE /categories/{category_id}', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });

  test('a category with children is a 409; after its child goes it deletes with 204', async () => {
    const parent = await create(t, { name: 'Parent' });
    const child = await create(t, { name: 'Child', parent_id: parent.id });
    assertError(await del(t, parent.id), 409);
    assert.deepEqual((await get(t, parent.id)).body, parent);

    const gone = await del(t, child.id);
    assert.equal(gone.status, 204);
    assert.equal(gone.text, '');
    assertError(await get(t, child.id), 404);
    assert.deepEqual(await list(t, `?parent_id=${parent.id}`), []);

    const res = await del(t, parent.id);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assertError(await get(t, parent.id), 404);
    assert.ok(!(await list(t)).some((c) => c.id === parent.id || c.id === child.id));
  });

  test('deleting again, or updating a deleted category, is a 404', async () => {
    const c = await create(t, { name: 'Once' });
    assert.equal((await del(t, c.id)).status, 204);
    assertError(await del(t, c.id), 404);
    assertError(await put(t, c.id, { name: 'ghost' }), 404);
    assert422(await t.request('POST', CATEGORIES, { body: { name: 'orphan', parent_id: c.id } }), [NO_PARENT]);
  });

  test('a category whose child moved away deletes', async () => {
    const a = await create(t, { name: 'Old parent' });
    const b = await create(t, { name: 'New parent' });
    const child = await create(t, { name: 'Mover', parent_id: a.id });
    assertError(await del(t, a.id), 409);
    assert.equal((await put(t, child.id, { parent_id: b.id })).status, 200);
    assert.equal((await del(t, a.id)).status, 204);
    assertError(await del(t, b.id), 409);
  });
});

// ---- tenant isolation -------------------------------------------------------------------------

describe('tenant isolation', () => {
  let a: TenantFixture;
  let b: TenantFixture;
  let catA: any;
  let catB: any;
  before(async () => {
    a = await stack.tenant();
    b = await stack.tenant();
    catA = await create(a, { name: 'A only', description: 'private' });
    catB = await create(b, { name: 'B only' });
  });

  test("another tenant's category is a 404 on GET, PUT and DELETE", async () => {
    assertError(await get(b, catA.id), 404);
    assertError(await put(b, catA.id, { name: 'hijacked' }), 404);
    assertError(await del(b, catA.id), 404);
    assert.deepEqual((await get(a, catA.id)).body, catA);
  });

  test("another tenant's categories never appear in the list or tree", async () => {
    assert.deepEqual(await list(b), [catB]);
    assert.deepEqual(await list(a), [catA]);
    assert.deepEqual(await list(b, '?tree=true'), [{ ...catB, children: [] }]);
    assertError(await b.request('GET', `${CATEGORIES}?parent_id=${catA.id}`), 404);
  });

  test("another tenant's category cannot be used as a parent", async () => {
    assert422(await b.request('POST', CATEGORIES, { body: { name: 'sneaky', parent_id: catA.id } }), [NO_PARENT]);
    assert422(await put(b, catB.id, { parent_id: catA.id }), [NO_PARENT]);
    assert.deepEqual(await list(a, `?parent_id=${catA.id}`), []);
    assert.equal((await del(a, catA.id)).status, 204);
  });
});
