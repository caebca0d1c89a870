// The built-in engine's text index: under churn, documents re-indexed with new words many times
// over keep a vocabulary of the words they hold now, and find by those words only; the word being
// typed completes to names only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TextIndex } from '../../src/search/builtin/textIndex.js';
import { analyzeQuery, type QueryWord } from '../../src/search/analysis.js';

/** One field of text in a language without a stemmer: its words are its terms. */
const text = (words: string) => ({ language: 'xx', texts: [words], fields: [{ weight: 1, completes: true }] });
const word = (term: string): QueryWord => ({ word: term, terms: [term], typoTerms: [term], fuzzy: 0, prefixes: [], readings: [], span: 1 });
const found = (index: TextIndex, term: string) => {
  const m = index.match([word(term)]);
  return [...m.docs.subarray(0, m.count)].sort((a, b) => a - b);
};

test('re-indexing with ever new words keeps the vocabulary to the words documents hold', () => {
  const index = new TextIndex();
  const docs = 50;
  for (let round = 0; round < 200; round++) {
    for (let doc = 0; doc < docs; doc++) {
      index.set(doc, text(`shoe sku${round}x${doc} lot${round}`));
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
  index.set(0, text('boot'));
  assert.deepEqual(found(index, 'boot'), [0]);
  assert.deepEqual(found(index, 'sku199x0'), []);
});

test('words stay with their terms while term ids are freed and reused (past the quarantine of freed ids)', () => {
  const index = new TextIndex();
  // Each round gives every document a word of its own that the previous round's word leaves behind:
  // 24,000 terms die, so freed ids are reused after the word caches were cleared, twice over.
  for (let round = 0; round < 240; round++) {
    for (let doc = 0; doc < 100; doc++) index.set(doc, text(`common w${(round + doc) % 300}x${doc}`));
  }
  // Every current word finds its one document; a word of an earlier round finds nothing.
  for (let doc = 0; doc < 100; doc++) assert.deepEqual(found(index, `w${(239 + doc) % 300}x${doc}`), [doc]);
  assert.deepEqual(found(index, 'w238x0'), []);
  assert.equal(found(index, 'common').length, 100);
  assert.equal(index.vocabulary, 1 + 100);
  // A word reborn under a new id: doc 5 takes back a word it held 100 rounds ago.
  index.set(5, text('w144x5 common'));
  assert.deepEqual(found(index, 'w144x5'), [5]);
  assert.deepEqual(found(index, `w${(239 + 5) % 300}x5`), []);
});

test('the word being typed completes to the words of completing fields only, and a finished word is no typo of a longer one', () => {
  const index = new TextIndex();
  const fields = [{ weight: 3, completes: true }, { weight: 1, completes: false }];
  index.set(0, { language: 'de', texts: ['Schmutzfangmatte waschbar', 'Bei 30 °C waschmaschinenfest, mit Gummirücken.'], fields });
  index.set(1, { language: 'de', texts: ['Waschmaschinenschlauch', null], fields });
  const hits = (query: string) => {
    const m = index.match(analyzeQuery(query, { stemming: null, language: 'de' }));
    return [...m.docs.subarray(0, m.count)].sort((a, b) => a - b);
  };
  assert.deepEqual(hits('schmutzf'), [0], 'a title word completes');
  assert.deepEqual(hits('gummir'), [], 'a description word does not');
  assert.deepEqual(hits('gummirücken'), [0], 'the whole word matches');
  assert.deepEqual(hits('waschmaschinenfest'), [0]);
  assert.deepEqual(hits('waschmaschine'), [1], 'completes to the title, not the description');
  // The stem of "waschmaschinenfest" is "waschmaschinenf", two letters from the word "waschmaschine":
  // typo variants are sought for the query's stem ("waschmaschin"), as the index holds words.
  assert.deepEqual(hits('waschmaschine '), [], 'no completion, no typo');
  assert.deepEqual(hits('schmutzfangmate '), [0], 'a real typo still matches');
});
