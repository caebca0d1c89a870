// The text index's postings in one pool of short lists and arrays of their own for long ones:
// checked against a plain Map under random pushes, clears and compactions, through many moves
// and repacks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PostingsPool } from '../../src/search/builtin/postingsPool.js';
import { seeded } from './fixtures.js';

interface Posting {
  doc: number;
  gen: number;
  weight: number;
}

const read = (pool: PostingsPool, term: number): Posting[] => {
  const { docs, gens, weights } = pool.listsOf(term);
  const from = pool.offset(term);
  return Array.from({ length: pool.length[term] }, (_, i) => ({ doc: docs[from + i], gen: gens[from + i], weight: weights[from + i] }));
};

test('every list reads back as pushed, through moves to larger regions, repacks and lists of their own', () => {
  const pool = new PostingsPool();
  const model = new Map<number, Posting[]>();
  const random = seeded(7);
  const terms = Array.from({ length: 3000 }, () => pool.add());
  for (let step = 0; step < 60_000; step++) {
    // A few frequent terms (long lists, past the pool's limit) among many rare ones.
    if (step === 30_000) {
      // A frequent term's list of its own given back halfway; it grows again after.
      assert.ok(pool.length[terms[1]] > 64, 'a frequent term outgrew the pool');
      pool.clear(terms[1]);
      model.set(terms[1], []);
    }
    const frequent = random() < 0.3;
    const term = frequent ? terms[Math.floor(random() * 5)] : terms[Math.floor(random() * terms.length)];
    if (!frequent && random() < 0.02) {
      pool.clear(term);
      model.set(term, []);
      continue;
    }
    // Weights a Float32Array holds exactly.
    const posting = { doc: Math.floor(random() * 1e6), gen: Math.floor(random() * 1000), weight: Math.floor(random() * 1000) / 8 };
    pool.push(term, posting.doc, posting.gen, posting.weight);
    model.set(term, [...(model.get(term) ?? []), posting]);
  }
  for (const term of terms) assert.deepEqual(read(pool, term), model.get(term) ?? [], `term ${term}'s list`);
  assert.ok(pool.length[terms[1]] > 64, 'the cleared term grew past the pool again');
});

test('compact keeps the postings of each document\'s current generation, in order', () => {
  const pool = new PostingsPool();
  const [short, long] = [pool.add(), pool.add()];
  const docGen = new Int32Array(200);
  for (let doc = 0; doc < 200; doc++) {
    docGen[doc] = 1;
    pool.push(long, doc, 1, doc);
    if (doc < 10) pool.push(short, doc, 1, doc);
  }
  // Even documents re-indexed (generation 2, their new postings appended); every third one removed (0).
  for (let doc = 0; doc < 200; doc += 2) {
    docGen[doc] = 2;
    pool.push(long, doc, 2, doc + 0.5);
    if (doc < 10) pool.push(short, doc, 2, doc + 0.5);
  }
  for (let doc = 0; doc < 200; doc += 3) docGen[doc] = 0;
  const live = (doc: number, gen: number) => docGen[doc] === gen;
  const expected = (n: number) => [
    ...Array.from({ length: n }, (_, doc) => ({ doc, gen: 1, weight: doc })),
    ...Array.from({ length: n / 2 }, (_, i) => ({ doc: 2 * i, gen: 2, weight: 2 * i + 0.5 })),
  ].filter((p) => live(p.doc, p.gen));
  for (const [term, n] of [[short, 10], [long, 200]] as const) {
    pool.compact(term, docGen);
    assert.deepEqual(read(pool, term), expected(n), `term ${term}`);
    assert.equal(pool.stale[term], 0);
  }
});

test('a cleared term starts empty, and its list grows again from nothing', () => {
  const pool = new PostingsPool();
  const term = pool.add();
  for (let doc = 0; doc < 500; doc++) pool.push(term, doc, 1, 1);
  pool.df[term] = 500;
  pool.clear(term);
  assert.equal(pool.length[term], 0);
  assert.equal(pool.df[term], 0);
  pool.push(term, 9, 3, 0.25);
  assert.deepEqual(read(pool, term), [{ doc: 9, gen: 3, weight: 0.25 }]);
});
