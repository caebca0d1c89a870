// Synonym sets over real HTTP, on whichever engine the run uses: create or replace, read, list,
// delete, the usual errors (404, 422, 403 without admin), the Solr file out and back in, the audit
// log, and a set written through this process applying to the very next search, which says which
// sets it used.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assert422, assertError, assertInsufficientScope } from '../helpers/assertions.js';
import type { TenantFixture } from '../helpers/stack.js';
import { createSiteHttp, SEARCH_PRODUCTS, searchHttp, upsertHttp } from './fixtures.js';
import { err, stack, useStack } from './api-fixtures.js';

useStack();

const SYNONYMS = '/api/knowledge/synonyms';
const PRODUCTS = [
  { external_id: 'smartphone', title: 'Smartphone Galaxy S' },
  { external_id: 'huelle', title: 'Smartphone-Hülle Leder' },
  { external_id: 'jeans', title: 'Jeans Slim Fit' },
  { external_id: 'hose', title: 'Hose Regular' },
  { external_id: 'fernseher', title: 'Fernseher 55 Zoll' },
];

describe('synonym sets over HTTP', () => {
  let t: TenantFixture;
  const key: Record<string, string> = {};
  const search = (body: Record<string, unknown>) => searchHttp(t, SEARCH_PRODUCTS, { site_id: 'shop', mode: 'keyword', ...body });
  const keysOf = (res: { body: { hits: { id: string }[] } }) => res.body.hits.map((h) => key[h.id]).sort();
  const put = (id: string, body: unknown) => t.request('PUT', `${SYNONYMS}/${id}`, { body });

  before(async () => {
    t = await stack.tenant();
    await createSiteHttp(t, 'shop', 'de');
    await createSiteHttp(t, 'outlet', 'de');
    for (const p of PRODUCTS) key[(await upsertHttp(t, 'shop', { language: 'de', ...p })).id] = p.external_id;
  });

  test('a set written here applies to the next search, which lists it in synonyms_applied', async () => {
    const before = await search({ query: 'handy' });
    assert.equal(before.status, 200, before.text);
    assert.deepEqual(keysOf(before), []);
    assert.deepEqual(before.body.synonyms_applied, []);
    const created = await put('phone', { synonyms: ['handy', 'smartphone', 'mobiltelefon'] });
    assert.equal(created.status, 201, created.text);
    const after = await search({ query: 'handy' });
    assert.deepEqual(keysOf(after), ['huelle', 'smartphone']);
    assert.deepEqual(after.body.synonyms_applied, [{ id: 'phone', matched: 'handy', alternatives: ['smartphone', 'mobiltelefon'] }]);
    // Highlights mark what the alternative matched.
    const marked = await search({ query: 'handy', highlight: true });
    assert.ok(marked.body.hits.every((h: { highlight: { matched_words: string[] } }) => h.highlight.matched_words.includes('smartphone')), marked.text);
    // A compound's part: its synonyms are used and said so.
    const compound = await search({ query: 'handyhülle' });
    assert.deepEqual(keysOf(compound), ['huelle']);
    assert.deepEqual(compound.body.synonyms_applied.map((a: { id: string }) => a.id), ['phone']);
    // Deleted: gone from the next search.
    assert.equal((await t.request('DELETE', `${SYNONYMS}/phone`)).status, 204);
    assert.deepEqual(keysOf(await search({ query: 'handy' })), []);
  });

  test('create, replace (200, created_at kept), read, list with filters, delete (then 404)', async () => {
    const created = await put('hose', { root: 'hose', synonyms: ['jeans', 'chino'], site_id: 'shop', language: 'DE' });
    assert.equal(created.status, 201, created.text);
    const site = (await t.request('GET', '/api/knowledge/sites/shop')).body;
    assert.deepEqual({ ...created.body, created_at: undefined, updated_at: undefined }, {
      id: 'hose', type: 'one-way', root: 'hose', synonyms: ['jeans', 'chino'], site_id: site.id, language: 'de', created_at: undefined, updated_at: undefined,
    });
    assert.deepEqual(keysOf(await search({ query: 'hose' })), ['hose', 'jeans']);
    assert.deepEqual(keysOf(await search({ query: 'jeans' })), ['jeans']);
    // The site's set: another site's searches do not apply it.
    assert.deepEqual((await searchHttp(t, SEARCH_PRODUCTS, { site_id: 'outlet', query: 'hose', mode: 'keyword' })).body.synonyms_applied, []);

    const replaced = await put('hose', { synonyms: ['hose', 'beinkleid'] });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.type, 'multi-way');
    assert.equal(replaced.body.root, null);
    assert.equal(replaced.body.site_id, null);
    assert.equal(replaced.body.created_at, created.body.created_at);
    assert.deepEqual((await t.request('GET', `${SYNONYMS}/hose`)).body, replaced.body);

    await put('tv', { synonyms: ['fernseher', 'smart tv'], site_id: site.id });
    const all = await t.request('GET', SYNONYMS);
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body.map((s: { id: string }) => s.id), ['hose', 'tv']);
    assert.equal(all.headers['x-total-count'], '2');
    assert.deepEqual((await t.request('GET', `${SYNONYMS}?site_id=shop`)).body.map((s: { id: string }) => s.id), ['tv']);
    assert.deepEqual((await t.request('GET', `${SYNONYMS}?limit=1&offset=1`)).body.map((s: { id: string }) => s.id), ['tv']);
    assert.deepEqual((await t.request('GET', `${SYNONYMS}?language=en`)).body, []);
    assertError(await t.request('GET', `${SYNONYMS}?site_id=nowhere`), 404);
    assert.deepEqual(keysOf(await search({ query: 'smart tv' })), ['fernseher']);

    for (const id of ['hose', 'tv']) assert.equal((await t.request('DELETE', `${SYNONYMS}/${id}`)).status, 204);
    assertError(await t.request('GET', `${SYNONYMS}/hose`), 404);
    assertError(await t.request('DELETE', `${SYNONYMS}/hose`), 404);
    const audit = await t.request('GET', '/api/knowledge/audit?entity_type=synonym_set');
    assert.deepEqual(audit.body.filter((e: { entity_id: string }) => e.entity_id === 'hose').map((e: { action: string }) => e.action), ['delete', 'update', 'create']);
  });

  test('bad bodies and ids are 422s; an unknown site a 422 at site_id; no admin scope a 403', async () => {
    assert422(await put('one', { synonyms: ['handy'] }), [err(['body', 'synonyms'], 'A set needs at least 2 different entries (a root counts), not 1', 'too_short')]);
    assert422(await put('dup', { synonyms: ['Handy', 'handy'] }), [err(['body', 'synonyms'], 'A set needs at least 2 different entries (a root counts), not 1', 'too_short')]);
    assert422(await put('long', { synonyms: ['a', 'x'.repeat(101)] }), [err(['body', 'synonyms', 1], 'String should have at most 100 characters', 'string_too_long')]);
    assert422(await put('many', { root: 'r', synonyms: Array.from({ length: 50 }, (_, i) => `w${i}`) }), [
      err(['body', 'synonyms'], 'A set holds at most 50 entries (a root counts), not 51', 'too_long'),
    ]);
    assert422(await put('blank', { synonyms: ['handy', ' - '] }), [err(['body', 'synonyms', 1], 'An entry needs a letter or digit to match', 'value_error')]);
    const extra = await put('extra', { synonyms: ['a', 'b'], weight: 2 });
    assert.equal(extra.status, 422, extra.text);
    assert.deepEqual(extra.body.detail.map((d: { loc: unknown }) => d.loc), [['body', 'weight']]);
    const badId = await put('no%20spaces', { synonyms: ['a', 'b'] });
    assert.equal(badId.status, 422, badId.text);
    assert.deepEqual(badId.body.detail.map((d: { loc: unknown }) => d.loc), [['path', 'id']]);
    assert422(await put('site', { synonyms: ['a', 'b'], site_id: 'nowhere' }), [err(['body', 'site_id'], "Site 'nowhere' not found", 'site_unknown')]);

    const reader = await t.keyWith(['catalog:read', 'catalog:write', 'knowledge:read', 'knowledge:write']);
    assertInsufficientScope(await t.request('GET', SYNONYMS, { key: reader }), 'admin');
    assertInsufficientScope(await t.request('PUT', `${SYNONYMS}/x`, { key: reader, body: { synonyms: ['a', 'b'] } }), 'admin');
    assertInsufficientScope(await t.request('GET', `${SYNONYMS}/export`, { key: reader }), 'admin');
  });

  test('a Solr file in and out: comments and blank lines skipped, a bad line a 422 naming it, the export read back the same', async () => {
    const file = [
      '# phones', 'handy, smartphone, mobiltelefon', '', 'hose => jeans, chino', 'tv, fernseher, smart tv', 'a\\, b, c', 'x, y => z',
    ].join('\n');
    const imported = await t.request('POST', `${SYNONYMS}/import?site_id=shop`, { raw: file, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    assert.equal(imported.status, 200, imported.text);
    assert.deepEqual(imported.body, { imported: 6 });
    const listed = (await t.request('GET', `${SYNONYMS}?site_id=shop`)).body;
    assert.deepEqual(listed.map((s: { root: string | null; synonyms: string[] }) => [s.root, s.synonyms]).sort(), [
      [null, ['a, b', 'c']], [null, ['handy', 'smartphone', 'mobiltelefon']], [null, ['tv', 'fernseher', 'smart tv']],
      ['hose', ['jeans', 'chino']], ['x', ['z']], ['y', ['z']],
    ].sort());
    assert.deepEqual(keysOf(await search({ query: 'mobiltelefon' })), ['huelle', 'smartphone']);

    const exported = await t.request('GET', `${SYNONYMS}/export?site_id=shop`);
    assert.equal(exported.status, 200);
    assert.match(String(exported.headers['content-type']), /^text\/plain/);
    const lines = exported.text.split('\n').filter((l) => l && !l.startsWith('#'));
    assert.deepEqual([...lines].sort(), ['a\\, b, c', 'handy, smartphone, mobiltelefon', 'hose => jeans, chino', 'tv, fernseher, smart tv', 'x => z', 'y => z'].sort());

    // Read back into another language: the same sets again.
    const again = await t.request('POST', `${SYNONYMS}/import?language=en`, { raw: exported.text, headers: { 'content-type': 'text/plain' } });
    assert.deepEqual(again.body, { imported: 6 });
    const en = (await t.request('GET', `${SYNONYMS}?language=en&limit=200`)).body;
    assert.deepEqual(en.map((s: { root: string | null; synonyms: string[] }) => [s.root, s.synonyms]).sort(),
      listed.map((s: { root: string | null; synonyms: string[] }) => [s.root, s.synonyms]).sort());

    const bad = await t.request('POST', `${SYNONYMS}/import`, { raw: 'ok, fine\nlonely\n# fine\na,,b\n', headers: { 'content-type': 'text/plain' } });
    assert422(bad, [
      err(['body', 2], 'Line 2: A set needs at least 2 different entries (a root counts), not 1 (synonyms)', 'too_short'),
      err(['body', 4], 'Line 4: has an empty entry (two commas in a row, or one at an end)', 'value_error'),
    ]);
    assert.equal((await t.request('GET', SYNONYMS + '?limit=200')).headers['x-total-count'], '12', 'nothing of a bad file is stored');
    assertError(await t.request('POST', `${SYNONYMS}/import`, { body: { synonyms: ['a', 'b'] } }), 415);
  });

  test('an entry starting with # is exported with a backslash before it, so that the file reads back the same set, not a comment', async () => {
    assert.equal((await put('hash', { synonyms: ['#secret', 'geheim'], language: 'fr' })).status, 201);
    assert.equal((await put('hash-root', { root: '#tag', synonyms: ['etikett', '#b'], language: 'fr' })).status, 201);
    const exported = await t.request('GET', `${SYNONYMS}/export?language=fr`);
    assert.equal(exported.status, 200, exported.text);
    const lines = exported.text.split('\n').filter((l) => l && !l.startsWith('#'));
    assert.deepEqual([...lines].sort(), ['\\#secret, geheim', '\\#tag => etikett, #b'].sort());
    const again = await t.request('POST', `${SYNONYMS}/import?language=it`, { raw: exported.text, headers: { 'content-type': 'text/plain' } });
    assert.deepEqual(again.body, { imported: 2 }, again.text);
    const it = (await t.request('GET', `${SYNONYMS}?language=it`)).body;
    assert.deepEqual(it.map((s: { root: string | null; synonyms: string[] }) => [s.root, s.synonyms]).sort(), [[null, ['#secret', 'geheim']], ['#tag', ['etikett', '#b']]].sort());
  });

  test('an entry holding a control character (NUL, tab, …) is a 422 naming it, in a body and in a file', async () => {
    assert422(await put('nul', { synonyms: ['handy', 'smart\u0000phone'] }), [
      err(['body', 'synonyms', 1], 'An entry may not hold a control character (U+0000)', 'value_error'),
    ]);
    assert422(await put('tab', { root: 'hand\ty', synonyms: ['smartphone'] }), [err(['body', 'root'], 'An entry may not hold a control character (U+0009)', 'value_error')]);
    assert422(await put('bell', { synonyms: ['handy', 'smartphone\u0007'] }), [
      err(['body', 'synonyms', 1], 'An entry may not hold a control character (U+0007)', 'value_error'),
    ]);
    assertError(await t.request('GET', `${SYNONYMS}/nul`), 404);
    const bad = await t.request('POST', `${SYNONYMS}/import?language=nl`, { raw: 'ok, fine\nhan\u0000dy, smartphone\nx => y\u001f\n', headers: { 'content-type': 'text/plain' } });
    assert422(bad, [
      err(['body', 2], 'Line 2: An entry may not hold a control character (U+0000) (synonyms.0)', 'value_error'),
      err(['body', 3], 'Line 3: An entry may not hold a control character (U+001F) (synonyms.0)', 'value_error'),
    ]);
    assert.deepEqual((await t.request('GET', `${SYNONYMS}?language=nl`)).body, [], 'nothing of a bad file is stored');
  });

  test('an unknown site_id of an import is a 422 at the query parameter', async () => {
    assert422(await t.request('POST', `${SYNONYMS}/import?site_id=nowhere`, { raw: 'a, b\n', headers: { 'content-type': 'text/plain' } }), [
      err(['query', 'site_id'], "Site 'nowhere' not found", 'site_unknown'),
    ]);
  });
});
