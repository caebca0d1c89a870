// The text index's per-document term lists in one shared pool: checked against a plain Map under
// random sets and drops, through many compactions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TermLists } from '../../src/search/builtin/termLists.js';
import { seeded } from './fixtures.js';

test('every list reads back as last set, through appends, drops and compactions', () => {
  const lists = new TermLists();
  const model = new Map<number, number[]>();
  const random = seeded(42);
  for (let step = 0; step < 20_000; step++) {
    const doc = Math.floor(random() * 3000);
    if (random() < 0.2) {
      lists.drop(doc);
      model.delete(doc);
    } else {
      const ids = Array.from({ length: Math.floor(random() * 40) }, () => Math.floor(random() * 1e6));
      lists.set(doc, ids);
      model.set(doc, ids);
    }
  }
  for (let doc = 0; doc < 3100; doc++) {
    assert.equal(lists.has(doc), model.has(doc), `doc ${doc} has a list`);
    if (model.has(doc)) assert.deepEqual([...lists.get(doc)], model.get(doc), `doc ${doc}'s list`);
  }
});

test('a list read before a later set stays as it was (the text index reads a document\'s old terms after storing its new ones)', () => {
  const lists = new TermLists();
  lists.set(1, [1, 2, 3]);
  const before = lists.get(1);
  for (let doc = 0; doc < 5000; doc++) lists.set(doc, [doc, doc + 1]);
  assert.deepEqual([...before], [1, 2, 3]);
  assert.deepEqual([...lists.get(1)], [1, 2]);
});
