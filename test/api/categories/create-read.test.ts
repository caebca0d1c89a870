// POST and GET /categories: the field limits of spec §8, every error listed, the response shape, the
// 422 and 404 of a category id; the list's order, the parent_id filter, the tree view; tenant isolation.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422, assertError } from '../../helpers/assertions.js';
import {
  stack, useStack, CATEGORIES, UUID_V4, CATEGORY_KEYS, x, err, UUID_ERROR, NO_PARENT,
  create, createInOrder, list, names, get, put, del, shape,
} from './fixtures.js';

useStack();

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
