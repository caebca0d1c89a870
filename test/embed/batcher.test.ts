// The micro-batcher on its own, with a counting embedder: texts of concurrent callers share model
// calls of at most 4 texts, as many at once as the embedder has threads; hold() keeps new calls
// from starting until release(); close() refuses what has not reached the model.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { test } from 'node:test';
import { BatcherClosedError, MicroBatcher } from '../../src/embed/batcher.js';
import type { Embedder } from '../../src/embed/embedder.js';

class CountingEmbedder implements Embedder {
  readonly modelId = 'counting';
  readonly dimension = 1;
  readonly languages = ['en'];
  readonly minSimilarity = 0;
  calls: number[] = [];
  running = 0;
  mostAtOnce = 0;
  constructor(readonly parallelism: number) {}
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls.push(texts.length);
    this.mostAtOnce = Math.max(this.mostAtOnce, ++this.running);
    await delay(20);
    this.running--;
    return texts.map((t) => Float32Array.of(t.length));
  }
}

test('callers share calls of at most 4 texts, at most `parallelism` at once, each caller gets its own vectors', async () => {
  const embedder = new CountingEmbedder(2);
  const batcher = new MicroBatcher(embedder, 64);
  const callers = Array.from({ length: 20 }, (_, i) => batcher.embed(['x'.repeat(i + 1), 'y'.repeat(i + 1), 'z']));
  const results = await Promise.all(callers);
  results.forEach((vectors, i) => assert.deepEqual(vectors.map((v) => v[0]), [i + 1, i + 1, 1]));
  assert.equal(embedder.calls.reduce((a, b) => a + b), 60);
  assert.ok(embedder.calls.every((n) => n <= 4), `calls: ${embedder.calls}`);
  assert.equal(embedder.calls.length, 15, 'full calls: 60 texts in 15');
  assert.equal(embedder.mostAtOnce, 2);
});

test('hold: no call starts until release', async () => {
  const embedder = new CountingEmbedder(1);
  const batcher = new MicroBatcher(embedder, 1);
  batcher.hold();
  let done = false;
  const pending = batcher.embed(['a']).then((v) => ((done = true), v));
  await delay(50);
  assert.equal(done, false);
  assert.deepEqual(embedder.calls, []);
  batcher.release();
  assert.deepEqual((await pending).map((v) => v[0]), [1]);
});

test('hold: calls waiting for a thread when it begins do not start either; after release every thread is used again', async () => {
  const embedder = new CountingEmbedder(2);
  const batcher = new MicroBatcher(embedder, 64);
  // 64 texts: sixteen calls of 4, two running and fourteen waiting for a thread.
  const pending = batcher.embed(Array.from({ length: 64 }, (_, i) => `t${i}`));
  await delay(5);
  assert.equal(embedder.running, 2);
  batcher.hold();
  await delay(60);
  assert.deepEqual(embedder.calls, [4, 4], 'the two running calls finished; the waiting ones did not start');
  assert.equal(embedder.running, 0);
  batcher.release();
  await delay(5);
  assert.equal(embedder.running, 2, 'both waiting calls start at once');
  assert.equal((await pending).length, 64);
});

test('close refuses new texts and calls not started (held ones included)', async () => {
  const batcher = new MicroBatcher(new CountingEmbedder(1), 1);
  batcher.hold();
  const held = batcher.embed(['a']);
  await delay(10);
  batcher.close();
  await assert.rejects(held, BatcherClosedError);
  await assert.rejects(batcher.embed(['b']), BatcherClosedError);
});
