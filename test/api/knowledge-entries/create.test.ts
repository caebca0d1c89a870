// POST /knowledge-entries: field limits and enums with exact 422 bodies, and the response shape (spec §2.4, §8).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422, assertError } from '../../helpers/assertions.js';
import { newCategory } from '../../helpers/fixtures.js';
import { stack, useStack, ENTRIES, ENTRY_KEYS, VISIBILITIES, TYPES, FULL_SCOPES, type Body, x, err, tooShort, tooLong, enumOf, uuidParsing, listType, stringType, categoryNotFound, entryBody, create, get, getOk, put, del, otherUser } from './fixtures.js';

useStack();

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const SOURCES = ['manual', 'import', 'conversational', 'learning_loop', 'system'] as const;
const missing = (field: string) => err(['body', field], 'Field required', 'missing');

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
