// The SearchEngine contract: knowledge search under the read rules (visibility ceiling, personal
// entries, expiry, list filters, semantic and hybrid, paging) and related entries.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { VISIBLE_UNDER, access, axis, keysOf, sorted } from '../fixtures.js';
import { A, engine, type TenantData, assertKeywordRanks, entries, entryKeys } from './fixtures.js';

export function knowledgeCases(): void {
  // ---- knowledge ---------------------------------------------------------------------------

  describe('knowledge search and the read rules', () => {
    const policy = async (userId: string, visibilities: readonly string[], includeExpired = false, query = 'policy') =>
      sorted(await entryKeys(A, { query, filters: { access: access(userId, visibilities, includeExpired) } }));

    test('the ceiling (visibilities), own personal entries only, expired memories hidden', async () => {
      const owner = A.kb.owner;
      assert.deepEqual(await policy(owner, VISIBLE_UNDER.public), ['fresh', 'glossary', 'mine', 'public']);
      assert.deepEqual(await policy(owner, VISIBLE_UNDER.community), ['community', 'fresh', 'glossary', 'mine', 'public']);
      assert.deepEqual(await policy(owner, VISIBLE_UNDER.internal), ['community', 'fresh', 'glossary', 'internal', 'mine', 'public', 'workspace']);
      assert.deepEqual(await policy(owner, VISIBLE_UNDER.restricted), ['community', 'fresh', 'glossary', 'internal', 'mine', 'public', 'restricted', 'workspace']);
      assert.deepEqual(await policy(owner, VISIBLE_UNDER.restricted, true), ['community', 'expired', 'fresh', 'glossary', 'internal', 'mine', 'public', 'restricted', 'workspace']);
      assert.deepEqual(await policy(A.kb.other, VISIBLE_UNDER.public), ['fresh', 'glossary', 'public', 'theirs']);
      assert.deepEqual(await policy(randomUUID(), VISIBLE_UNDER.restricted, true), ['community', 'expired', 'fresh', 'glossary', 'internal', 'public', 'restricted', 'workspace'], 'a stranger: no personal entries at all');
    });

    test('the same rules when browsing without a query', async () => {
      assert.deepEqual(await policy(A.kb.owner, VISIBLE_UNDER.public, false, ''), ['fresh', 'glossary', 'mine', 'public']);
      const all = await entries(A, { filters: { access: access(A.kb.other, VISIBLE_UNDER.restricted, true) } });
      assert.equal(all.total, 10 - 1);
      assertKeywordRanks(all.hits);
    });

    test('expiry is judged against access.now', async () => {
      const later = { ...access(A.kb.owner, VISIBLE_UNDER.public), now: Date.now() + 2 * 86_400_000 };
      assert.ok(!keysOf((await entries(A, { query: 'policy', filters: { access: later } })).hits, A.kb.key).includes('fresh'));
      const earlier = { ...access(A.kb.owner, VISIBLE_UNDER.public), now: Date.parse('2000-01-01T00:00:00Z') };
      assert.ok(keysOf((await entries(A, { query: 'policy', filters: { access: earlier } })).hits, A.kb.key).includes('expired'));
    });

    test('list filters: type, category, project, visibility, layer, tags, language', async () => {
      const everything = access(A.kb.owner, VISIBLE_UNDER.restricted, true);
      const f = async (filters: Record<string, unknown>, who = everything) => sorted(await entryKeys(A, { query: 'policy', filters: { access: who, ...filters } }));
      assert.deepEqual(await f({ type: 'memory' }), ['expired', 'fresh']);
      assert.deepEqual(await f({ type: 'memory' }, access(A.kb.owner, VISIBLE_UNDER.restricted)), ['fresh']);
      assert.deepEqual(await f({ categoryId: A.kb.categories.glossary }), ['glossary']);
      assert.deepEqual(await f({ projectId: A.kb.projectId }), ['glossary']);
      assert.deepEqual(await f({ visibility: 'internal' }), ['internal']);
      assert.deepEqual(await f({ visibility: 'personal' }), ['mine']);
      assert.deepEqual(await f({ visibility: 'restricted' }, access(A.kb.owner, VISIBLE_UNDER.internal)), [], 'a visibility filter never lifts the ceiling');
      assert.deepEqual(await f({ layer: 'core' }), ['glossary']);
      assert.deepEqual(await f({ tags: ['nope', 'terms'] }), ['glossary']);
      assert.deepEqual(await f({ language: 'de' }), ['glossary']);
    });

    test('semantic knowledge search: nearest readable entries only', async () => {
      const result = await entries(A, { mode: 'semantic', vector: axis(8), filters: { access: access(A.kb.owner, VISIBLE_UNDER.public) } });
      const found = keysOf(result.hits, A.kb.key);
      assert.equal(found[0], 'public');
      assert.equal(found[1], 'mine');
      for (const hidden of ['restricted', 'theirs', 'expired', 'community', 'internal']) assert.ok(!found.includes(hidden), `${hidden} is not readable`);
      result.hits.forEach((h, i) => assert.deepEqual(h.ranks, { keyword: null, semantic: i + 1 }));
    });

    test('semantic knowledge search applies the list filters', async () => {
      const who = access(A.kb.owner, VISIBLE_UNDER.restricted);
      const memories = await entryKeys(A, { mode: 'semantic', vector: axis(8), filters: { access: who, type: 'memory' } });
      assert.deepEqual(memories, ['fresh'], 'memories only, and not the expired one');
      // The glossary entry is German: semantic ranking needs a model that serves de.
      const glossary = await entryKeys(A, { mode: 'semantic', vector: axis(8), semanticLanguages: ['en', 'de'], filters: { access: who, tags: ['faq'], categoryId: A.kb.categories.glossary } });
      assert.deepEqual(glossary, ['glossary']);
      const englishOnly = await entryKeys(A, { mode: 'semantic', vector: axis(8), filters: { access: who, tags: ['faq'], categoryId: A.kb.categories.glossary } });
      assert.deepEqual(englishOnly, [], 'a German entry is not ranked by an English-only model');
      const internal = await entryKeys(A, { mode: 'semantic', vector: axis(8), filters: { access: who, visibility: 'internal', language: 'de' } });
      assert.deepEqual(internal, []);
    });

    test('hybrid knowledge search carries both ranks', async () => {
      const result = await entries(A, { query: 'returns', mode: 'hybrid', vector: axis(8), filters: { access: access(A.kb.owner, VISIBLE_UNDER.public) } });
      assert.equal(keysOf(result.hits, A.kb.key)[0], 'public');
      assert.deepEqual(result.hits[0].ranks, { keyword: 1, semantic: 1 });
    });

    test('paging and total (equal scores page consistently)', async () => {
      const who = access(A.kb.owner, VISIBLE_UNDER.restricted, true);
      const full = await entries(A, { query: 'policy', filters: { access: who } });
      assert.equal(full.total, 9);
      const pages: string[] = [];
      for (let offset = 0; offset < 9; offset += 4) {
        const page = await entries(A, { query: 'policy', limit: 4, offset, filters: { access: who } });
        assert.equal(page.total, 9, `total on the page at ${offset}`);
        assertKeywordRanks(page.hits, offset);
        pages.push(...page.hits.map((h) => h.id));
      }
      assert.deepEqual(pages, full.hits.map((h) => h.id));
      const beyond = await entries(A, { query: 'policy', limit: 4, offset: 20, filters: { access: who } });
      assert.deepEqual(beyond.hits, []);
      assert.equal(beyond.total, 9);
    });
  });

  describe('relatedEntries', () => {
    const related = (entryKey: string, userId: string, visibilities: readonly string[], includeExpired = false, t: TenantData = A) =>
      engine.relatedEntries(t.tenantId, t.kb.id[entryKey], { limit: 20, offset: 0, access: access(userId, visibilities, includeExpired) });

    test('nearest readable entries, never the origin, never unreadable ones', async () => {
      const low = await related('public', A.kb.owner, VISIBLE_UNDER.public);
      assert.ok(low);
      const lowKeys = keysOf(low.hits, A.kb.key);
      assert.equal(lowKeys[0], 'mine');
      for (const hidden of ['public', 'restricted', 'theirs', 'expired', 'community', 'internal', 'workspace']) assert.ok(!lowKeys.includes(hidden), `${hidden}: ${lowKeys}`);
      const high = await related('public', A.kb.owner, VISIBLE_UNDER.restricted);
      assert.deepEqual(keysOf(high!.hits, A.kb.key).slice(0, 4), ['restricted', 'community', 'internal', 'mine']);
      const withExpired = await related('public', A.kb.owner, VISIBLE_UNDER.public, true);
      assert.ok(keysOf(withExpired!.hits, A.kb.key).includes('expired'));
    });

    test('null for an origin the reader may not read, an expired one, or an unknown one', async () => {
      assert.equal(await related('theirs', A.kb.owner, VISIBLE_UNDER.restricted), null);
      assert.equal(await related('restricted', A.kb.owner, VISIBLE_UNDER.internal), null);
      assert.equal(await related('expired', A.kb.owner, VISIBLE_UNDER.public), null);
      assert.ok(await related('expired', A.kb.owner, VISIBLE_UNDER.public, true));
      assert.ok(await related('theirs', A.kb.other, VISIBLE_UNDER.public), 'its owner may');
      assert.equal(await engine.relatedEntries(A.tenantId, randomUUID(), { limit: 10, offset: 0, access: access(A.kb.owner, VISIBLE_UNDER.restricted) }), null);
    });
  });
}
