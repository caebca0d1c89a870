// PUT and DELETE /knowledge-entries/{id}: partial updates, versions, If-Match, concurrent updates.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422, assertError } from '../../helpers/assertions.js';
import { newCategory } from '../../helpers/fixtures.js';
import { stack, useStack, VISIBILITIES, type Body, x, err, tooShort, tooLong, enumOf, uuidParsing, listType, categoryNotFound, create, get, getOk, put, putOk, del, list } from './fixtures.js';

useStack();

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
