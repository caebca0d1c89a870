// The built-in engine's text index under churn: documents re-indexed with new words many times
// over keep a vocabulary of the words they hold now, and find by those words only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TextIndex } from '../../src/search/textIndex.js';
import type { QueryWord } from '../../src/search/analysis.js';

const word = (term: string): QueryWord => ({ word: term, terms: [term], fuzzy: 0, prefix: null });
const found = (index: TextIndex, term: string) => {
  const m = index.match([word(term)]);
  return [...m.docs.subarray(0, m.count)].sort((a, b) => a - b);
};

test('re-indexing with ever new words keeps the vocabulary to the words documents hold', () => {
  const index = new TextIndex();
  const docs = 50;
  for (let round = 0; round < 200; round++) {
    for (let doc = 0; doc < docs; doc++) {
      index.set(doc, [{ field: 0, terms: ['shoe', `sku${round}x${doc}`, `lot${round}`], weight: 1 }]);
    }
  }
  // shoe + 50 sku terms + one lot term: the 9,950 words of earlier rounds are gone.
  assert.equal(index.vocabulary, 1 + docs + 1);
  assert.equal(index.size, docs);
  assert.deepEqual(found(index, 'sku199x7'), [7]);
  assert.deepEqual(found(index, 'sku198x7'), [], 'an old word finds nothing');
  assert.equal(found(index, 'shoe').length, docs);
  assert.equal(found(index, 'lot199').length, docs);

  for (let doc = 0; doc < docs; doc += 2) index.remove(doc);
  assert.equal(index.vocabulary, 1 + docs / 2 + 1);
  assert.equal(found(index, 'shoe').length, docs / 2);
  // A reused term id starts empty: a new word finds only its own document.
  index.set(0, [{ field: 0, terms: ['boot'], weight: 1 }]);
  assert.deepEqual(found(index, 'boot'), [0]);
  assert.deepEqual(found(index, 'sku199x0'), []);
});
