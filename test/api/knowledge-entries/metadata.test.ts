// Knowledge entry metadata, checked and normalised per type on create and update.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { assert422 } from '../../helpers/assertions.js';
import { newCategory } from '../../helpers/fixtures.js';
import { stack, useStack, ENTRIES, TYPES, type Body, err, enumOf, uuidParsing, listType, stringType, ge, le, entryBody, create, getOk, put, putOk } from './fixtures.js';

useStack();

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
