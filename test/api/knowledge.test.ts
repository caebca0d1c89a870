// Knowledge entries over real HTTP (spec §2.4, §4.4, §5, §7, §8; DESIGN §2 scopes and the
// visibility ceiling, §4 "Knowledge entries"): the create limits and enums with exact 422 bodies,
// the response shape, personal entries, the visibility matrix (ceiling × owner × route), X-Scopes
// narrowing, partial updates with versions and If-Match, per-type metadata, memory expiry, the list
// filters and paging, categories holding entries, tenant isolation, and entry embeddings.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';
import { assert422, assertError, assertInsufficientScope } from '../helpers/assertions.js';
import { newCategory, withKey } from '../helpers/fixtures.js';

const ENTRIES = '/api/knowledge/knowledge-entries';
const CATEGORIES = '/api/knowledge/categories';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const ENTRY_KEYS = [
  'id', 'tenant_id', 'title', 'content', 'category_id', 'visibility', 'summary', 'layer', 'tags', 'type', 'language',
  'metadata', 'source', 'source_reference', 'similarity_text', 'search_keywords', 'project_ids', 'version',
  'translation_group_id', 'embedding_model', 'embedding_status', 'workspace_id', 'created_by_user_id', 'created_at', 'updated_at',
].sort();
const VISIBILITIES = ['public', 'internal', 'personal', 'restricted', 'community', 'workspace'] as const;
const TYPES = ['knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap', 'skill_index'] as const;
const SOURCES = ['manual', 'import', 'conversational', 'learning_loop', 'system'] as const;
type Visibility = (typeof VISIBILITIES)[number];
const PERSONAL_REFUSED = 'Personal entries are created through POST /api/knowledge/knowledge-entries/personal';
const FULL_SCOPES = ['knowledge:read', 'knowledge:write'];

let stack: Stack;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
});
after(() => stack.close());

// ---- helpers ----------------------------------------------------------------------------------

type Body = Record<string, unknown>;
type Loc = (string | number)[];
const x = (n: number, ch = 'a') => ch.repeat(n);
let counter = 0;
const uniq = (prefix = 'x') => `${prefix}-${++counter}`;

const err = (loc: Loc, msg: string, type: string) => ({ loc, msg, type });
const missing = (field: string) => err(['body', field], 'Field required', 'missing');
const tooShort = (loc: Loc, n: number) => err(loc, `String should have at least ${n} character${n === 1 ? '' : 's'}`, 'string_too_short');
const tooLong = (loc: Loc, n: number) => err(loc, `String should have at most ${n} characters`, 'string_too_long');
const enumOf = (loc: Loc, values: readonly string[]) =>
  err(loc, `Input should be ${values.slice(0, -1).map((v) => `'${v}'`).join(', ')} or '${values[values.length - 1]}'`, 'enum');
const uuidParsing = (loc: Loc) => err(loc, 'Input should be a valid UUID', 'uuid_parsing');
const listType = (loc: Loc) => err(loc, 'Input should be a valid list', 'list_type');
const stringType = (loc: Loc) => err(loc, 'Input should be a valid string', 'string_type');
const ge = (loc: Loc, n: number) => err(loc, `Input should be greater than or equal to ${n}`, 'greater_than_equal');
const le = (loc: Loc, n: number) => err(loc, `Input should be less than or equal to ${n}`, 'less_than_equal');
const categoryNotFound = err(['body', 'category_id'], 'Category not found', 'value_error');

const entryBody = (categoryId: string, over: Body = {}): Body => ({
  title: uniq('Entry'), content: 'Some content', category_id: categoryId, visibility: 'public', ...over,
});

/** Creates an entry (POST /personal when the visibility is personal) and returns it. */
async function create(t: TenantFixture, categoryId: string, over: Body = {}, key?: string): Promise<any> {
  const personal = over.visibility === 'personal';
  const res = await t.request('POST', personal ? `${ENTRIES}/personal` : ENTRIES, withKey(key, { body: entryBody(categoryId, over) }));
  assert.equal(res.status, 201, res.text);
  return res.body;
}

function get(t: TenantFixture, id: string, key?: string, query = ''): Promise<HttpResult> {
  return t.request('GET', `${ENTRIES}/${id}${query}`, withKey(key));
}

async function getOk(t: TenantFixture, id: string, key?: string, query = ''): Promise<any> {
  const res = await get(t, id, key, query);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

function put(t: TenantFixture, id: string, body: unknown, key?: string, headers?: Record<string, string>): Promise<HttpResult> {
  return t.request('PUT', `${ENTRIES}/${id}`, withKey(key, { body, headers }));
}

async function putOk(t: TenantFixture, id: string, body: unknown, key?: string, headers?: Record<string, string>): Promise<any> {
  const res = await put(t, id, body, key, headers);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

function del(t: TenantFixture, id: string, key?: string, headers?: Record<string, string>): Promise<HttpResult> {
  return t.request('DELETE', `${ENTRIES}/${id}`, withKey(key, { headers }));
}

async function list(t: TenantFixture, query = '', key?: string, headers?: Record<string, string>): Promise<{ items: any[]; total: number; ids: string[] }> {
  const res = await t.request('GET', `${ENTRIES}${query}`, withKey(key, { headers }));
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.body), res.text);
  const total = res.headers['x-total-count'];
  assert.equal(typeof total, 'string', 'X-Total-Count is missing');
  return { items: res.body, total: Number(total), ids: res.body.map((e: any) => e.id) };
}

const byCreated = (a: any, b: any) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const sorted = (ids: string[]) => [...ids].sort();

/** A second user of the tenant with a key of these scopes. */
async function otherUser(t: TenantFixture): Promise<{ userId: string; keyWith(scopes: string[]): Promise<string> }> {
  const user = await stack.services.users.create(t.tenant.id, `${uniq('other')}@${t.tenant.slug}.test`, 'Other');
  return {
    userId: user.id,
    keyWith: async (scopes) => (await stack.services.apiKeys.create(t.tenant.id, { userId: user.id, name: 'other', scopes })).key,
  };
}

// The visibility ceiling (DESIGN §2): public < community < internal < restricted; workspace = internal.
const CEILINGS = ['none', 'community', 'internal', 'restricted'] as const;
type Ceiling = (typeof CEILINGS)[number];
const LEVEL: Record<Exclude<Visibility, 'personal'>, number> = { public: 0, community: 1, internal: 2, workspace: 2, restricted: 3 };
const CEILING_LEVEL: Record<Ceiling, number> = { none: 0, community: 1, internal: 2, restricted: 3 };
const scopesFor = (ceiling: Ceiling) => [...FULL_SCOPES, ...(ceiling === 'none' ? [] : [`visibility:${ceiling}`])];
const readable = (visibility: Visibility, ceiling: Ceiling, owner: boolean) =>
  visibility === 'personal' ? owner : LEVEL[visibility] <= CEILING_LEVEL[ceiling];

/** Keys of the tenant's own (owner) user and of a second user, one per ceiling. */
async function callerKeys(t: TenantFixture): Promise<{ owner: Record<Ceiling, string>; other: Record<Ceiling, string>; otherUserId: string }> {
  const other = await otherUser(t);
  const owner = {} as Record<Ceiling, string>;
  const others = {} as Record<Ceiling, string>;
  for (const ceiling of CEILINGS) {
    owner[ceiling] = await t.keyWith(scopesFor(ceiling));
    others[ceiling] = await other.keyWith(scopesFor(ceiling));
  }
  return { owner, other: others, otherUserId: other.userId };
}

// ---- create: limits and enums (spec §2.4, §8) -------------------------------------------------

describe('POST /knowledge-entries: field limits and enums', () => {
  let t: TenantFixture;
  let cat: string;
  before(async () => {
    t = await stack.tenant();
    cat = await newCategory(t);
  });

  const post = (body: unknown) => t.request('POST', ENTRIES, { body });
  const passes = async (over: Body) => {
    const res = await post(entryBody(cat, over));
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const fails = async (over: Body, detail: unknown[]) => assert422(await post(entryBody(cat, over)), detail);

  test('title: 1 and 500 characters pass; empty, 501 and missing fail', async () => {
    assert.equal((await passes({ title: 'T' })).title, 'T');
    assert.equal((await passes({ title: x(500) })).title, x(500));
    assert.equal((await passes({ title: x(500, 'ä') })).title, x(500, 'ä'));
    await fails({ title: '' }, [tooShort(['body', 'title'], 1)]);
    await fails({ title: x(501) }, [tooLong(['body', 'title'], 500)]);
    await fails({ title: 5 }, [stringType(['body', 'title'])]);
    const { title: _t, ...noTitle } = entryBody(cat);
    assert422(await post(noTitle), [missing('title')]);
  });

  test('content: min 1 character, required', async () => {
    assert.equal((await passes({ content: 'c' })).content, 'c');
    assert.equal((await passes({ content: x(20_000) })).content, x(20_000));
    await fails({ content: '' }, [tooShort(['body', 'content'], 1)]);
    const { content: _c, ...noContent } = entryBody(cat);
    assert422(await post(noContent), [missing('content')]);
  });

  test('an empty body lists every required field', async () => {
    assert422(await post({}), [missing('title'), missing('content'), missing('category_id'), missing('visibility')]);
  });

  test('all errors of a request are listed at once, in the payload\'s field order', async () => {
    await fails(
      { title: '', content: '', category_id: 'nope', visibility: 'secret', type: 'note', language: 'x', layer: x(51), source: 'web' },
      [
        tooShort(['body', 'title'], 1),
        tooShort(['body', 'content'], 1),
        uuidParsing(['body', 'category_id']),
        enumOf(['body', 'visibility'], VISIBILITIES),
        tooLong(['body', 'layer'], 50),
        enumOf(['body', 'type'], TYPES),
        tooShort(['body', 'language'], 2),
        enumOf(['body', 'source'], SOURCES),
      ],
    );
  });

  test('category_id: a UUID, and the category must exist', async () => {
    await fails({ category_id: 'not-a-uuid' }, [uuidParsing(['body', 'category_id'])]);
    await fails({ category_id: 42 }, [stringType(['body', 'category_id'])]);
    await fails({ category_id: randomUUID() }, [categoryNotFound]);
    const { category_id: _c, ...noCategory } = entryBody(cat);
    assert422(await post(noCategory), [missing('category_id')]);
    // A category of another tenant does not exist here either.
    const other = await stack.tenant();
    await fails({ category_id: await newCategory(other) }, [categoryNotFound]);
  });

  test('visibility: every non-personal value passes on the main path; others are an enum error', async () => {
    for (const visibility of VISIBILITIES.filter((v) => v !== 'personal')) {
      assert.equal((await passes({ visibility })).visibility, visibility);
    }
    await fails({ visibility: 'secret' }, [enumOf(['body', 'visibility'], VISIBILITIES)]);
    await fails({ visibility: 'PUBLIC' }, [enumOf(['body', 'visibility'], VISIBILITIES)]);
    await fails({ visibility: null }, [enumOf(['body', 'visibility'], VISIBILITIES)]);
    const { visibility: _v, ...noVisibility } = entryBody(cat);
    assert422(await post(noVisibility), [missing('visibility')]);
  });

  test('type: every value passes, default knowledge, anything else is an enum error', async () => {
    for (const type of TYPES) assert.equal((await passes({ type })).type, type);
    assert.equal((await passes({})).type, 'knowledge');
    await fails({ type: 'note' }, [enumOf(['body', 'type'], TYPES)]);
    await fails({ type: 1 }, [enumOf(['body', 'type'], TYPES)]);
  });

  test('language: 2-5 characters, default de', async () => {
    assert.equal((await passes({})).language, 'de');
    assert.equal((await passes({ language: 'en' })).language, 'en');
    assert.equal((await passes({ language: 'en-US' })).language, 'en-US');
    await fails({ language: 'e' }, [tooShort(['body', 'language'], 2)]);
    await fails({ language: '' }, [tooShort(['body', 'language'], 2)]);
    await fails({ language: 'en-USA' }, [tooLong(['body', 'language'], 5)]);
    await fails({ language: null }, [stringType(['body', 'language'])]);
  });

  test('source: every value passes, default manual, anything else is an enum error', async () => {
    for (const source of SOURCES) assert.equal((await passes({ source })).source, source);
    assert.equal((await passes({})).source, 'manual');
    await fails({ source: 'web' }, [enumOf(['body', 'source'], SOURCES)]);
  });

  test('layer: up to 50 characters or null', async () => {
    assert.equal((await passes({ layer: x(50) })).layer, x(50));
    assert.equal((await passes({ layer: null })).layer, null);
    assert.equal((await passes({})).layer, null);
    await fails({ layer: x(51) }, [tooLong(['body', 'layer'], 50)]);
    await fails({ layer: 3 }, [stringType(['body', 'layer'])]);
  });

  test('tags and search_keywords: arrays of strings', async () => {
    for (const field of ['tags', 'search_keywords']) {
      assert.deepEqual((await passes({ [field]: ['a', 'b c'] }))[field], ['a', 'b c']);
      assert.deepEqual((await passes({ [field]: [] }))[field], []);
      assert.deepEqual((await passes({}))[field], []);
      await fails({ [field]: 'a' }, [listType(['body', field])]);
      await fails({ [field]: ['a', 1, true] }, [stringType(['body', field, 1]), stringType(['body', field, 2])]);
      await fails({ [field]: null }, [listType(['body', field])]);
    }
  });

  test('project_ids: an array of UUIDs, or null', async () => {
    const p = randomUUID();
    assert.deepEqual((await passes({ project_ids: [p] })).project_ids, [p]);
    assert.deepEqual((await passes({ project_ids: [] })).project_ids, []);
    assert.equal((await passes({ project_ids: null })).project_ids, null);
    assert.equal((await passes({})).project_ids, null);
    await fails({ project_ids: ['x'] }, [uuidParsing(['body', 'project_ids', 0])]);
    await fails({ project_ids: [p, 'nope', 7] }, [uuidParsing(['body', 'project_ids', 1]), stringType(['body', 'project_ids', 2])]);
    await fails({ project_ids: p }, [listType(['body', 'project_ids'])]);
  });

  test('summary, source_reference, similarity_text: string or null', async () => {
    for (const field of ['summary', 'source_reference', 'similarity_text']) {
      assert.equal((await passes({ [field]: 'text' }))[field], 'text');
      assert.equal((await passes({ [field]: null }))[field], null);
      assert.equal((await passes({}))[field], null);
      await fails({ [field]: 1 }, [stringType(['body', field])]);
    }
  });

  test('metadata: an object', async () => {
    await fails({ metadata: 'x' }, [err(['body', 'metadata'], 'Input should be a valid dictionary', 'dict_type')]);
    await fails({ metadata: [] }, [err(['body', 'metadata'], 'Input should be a valid dictionary', 'dict_type')]);
  });

  test('unknown body keys are ignored', async () => {
    const e = await passes({ color: 'red', version: 99, id: randomUUID(), created_by_user_id: randomUUID() });
    assert.equal(e.version, 1);
    assert.equal(e.created_by_user_id, t.user.id);
    assert.equal('color' in e, false);
  });

  test('a body that is not an object or not JSON is a 422', async () => {
    assert422(await post([1]), [err(['body'], 'Input should be a valid dictionary or object to extract fields from', 'model_attributes_type')]);
    const res = await t.request('POST', ENTRIES, { raw: '{"title":', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.detail[0].type, 'json_invalid');
  });
});

// ---- the response ------------------------------------------------------------------------------

describe('knowledge entry: the response', () => {
  let t: TenantFixture;
  let cat: string;
  before(async () => {
    t = await stack.tenant();
    cat = await newCategory(t);
  });

  test('every field of the create payload as stored, plus the server fields', async () => {
    const project = randomUUID();
    const input = {
      title: 'Full entry', content: 'The body', category_id: cat, visibility: 'internal', summary: 'Short', layer: 'L1',
      tags: ['a', 'b'], type: 'glossary', language: 'en-US', metadata: { term: 'API', synonyms: ['interface'], abbreviation: 'API' },
      source: 'import', source_reference: 'doc-7', similarity_text: 'api interface', search_keywords: ['apis'], project_ids: [project],
    };
    const res = await t.request('POST', ENTRIES, { body: input });
    assert.equal(res.status, 201, res.text);
    const e = res.body;
    assert.deepEqual(Object.keys(e).sort(), ENTRY_KEYS);
    for (const [field, value] of Object.entries(input)) assert.deepEqual(e[field], value, field);
    assert.match(e.id, UUID_V4);
    assert.equal(e.tenant_id, t.tenant.id);
    assert.equal(e.version, 1);
    assert.match(e.translation_group_id, UUID_V4);
    assert.notEqual(e.translation_group_id, e.id);
    assert.equal(e.created_by_user_id, t.user.id);
    assert.equal(e.workspace_id, null);
    assert.equal(e.embedding_model, null);
    assert.equal(e.embedding_status, 'skipped');
    assert.match(e.created_at, ISO);
    assert.equal(e.updated_at, e.created_at);
    assert.deepEqual(await getOk(t, e.id), e);
  });

  test('the defaults of a minimal create', async () => {
    const e = await create(t, cat, { title: 'Minimal', content: 'c' });
    assert.deepEqual(Object.keys(e).sort(), ENTRY_KEYS);
    const { id, tenant_id, translation_group_id, created_at, updated_at, ...rest } = e;
    assert.deepEqual(rest, {
      title: 'Minimal', content: 'c', category_id: cat, visibility: 'public', summary: null, layer: null, tags: [],
      type: 'knowledge', language: 'de', metadata: { references: [] }, source: 'manual', source_reference: null,
      similarity_text: null, search_keywords: [], project_ids: null, version: 1, embedding_model: null,
      embedding_status: 'skipped', workspace_id: null, created_by_user_id: t.user.id,
    });
    for (const value of [id, translation_group_id]) assert.match(value, UUID_V4);
    assert.equal(tenant_id, t.tenant.id);
    assert.equal(updated_at, created_at);
  });

  test('each entry gets its own id and translation group', async () => {
    const a = await create(t, cat);
    const b = await create(t, cat);
    assert.notEqual(a.id, b.id);
    assert.notEqual(a.translation_group_id, b.translation_group_id);
  });

  test('created_by_user_id is the caller\'s user, also for a second user', async () => {
    const other = await otherUser(t);
    const e = await create(t, cat, {}, await other.keyWith(FULL_SCOPES));
    assert.equal(e.created_by_user_id, other.userId);
    assert.equal((await getOk(t, e.id)).created_by_user_id, other.userId);
  });

  test('GET of an unknown id is a 404; a malformed id a 422 at path', async () => {
    assertError(await get(t, randomUUID()), 404);
    assert422(await get(t, 'not-a-uuid'), [uuidParsing(['path', 'entry_id'])]);
    assert422(await put(t, 'not-a-uuid', {}), [uuidParsing(['path', 'entry_id'])]);
    assert422(await del(t, 'not-a-uuid'), [uuidParsing(['path', 'entry_id'])]);
    assertError(await put(t, randomUUID(), { title: 'x' }), 404);
    assertError(await del(t, randomUUID()), 404);
  });
});

// ---- personal entries --------------------------------------------------------------------------

describe('personal entries', () => {
  let t: TenantFixture;
  let cat: string;
  before(async () => {
    t = await stack.tenant();
    cat = await newCategory(t);
  });

  test('visibility personal on the main create path is a 422 at body.visibility', async () => {
    assert422(await t.request('POST', ENTRIES, { body: entryBody(cat, { visibility: 'personal' }) }), [
      err(['body', 'visibility'], PERSONAL_REFUSED, 'value_error'),
    ]);
    assert.equal((await list(t, `?category_id=${cat}`)).total, 0);
  });

  test('POST /personal forces visibility personal and the caller as owner', async () => {
    for (const visibility of ['public', 'restricted', 'personal', undefined]) {
      const body = entryBody(cat, { visibility });
      if (visibility === undefined) delete body.visibility;
      const res = await t.request('POST', `${ENTRIES}/personal`, { body });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ENTRY_KEYS);
      assert.equal(res.body.visibility, 'personal', String(visibility));
      assert.equal(res.body.created_by_user_id, t.user.id);
      assert.equal(res.body.version, 1);
      assert.equal((await getOk(t, res.body.id)).visibility, 'personal');
    }
  });

  test('POST /personal validates the body like the main path', async () => {
    assert422(await t.request('POST', `${ENTRIES}/personal`, { body: entryBody(cat, { title: '', visibility: 'secret' }) }), [
      tooShort(['body', 'title'], 1),
      enumOf(['body', 'visibility'], VISIBILITIES),
    ]);
    assert422(await t.request('POST', `${ENTRIES}/personal`, { body: entryBody(randomUUID()) }), [categoryNotFound]);
  });

  test('POST /personal needs no visibility scope, and the owner reads it back with any ceiling', async () => {
    const key = await t.keyWith(FULL_SCOPES);
    const res = await t.request('POST', `${ENTRIES}/personal`, { key, body: entryBody(cat) });
    assert.equal(res.status, 201, res.text);
    assert.equal((await getOk(t, res.body.id, key)).id, res.body.id);
    assert.ok((await list(t, '', key)).ids.includes(res.body.id));
  });

  test('a PUT on the main path setting visibility personal is a 422', async () => {
    const e = await create(t, cat);
    assert422(await put(t, e.id, { visibility: 'personal' }), [err(['body', 'visibility'], PERSONAL_REFUSED, 'value_error')]);
    assert.deepEqual(await getOk(t, e.id), e);
    // Also on an entry that is personal already.
    const p = await create(t, cat, { visibility: 'personal' });
    assert422(await put(t, p.id, { visibility: 'personal' }), [err(['body', 'visibility'], PERSONAL_REFUSED, 'value_error')]);
  });

  test('the owner updates and deletes a personal entry; to another user it does not exist', async () => {
    const other = await otherUser(t);
    const otherKey = await other.keyWith([...FULL_SCOPES, 'visibility:restricted', 'admin']);
    const p = await create(t, cat, { visibility: 'personal' });
    assertError(await get(t, p.id, otherKey), 404);
    assertError(await put(t, p.id, { title: 'hijack' }, otherKey), 404);
    assertError(await del(t, p.id, otherKey), 404);
    assert.ok(!(await list(t, '', otherKey)).ids.includes(p.id));
    assert.ok(!(await list(t, '?visibility=personal', otherKey)).ids.includes(p.id));
    const updated = await putOk(t, p.id, { title: 'Mine' });
    assert.equal(updated.title, 'Mine');
    assert.equal(updated.visibility, 'personal');
    assert.equal(updated.version, 2);
    assert.equal((await del(t, p.id)).status, 204);
    assertError(await get(t, p.id), 404);
  });
});

// ---- the visibility matrix (DESIGN §2) ---------------------------------------------------------

describe('visibility matrix: GET, list, PUT and DELETE of one entry', () => {
  let t: TenantFixture;
  let keys: Awaited<ReturnType<typeof callerKeys>>;
  before(async () => {
    t = await stack.tenant();
    keys = await callerKeys(t);
  });

  for (const visibility of VISIBILITIES) {
    for (const ceiling of CEILINGS) {
      for (const owner of [true, false]) {
        const canRead = readable(visibility, ceiling, owner);
        test(`${visibility} × ceiling ${ceiling} × ${owner ? 'owner' : 'other user'} → ${canRead ? 'readable' : '404 everywhere'}`, async () => {
          const key = owner ? keys.owner[ceiling] : keys.other[ceiling];
          const cat = await newCategory(t);
          const e = await create(t, cat, { visibility }); // by the owner, with every scope

          const got = await get(t, e.id, key);
          const listed = await list(t, `?category_id=${cat}`, key);
          const listedByVisibility = await list(t, `?category_id=${cat}&visibility=${visibility}`, key);
          if (canRead) {
            assert.equal(got.status, 200, got.text);
            assert.deepEqual(got.body, e);
            assert.deepEqual(listed.ids, [e.id]);
            assert.equal(listed.total, 1);
            assert.deepEqual(listedByVisibility.ids, [e.id]);
            assert.equal(listedByVisibility.total, 1);
            const updated = await putOk(t, e.id, { summary: 'changed' }, key);
            assert.equal(updated.summary, 'changed');
            assert.equal(updated.visibility, visibility);
            assert.equal(updated.version, 2);
            const deleted = await del(t, e.id, key);
            assert.equal(deleted.status, 204, deleted.text);
            assert.equal(deleted.text, '');
            assertError(await get(t, e.id), 404);
          } else {
            assertError(got, 404);
            assertError(await get(t, e.id, key, '?include_expired=true'), 404);
            assert.deepEqual(listed.ids, []);
            assert.equal(listed.total, 0);
            assert.deepEqual(listedByVisibility.ids, []);
            assert.equal(listedByVisibility.total, 0);
            assertError(await put(t, e.id, { summary: 'changed' }, key), 404);
            assertError(await put(t, e.id, { summary: 'changed' }, key, { 'If-Match': '1' }), 404);
            assertError(await del(t, e.id, key), 404);
            // Nothing changed: the owner with every scope still sees version 1, unchanged.
            assert.deepEqual(await getOk(t, e.id), e);
            assert.equal((await del(t, e.id)).status, 204);
          }
        });
      }
    }
  }
});

describe('visibility matrix: the unfiltered list and X-Total-Count', () => {
  let t: TenantFixture;
  let keys: Awaited<ReturnType<typeof callerKeys>>;
  const ids = {} as Record<Visibility, string>;
  before(async () => {
    t = await stack.tenant();
    keys = await callerKeys(t);
    const cat = await newCategory(t);
    for (const visibility of VISIBILITIES) ids[visibility] = (await create(t, cat, { visibility })).id;
  });

  for (const ceiling of CEILINGS) {
    for (const owner of [true, false]) {
      const expected = VISIBILITIES.filter((v) => readable(v, ceiling, owner));
      test(`ceiling ${ceiling} × ${owner ? 'owner' : 'other user'} lists ${expected.join(', ')}`, async () => {
        const key = owner ? keys.owner[ceiling] : keys.other[ceiling];
        const all = await list(t, '', key);
        assert.deepEqual(sorted(all.ids), sorted(expected.map((v) => ids[v])));
        assert.equal(all.total, expected.length);
        for (const visibility of VISIBILITIES) {
          const one = await list(t, `?visibility=${visibility}`, key);
          const want = expected.includes(visibility) ? [ids[visibility]] : [];
          assert.deepEqual(one.ids, want, visibility);
          assert.equal(one.total, want.length, visibility);
        }
      });
    }
  }
});

describe('writing above the ceiling: 403 with insufficient_scope', () => {
  let t: TenantFixture;
  let keys: Awaited<ReturnType<typeof callerKeys>>;
  before(async () => {
    t = await stack.tenant();
    keys = await callerKeys(t);
  });

  for (const ceiling of CEILINGS) {
    for (const visibility of ['public', 'community', 'internal', 'workspace', 'restricted'] as const) {
      const allowed = LEVEL[visibility] <= CEILING_LEVEL[ceiling];
      const needed = `visibility:${visibility === 'workspace' ? 'internal' : visibility}`;
      test(`ceiling ${ceiling} writing ${visibility} → ${allowed ? 'allowed' : `403 ${needed}`}`, async () => {
        const key = keys.owner[ceiling];
        const cat = await newCategory(t);
        // Create.
        const created = await t.request('POST', ENTRIES, { key, body: entryBody(cat, { visibility }) });
        // PUT moving a public entry up.
        const e = await create(t, cat, { visibility: 'public' }, key);
        const moved = await put(t, e.id, { visibility }, key);
        if (allowed) {
          assert.equal(created.status, 201, created.text);
          assert.equal(created.body.visibility, visibility);
          assert.equal(moved.status, 200, moved.text);
          assert.equal(moved.body.visibility, visibility);
          assert.equal(moved.body.version, visibility === 'public' ? 1 : 2);
        } else {
          assertInsufficientScope(created, needed);
          assertInsufficientScope(moved, needed);
          assert.deepEqual(await getOk(t, e.id), e);
          // Nothing was created: the all-scopes key sees only the public entry in this category.
          assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, [e.id]);
        }
      });
    }
  }

  test('a caller cannot PUT an entry it cannot read even to a visibility within its ceiling (404)', async () => {
    const cat = await newCategory(t);
    const e = await create(t, cat, { visibility: 'restricted' });
    assertError(await put(t, e.id, { visibility: 'public' }, keys.owner.community), 404);
    assert.equal((await getOk(t, e.id)).visibility, 'restricted');
  });
});

// ---- X-Scopes (DESIGN §2) ----------------------------------------------------------------------

describe('X-Scopes narrows the token\'s scopes', () => {
  let t: TenantFixture;
  let cat: string;
  const ids = {} as Record<string, string>;
  const shared = ['public', 'community', 'internal', 'workspace', 'restricted'] as const;
  before(async () => {
    t = await stack.tenant();
    cat = await newCategory(t);
    for (const visibility of shared) ids[visibility] = (await create(t, cat, { visibility })).id;
  });
  const idsOf = (...visibilities: string[]) => sorted(visibilities.map((v) => ids[v]));

  test('without the header (or with an empty one) the all-scopes key reads everything', async () => {
    assert.deepEqual(sorted((await list(t)).ids), idsOf(...shared));
    const empty = await list(t, '', undefined, { 'X-Scopes': '' });
    assert.deepEqual(sorted(empty.ids), idsOf(...shared));
    assert.equal(empty.total, 5);
  });

  test('X-Scopes: knowledge:read drops the ceiling to public', async () => {
    const headers = { 'X-Scopes': 'knowledge:read' };
    const res = await list(t, '', undefined, headers);
    assert.deepEqual(res.ids, [ids.public]);
    assert.equal(res.total, 1);
    assert.equal((await t.request('GET', `${ENTRIES}/${ids.public}`, { headers })).status, 200);
    for (const v of ['community', 'internal', 'workspace', 'restricted']) {
      assertError(await t.request('GET', `${ENTRIES}/${ids[v]}`, { headers }), 404);
    }
  });

  test('X-Scopes: knowledge:read visibility:internal reads up to internal', async () => {
    const headers = { 'X-Scopes': 'knowledge:read visibility:internal' };
    const res = await list(t, '', undefined, headers);
    assert.deepEqual(sorted(res.ids), idsOf('public', 'community', 'internal', 'workspace'));
    assert.equal(res.total, 4);
    assert.equal((await t.request('GET', `${ENTRIES}/${ids.internal}`, { headers })).status, 200);
    assertError(await t.request('GET', `${ENTRIES}/${ids.restricted}`, { headers }), 404);
  });

  test('the header cannot widen: a key without visibility scopes still reads only public', async () => {
    const key = await t.keyWith(FULL_SCOPES);
    const headers = { 'X-Scopes': 'knowledge:read visibility:restricted' };
    const res = await list(t, '', key, headers);
    assert.deepEqual(res.ids, [ids.public]);
    assert.equal(res.total, 1);
    assertError(await t.request('GET', `${ENTRIES}/${ids.restricted}`, { key, headers }), 404);
    // The plain intersection: a scope the header does not repeat is dropped, one the key lacks is not added.
    const community = await t.keyWith(['knowledge:read', 'visibility:community']);
    assert.deepEqual((await list(t, '', community, headers)).ids, [ids.public]);
    const both = { 'X-Scopes': 'knowledge:read visibility:community visibility:restricted' };
    assert.deepEqual(sorted((await list(t, '', community, both)).ids), idsOf('public', 'community'));
    assertError(await t.request('GET', `${ENTRIES}/${ids.internal}`, { key: community, headers: both }), 404);
  });

  test('a knowledge:read-only key cannot write (403 knowledge:write)', async () => {
    const key = await t.keyWith(['knowledge:read', 'visibility:restricted']);
    assertInsufficientScope(await t.request('POST', ENTRIES, { key, body: entryBody(cat) }), 'knowledge:write');
    assertInsufficientScope(await t.request('POST', `${ENTRIES}/personal`, { key, body: entryBody(cat) }), 'knowledge:write');
    assertInsufficientScope(await put(t, ids.public, { title: 'x' }, key), 'knowledge:write');
    assertInsufficientScope(await del(t, ids.public, key), 'knowledge:write');
    assert.equal((await get(t, ids.public, key)).status, 200);
  });

  test('narrowed by the header, the all-scopes key cannot write either', async () => {
    const headers = { 'X-Scopes': 'knowledge:read visibility:restricted' };
    assertInsufficientScope(await t.request('POST', ENTRIES, { body: entryBody(cat), headers }), 'knowledge:write');
    assertInsufficientScope(await t.request('DELETE', `${ENTRIES}/${ids.public}`, { headers }), 'knowledge:write');
  });

  test('write does not imply read: X-Scopes: knowledge:write cannot list or get', async () => {
    const headers = { 'X-Scopes': 'knowledge:write' };
    assertInsufficientScope(await t.request('GET', ENTRIES, { headers }), 'knowledge:read');
    assertInsufficientScope(await t.request('GET', `${ENTRIES}/${ids.public}`, { headers }), 'knowledge:read');
  });

  test('the narrowed ceiling also bounds writes', async () => {
    const headers = { 'X-Scopes': 'knowledge:read knowledge:write' };
    assertInsufficientScope(await t.request('POST', ENTRIES, { body: entryBody(cat, { visibility: 'community' }), headers }), 'visibility:community');
    const res = await t.request('POST', ENTRIES, { body: entryBody(cat, { visibility: 'public' }), headers });
    assert.equal(res.status, 201, res.text);
    assert.equal((await del(t, res.body.id)).status, 204);
  });
});

// ---- updates -----------------------------------------------------------------------------------

describe('PUT /knowledge-entries/{id}: partial updates, versions, If-Match', () => {
  let t: TenantFixture;
  let cat: string;
  let cat2: string;
  before(async () => {
    t = await stack.tenant();
    cat = await newCategory(t);
    cat2 = await newCategory(t);
  });

  const rich = (over: Body = {}): Body => ({
    summary: 'Sum', layer: 'L1', tags: ['t1'], source_reference: 'ref', similarity_text: 'anchor', search_keywords: ['kw'],
    project_ids: [randomUUID()], language: 'en', type: 'knowledge', metadata: { references: ['https://example.com'] }, ...over,
  });

  test('only the provided fields change; version +1, created_at kept', async () => {
    const e = await create(t, cat, rich());
    const changes: [string, unknown][] = [
      ['title', 'New title'], ['content', 'New content'], ['summary', 'New summary'], ['category_id', cat2], ['layer', 'L2'],
      ['tags', ['t2', 't3']], ['visibility', 'internal'], ['metadata', { references: ['r2'], audience: 'devs' }],
      ['source_reference', 'ref-2'], ['similarity_text', 'new anchor'], ['search_keywords', []], ['project_ids', [randomUUID()]],
    ];
    let prev = e;
    for (const [field, value] of changes) {
      const next = await putOk(t, e.id, { [field]: value });
      assert.deepEqual(next[field], value, field);
      assert.equal(next.version, prev.version + 1, field);
      assert.equal(next.created_at, e.created_at);
      assert.ok(next.updated_at >= prev.updated_at);
      const { [field]: _a, version: _v1, updated_at: _u1, ...restNext } = next;
      const { [field]: _b, version: _v2, updated_at: _u2, ...restPrev } = prev;
      assert.deepEqual(restNext, restPrev, `only ${field} changed`);
      assert.deepEqual(await getOk(t, e.id), next);
      prev = next;
    }
    assert.equal(prev.version, 1 + changes.length);
  });

  test('null for title, content, category_id, visibility or metadata means no change', async () => {
    const e = await create(t, cat, rich({ visibility: 'community' }));
    const same = await putOk(t, e.id, { title: null, content: null, category_id: null, visibility: null, metadata: null });
    assert.deepEqual(same, e);
    assert.equal(same.version, 1);
    for (const field of ['title', 'content', 'category_id', 'visibility', 'metadata']) {
      assert.deepEqual(await putOk(t, e.id, { [field]: null }), e, field);
    }
  });

  test('null for summary, layer, source_reference, similarity_text, project_ids clears them', async () => {
    const e = await create(t, cat, rich());
    for (const [i, field] of ['summary', 'layer', 'source_reference', 'similarity_text', 'project_ids'].entries()) {
      const next = await putOk(t, e.id, { [field]: null });
      assert.equal(next[field], null, field);
      assert.equal(next.version, 2 + i, field);
    }
    const cleared = await getOk(t, e.id);
    for (const field of ['summary', 'layer', 'source_reference', 'similarity_text', 'project_ids']) assert.equal(cleared[field], null);
    assert.equal(cleared.title, e.title);
    assert.deepEqual(cleared.tags, e.tags);
    // Clearing what is already clear is a no-op.
    assert.deepEqual(await putOk(t, e.id, { summary: null, layer: null, project_ids: null }), cleared);
  });

  test('a type key is a 422 at body.type (extra_forbidden), whatever its value', async () => {
    const e = await create(t, cat, { type: 'skill' });
    const refused = err(['body', 'type'], 'type is immutable; delete and re-create the entry to change it', 'extra_forbidden');
    for (const type of ['knowledge', 'skill', 'memory', null, 5]) {
      assert422(await put(t, e.id, { type }), [refused]);
      assert422(await put(t, e.id, { title: 'with type', type }), [refused]);
    }
    const after = await getOk(t, e.id);
    assert.equal(after.type, 'skill');
    assert.equal(after.version, 1);
  });

  test('the update limits are those of the create', async () => {
    const e = await create(t, cat);
    assert422(await put(t, e.id, { title: '' }), [tooShort(['body', 'title'], 1)]);
    assert422(await put(t, e.id, { title: x(501) }), [tooLong(['body', 'title'], 500)]);
    assert422(await put(t, e.id, { content: '' }), [tooShort(['body', 'content'], 1)]);
    assert422(await put(t, e.id, { layer: x(51) }), [tooLong(['body', 'layer'], 50)]);
    assert422(await put(t, e.id, { visibility: 'secret' }), [enumOf(['body', 'visibility'], VISIBILITIES)]);
    assert422(await put(t, e.id, { category_id: 'x' }), [uuidParsing(['body', 'category_id'])]);
    assert422(await put(t, e.id, { category_id: randomUUID() }), [categoryNotFound]);
    assert422(await put(t, e.id, { project_ids: ['x'] }), [uuidParsing(['body', 'project_ids', 0])]);
    assert422(await put(t, e.id, { tags: 'x' }), [listType(['body', 'tags'])]);
    assert422(await put(t, e.id, { metadata: 'x' }), [err(['body', 'metadata'], 'Input should be a valid dictionary', 'dict_type')]);
    assert422(await put(t, e.id, { title: '', content: '' }), [tooShort(['body', 'title'], 1), tooShort(['body', 'content'], 1)]);
    assert422(await put(t, e.id, []), [err(['body'], 'Input should be a valid dictionary or object to extract fields from', 'model_attributes_type')]);
    assert.deepEqual(await getOk(t, e.id), e);
  });

  test('title 500 characters and unknown keys pass on update', async () => {
    const e = await create(t, cat);
    const next = await putOk(t, e.id, { title: x(500), color: 'red' });
    assert.equal(next.title, x(500));
    assert.equal('color' in next, false);
  });

  test('version: +1 per changing update, unchanged by a no-op update', async () => {
    const e = await create(t, cat, rich());
    assert.equal(e.version, 1);
    const v2 = await putOk(t, e.id, { title: 'A' });
    assert.equal(v2.version, 2);
    // No-ops: an empty body, the same values, nulls meaning no change.
    for (const body of [{}, { title: 'A' }, { title: 'A', tags: e.tags, layer: e.layer, summary: e.summary }, { metadata: e.metadata }, { title: null }]) {
      assert.deepEqual(await putOk(t, e.id, body), v2, JSON.stringify(body));
    }
    assert.equal((await putOk(t, e.id, { title: 'B' })).version, 3);
    assert.equal((await putOk(t, e.id, { title: 'A' })).version, 4);
    assert.equal((await getOk(t, e.id)).version, 4);
  });

  test('If-Match: current → 200, stale → 412, "n" works, garbage → 412', async () => {
    const e = await create(t, cat);
    const v2 = await putOk(t, e.id, { title: 'v2' }, undefined, { 'If-Match': '1' });
    assert.equal(v2.version, 2);
    const stale = await put(t, e.id, { title: 'stale' }, undefined, { 'If-Match': '1' });
    assertError(stale, 412);
    assert.equal((await getOk(t, e.id)).title, 'v2');
    const v3 = await putOk(t, e.id, { title: 'v3' }, undefined, { 'If-Match': '"2"' });
    assert.equal(v3.version, 3);
    assertError(await put(t, e.id, { title: 'future' }, undefined, { 'If-Match': '4' }), 412);
    for (const garbage of ['abc', '"abc"', '3.0', '-3', 'v3', '3,4']) {
      assertError(await put(t, e.id, { title: 'garbage' }, undefined, { 'If-Match': garbage }), 412);
    }
    const now = await getOk(t, e.id);
    assert.equal(now.title, 'v3');
    assert.equal(now.version, 3);
    // A no-op update with the current version answers 200 and keeps it.
    assert.deepEqual(await putOk(t, e.id, { title: 'v3' }, undefined, { 'If-Match': '3' }), now);
  });

  test('concurrent updates all apply, one version each', async () => {
    const e = await create(t, cat);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => put(t, e.id, { title: `c${i}` })));
    for (const res of results) assert.equal(res.status, 200, res.text);
    assert.deepEqual(results.map((r) => r.body.version).sort((a, b) => a - b), [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    assert.equal((await getOk(t, e.id)).version, 11);
  });

  test('concurrent updates with the same If-Match: exactly one wins', async () => {
    const e = await create(t, cat);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => put(t, e.id, { title: `m${i}` }, undefined, { 'If-Match': '1' })));
    const won = results.filter((r) => r.status === 200);
    assert.equal(won.length, 1, results.map((r) => r.status).join(','));
    for (const res of results.filter((r) => r.status !== 200)) assertError(res, 412);
    const final = await getOk(t, e.id);
    assert.equal(final.version, 2);
    assert.equal(final.title, won[0].body.title);
  });

  test('DELETE: stale If-Match → 412 and nothing deleted; the right one → 204; then 404', async () => {
    const e = await create(t, cat);
    await putOk(t, e.id, { title: 'v2' });
    assertError(await del(t, e.id, undefined, { 'If-Match': '1' }), 412);
    assertError(await del(t, e.id, undefined, { 'If-Match': 'garbage' }), 412);
    assert.equal((await getOk(t, e.id)).version, 2);
    const res = await del(t, e.id, undefined, { 'If-Match': '"2"' });
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '');
    assertError(await get(t, e.id), 404);
    assertError(await del(t, e.id), 404);
    assertError(await put(t, e.id, { title: 'gone' }), 404);
    assert.ok(!(await list(t, `?category_id=${cat}`)).ids.includes(e.id));
  });

  test('DELETE without If-Match → 204, then GET and DELETE are 404', async () => {
    const e = await create(t, cat);
    const res = await del(t, e.id);
    assert.equal(res.status, 204, res.text);
    assertError(await get(t, e.id), 404);
    assertError(await del(t, e.id), 404);
  });
});

// ---- metadata per type -------------------------------------------------------------------------

describe('metadata: checked and normalised per type', () => {
  let t: TenantFixture;
  let cat: string;
  before(async () => {
    t = await stack.tenant();
    cat = await newCategory(t);
  });
  const post = (over: Body) => t.request('POST', ENTRIES, { body: entryBody(cat, over) });

  const DEFAULTS: Record<(typeof TYPES)[number], Body> = {
    knowledge: { references: [] },
    skill: { level: 'intermediate', prerequisites: [], tools: [] },
    process: { steps: [] },
    glossary: { synonyms: [] },
    memory: { importance: 3 },
    bootstrap: { priority: 0, applies_to: [] },
    skill_index: { skill_ids: [] },
  };

  for (const type of TYPES) {
    test(`${type}: defaults filled without metadata and with {}`, async () => {
      assert.deepEqual((await create(t, cat, { type })).metadata, DEFAULTS[type]);
      assert.deepEqual((await create(t, cat, { type, metadata: {} })).metadata, DEFAULTS[type]);
    });
  }

  const REJECTS: [string, Body, ReturnType<typeof err>][] = [
    ['knowledge', { references: 'x' }, listType(['body', 'metadata', 'references'])],
    ['skill', { level: 'guru' }, enumOf(['body', 'metadata', 'level'], ['beginner', 'intermediate', 'expert'])],
    ['process', { steps: [1] }, stringType(['body', 'metadata', 'steps', 0])],
    ['glossary', { synonyms: 'x' }, listType(['body', 'metadata', 'synonyms'])],
    ['memory', { importance: 6 }, le(['body', 'metadata', 'importance'], 5)],
    ['memory', { importance: 0 }, ge(['body', 'metadata', 'importance'], 1)],
    ['memory', { expires_at: 'soon' }, err(['body', 'metadata', 'expires_at'], 'Input should be a valid datetime', 'datetime_parsing')],
    ['memory', { ttl_seconds: 0 }, ge(['body', 'metadata', 'ttl_seconds'], 1)],
    ['bootstrap', { priority: -1 }, ge(['body', 'metadata', 'priority'], 0)],
    ['skill_index', { skill_ids: ['x'] }, uuidParsing(['body', 'metadata', 'skill_ids', 0])],
  ];
  for (const [type, metadata, detail] of REJECTS) {
    test(`${type}: ${JSON.stringify(metadata)} is a 422 at ${detail.loc.join('.')}`, async () => {
      assert422(await post({ type, metadata }), [detail]);
    });
  }

  test('given values are kept; unknown metadata keys are dropped', async () => {
    const skill = await create(t, cat, { type: 'skill', metadata: { level: 'expert', tools: ['git'], mood: 'great', nested: { a: 1 } } });
    assert.deepEqual(skill.metadata, { level: 'expert', prerequisites: [], tools: ['git'] });
    const ids = [randomUUID(), randomUUID()];
    const index = await create(t, cat, { type: 'skill_index', metadata: { skill_ids: ids, domain: 'ops', extra: true } });
    assert.deepEqual(index.metadata, { skill_ids: ids, domain: 'ops' });
    const boot = await create(t, cat, { type: 'bootstrap', metadata: { priority: 7, applies_to: ['mcp'] } });
    assert.deepEqual(boot.metadata, { priority: 7, applies_to: ['mcp'] });
    // A key another type knows is just unknown here.
    const k = await create(t, cat, { type: 'knowledge', metadata: { importance: 5, level: 'guru', expires_at: 'soon' } });
    assert.deepEqual(k.metadata, { references: [] });
    assert.deepEqual((await getOk(t, k.id)).metadata, { references: [] });
  });

  test('update metadata is validated against the existing entry\'s type and replaces the stored object', async () => {
    const skill = await create(t, cat, { type: 'skill', metadata: { level: 'expert', tools: ['git'] } });
    assert422(await put(t, skill.id, { metadata: { level: 'guru' } }), [enumOf(['body', 'metadata', 'level'], ['beginner', 'intermediate', 'expert'])]);
    // importance 6 would be refused for a memory; for a skill it is an unknown key, dropped.
    const replaced = await putOk(t, skill.id, { metadata: { importance: 6 } });
    assert.deepEqual(replaced.metadata, { level: 'intermediate', prerequisites: [], tools: [] });
    assert.equal(replaced.version, 2);

    const memory = await create(t, cat, { type: 'memory', metadata: { importance: 5, subject: 'x' } });
    assert422(await put(t, memory.id, { metadata: { importance: 6 } }), [le(['body', 'metadata', 'importance'], 5)]);
    assert422(await put(t, memory.id, { metadata: { level: 'beginner', expires_at: 'soon' } }), [
      err(['body', 'metadata', 'expires_at'], 'Input should be a valid datetime', 'datetime_parsing'),
    ]);
    const m2 = await putOk(t, memory.id, { metadata: { importance: 1, level: 'guru' } });
    assert.deepEqual(m2.metadata, { importance: 1 });
    const boot = await create(t, cat, { type: 'bootstrap' });
    assert422(await put(t, boot.id, { metadata: { priority: -1 } }), [ge(['body', 'metadata', 'priority'], 0)]);
    assert.equal((await getOk(t, boot.id)).version, 1);
  });
});

// ---- memory expiry -----------------------------------------------------------------------------

describe('memory expiry: expires_at and ttl_seconds', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });
  const past = () => new Date(Date.now() - 60_000).toISOString();
  const future = () => new Date(Date.now() + 3_600_000).toISOString();

  test('a past expires_at is allowed; the expired memory is hidden unless include_expired=true', async () => {
    const cat = await newCategory(t);
    const live = await create(t, cat, { type: 'memory' });
    const at = past();
    const expired = await create(t, cat, { type: 'memory', metadata: { expires_at: at } });
    assert.equal(Date.parse(expired.metadata.expires_at), Date.parse(at));
    assertError(await get(t, expired.id), 404);
    assertError(await get(t, expired.id, undefined, '?include_expired=false'), 404);
    const got = await getOk(t, expired.id, undefined, '?include_expired=true');
    assert.equal(got.id, expired.id);
    assert.deepEqual(got, expired);

    const visible = await list(t, `?category_id=${cat}`);
    assert.deepEqual(visible.ids, [live.id]);
    assert.equal(visible.total, 1);
    const memories = await list(t, `?category_id=${cat}&type=memory&include_expired=false`);
    assert.deepEqual(memories.ids, [live.id]);
    const all = await list(t, `?category_id=${cat}&include_expired=true`);
    assert.deepEqual(sorted(all.ids), sorted([live.id, expired.id]));
    assert.equal(all.total, 2);
    assert.equal((await list(t, `?category_id=${cat}&type=memory&include_expired=true`)).total, 2);
  });

  test('include_expired must be a boolean', async () => {
    const bad = err(['query', 'include_expired'], 'Input should be a valid boolean, unable to interpret input', 'bool_parsing');
    assert422(await t.request('GET', `${ENTRIES}?include_expired=maybe`), [bad]);
    assert422(await get(t, randomUUID(), undefined, '?include_expired=maybe'), [bad]);
  });

  test('a future expires_at keeps the memory visible', async () => {
    const cat = await newCategory(t);
    const at = future();
    const e = await create(t, cat, { type: 'memory', metadata: { expires_at: at } });
    assert.equal(Date.parse((await getOk(t, e.id)).metadata.expires_at), Date.parse(at));
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, [e.id]);
  });

  test('ttl_seconds sets expires_at to about now + ttl and is not stored', async () => {
    const cat = await newCategory(t);
    const before = Date.now();
    const e = await create(t, cat, { type: 'memory', metadata: { ttl_seconds: 3600, importance: 4 } });
    const after = Date.now();
    assert.deepEqual(Object.keys(e.metadata).sort(), ['expires_at', 'importance']);
    assert.equal(e.metadata.importance, 4);
    const expiresAt = Date.parse(e.metadata.expires_at);
    assert.ok(expiresAt >= before + 3_600_000 - 1000 && expiresAt <= after + 3_600_000 + 1000, e.metadata.expires_at);
    const stored = await getOk(t, e.id);
    assert.deepEqual(stored.metadata, e.metadata);
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, [e.id]);
  });

  test('ttl_seconds wins over a given expires_at', async () => {
    const cat = await newCategory(t);
    const before = Date.now();
    const e = await create(t, cat, { type: 'memory', metadata: { ttl_seconds: 600, expires_at: past() } });
    assert.ok(Date.parse(e.metadata.expires_at) >= before + 600_000 - 1000);
    assert.equal('ttl_seconds' in e.metadata, false);
    assert.equal((await get(t, e.id)).status, 200);
  });

  test('a short ttl expires: the memory disappears from get and list (bounded poll)', async () => {
    const cat = await newCategory(t);
    const e = await create(t, cat, { type: 'memory', metadata: { ttl_seconds: 1 } });
    const deadline = Date.now() + 15_000;
    while ((await get(t, e.id)).status !== 404) {
      assert.ok(Date.now() < deadline, 'the memory never expired');
      await delay(100);
    }
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, []);
    assert.deepEqual((await list(t, `?category_id=${cat}&include_expired=true`)).ids, [e.id]);
    assert.equal((await get(t, e.id, undefined, '?include_expired=true')).status, 200);
  });

  test('expiry applies to memory entries only', async () => {
    const cat = await newCategory(t);
    const k = await create(t, cat, { type: 'knowledge', metadata: { expires_at: past() } });
    assert.equal((await get(t, k.id)).status, 200);
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, [k.id]);
  });

  test('an update moving expires_at into the past hides the memory; into the future shows it again', async () => {
    const cat = await newCategory(t);
    const e = await create(t, cat, { type: 'memory', metadata: { expires_at: future() } });
    const expired = await putOk(t, e.id, { metadata: { expires_at: past() } });
    assert.equal(expired.version, 2);
    assertError(await get(t, e.id), 404);
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, []);
    assert.deepEqual((await list(t, `?category_id=${cat}&include_expired=true`)).ids, [e.id]);
    const revived = await putOk(t, e.id, { metadata: { ttl_seconds: 3600 } });
    assert.equal(revived.version, 3);
    assert.equal((await get(t, e.id)).status, 200);
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, [e.id]);
    // Clearing the metadata (defaults, no expires_at) makes it permanent.
    const permanent = await putOk(t, e.id, { metadata: {} });
    assert.deepEqual(permanent.metadata, { importance: 3 });
    assert.deepEqual((await list(t, `?category_id=${cat}`)).ids, [e.id]);
  });

  test('with include_expired=true the ceiling and personal ownership still hold', async () => {
    const cat = await newCategory(t);
    const other = await otherUser(t);
    const otherAll = await other.keyWith([...FULL_SCOPES, 'visibility:restricted']);
    const publicOnly = await t.keyWith(FULL_SCOPES);
    const personal = await create(t, cat, { type: 'memory', visibility: 'personal', metadata: { expires_at: past() } });
    const restricted = await create(t, cat, { type: 'memory', visibility: 'restricted', metadata: { expires_at: past() } });
    const pub = await create(t, cat, { type: 'memory', visibility: 'public', metadata: { expires_at: past() } });

    // Another user's expired personal memory stays hidden.
    assertError(await get(t, personal.id, otherAll, '?include_expired=true'), 404);
    const otherList = await list(t, `?category_id=${cat}&include_expired=true`, otherAll);
    assert.deepEqual(sorted(otherList.ids), sorted([restricted.id, pub.id]));
    assert.equal(otherList.total, 2);
    // An expired restricted memory stays above a public-only ceiling.
    assertError(await get(t, restricted.id, publicOnly, '?include_expired=true'), 404);
    const publicList = await list(t, `?category_id=${cat}&include_expired=true`, publicOnly);
    assert.deepEqual(sorted(publicList.ids), sorted([personal.id, pub.id]));
    assert.equal(publicList.total, 2);
    // The owner with every scope sees all three.
    assert.equal((await get(t, personal.id, undefined, '?include_expired=true')).status, 200);
    assert.equal((await list(t, `?category_id=${cat}&include_expired=true`)).total, 3);
    assert.equal((await list(t, `?category_id=${cat}`)).total, 0);
  });
});

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

// ---- categories holding entries ----------------------------------------------------------------

describe('a category with entries cannot be deleted', () => {
  let t: TenantFixture;
  before(async () => {
    t = await stack.tenant();
  });
  const deleteCategory = (id: string) => t.request('DELETE', `${CATEGORIES}/${id}`);

  test('DELETE category → 409 while it holds entries; 204 once they are gone', async () => {
    const cat = await newCategory(t);
    const other = await newCategory(t);
    const a = await create(t, cat);
    const b = await create(t, cat, { type: 'memory', metadata: { expires_at: new Date(Date.now() - 60_000).toISOString() } });
    assertError(await deleteCategory(cat), 409);
    await putOk(t, a.id, { category_id: other });
    // The expired memory still counts.
    assertError(await deleteCategory(cat), 409);
    assert.equal((await del(t, b.id)).status, 204);
    const res = await deleteCategory(cat);
    assert.equal(res.status, 204, res.text);
    assertError(await t.request('GET', `${CATEGORIES}/${cat}`), 404);
    // The moved entry now holds the other category.
    assertError(await deleteCategory(other), 409);
    assert422(await put(t, a.id, { category_id: cat }), [categoryNotFound]);
    assert422(await t.request('POST', ENTRIES, { body: entryBody(cat) }), [categoryNotFound]);
    assert.equal((await del(t, a.id)).status, 204);
    assert.equal((await deleteCategory(other)).status, 204);
  });

  test('another user\'s personal entry also holds the category', async () => {
    const cat = await newCategory(t);
    const other = await otherUser(t);
    const otherKey = await other.keyWith(FULL_SCOPES);
    const p = await create(t, cat, { visibility: 'personal' }, otherKey);
    assertError(await deleteCategory(cat), 409);
    assert.equal((await del(t, p.id, otherKey)).status, 204);
    assert.equal((await deleteCategory(cat)).status, 204);
  });
});

// ---- tenant isolation --------------------------------------------------------------------------

describe('tenant isolation', () => {
  test('tenant B never sees, changes or deletes A\'s entries', async () => {
    const a = await stack.tenant();
    const b = await stack.tenant();
    const catA = await newCategory(a);
    const catB = await newCategory(b);
    const created: any[] = [];
    for (const visibility of VISIBILITIES) created.push(await create(a, catA, { visibility, type: 'memory' }));
    for (const e of created) {
      assertError(await get(b, e.id), 404);
      assertError(await get(b, e.id, undefined, '?include_expired=true'), 404);
      assertError(await put(b, e.id, { title: 'hijack' }), 404);
      assertError(await del(b, e.id), 404);
    }
    const listB = await list(b, '?include_expired=true');
    assert.deepEqual(listB.ids, []);
    assert.equal(listB.total, 0);
    assert.deepEqual((await list(b, `?category_id=${catA}`)).ids, []);
    assert.deepEqual((await list(b, '?type=memory')).ids, []);
    // B cannot file an entry under A's category.
    assert422(await b.request('POST', ENTRIES, { body: entryBody(catA) }), [categoryNotFound]);
    const own = await create(b, catB);
    assert.deepEqual((await list(b)).ids, [own.id]);
    assertError(await get(a, own.id), 404);
    assert.ok(!(await list(a)).ids.includes(own.id));
    // A's key is not a credential at B.
    const res = await stack.request('GET', `${ENTRIES}/${created[0].id}`, { tenant: b.tenant.slug, key: a.key });
    assert.equal(res.status, 401, res.text);
    // A's entries are untouched.
    for (const e of created) assert.deepEqual(await getOk(a, e.id), e);
  });
});

// ---- embeddings (default local embedder) -------------------------------------------------------

describe('entry embeddings with the local embedder', () => {
  let local: Stack;
  let t: TenantFixture;
  before(async () => {
    local = await startStack(); // KCS_EMBEDDER defaults to local
    t = await local.tenant();
  });
  after(() => local.close());

  test('embedding_status goes pending → ready and embedding_model becomes use-lite-512-en', async () => {
    const cat = (await t.request('POST', CATEGORIES, { body: { name: 'emb' } })).body.id;
    const res = await t.request('POST', ENTRIES, {
      body: { title: 'Trail running', content: 'Shoes with a grippy sole for muddy trails.', category_id: cat, visibility: 'public', language: 'en', similarity_text: 'running shoes' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.embedding_status, 'pending');
    assert.equal(res.body.embedding_model, null);
    const deadline = Date.now() + 30_000;
    let entry = res.body;
    while (entry.embedding_status === 'pending') {
      assert.ok(Date.now() < deadline, 'the entry was not embedded within 30 s');
      await delay(200);
      const got = await t.request('GET', `${ENTRIES}/${res.body.id}`);
      assert.equal(got.status, 200, got.text);
      entry = got.body;
    }
    assert.equal(entry.embedding_status, 'ready');
    assert.equal(entry.embedding_model, 'use-lite-512-en');
    assert.equal(entry.version, 1);
    // A change that leaves the texts alone keeps the status; a text change starts over.
    const tagged = await t.request('PUT', `${ENTRIES}/${entry.id}`, { body: { tags: ['shoes'] } });
    assert.equal(tagged.status, 200, tagged.text);
    assert.equal(tagged.body.embedding_status, 'ready');
    assert.equal(tagged.body.embedding_model, 'use-lite-512-en');
    const retitled = await t.request('PUT', `${ENTRIES}/${entry.id}`, { body: { title: 'Road running' } });
    assert.equal(retitled.status, 200, retitled.text);
    assert.equal(retitled.body.version, 3);
    entry = retitled.body;
    while (entry.embedding_status === 'pending') {
      assert.equal(entry.embedding_model, null);
      assert.ok(Date.now() < deadline + 30_000, 'the retitled entry was not embedded within 30 s');
      await delay(200);
      entry = (await t.request('GET', `${ENTRIES}/${res.body.id}`)).body;
    }
    assert.equal(entry.embedding_status, 'ready');
    assert.equal(entry.embedding_model, 'use-lite-512-en');
  });
});
