// The onnx embedder on its own, with the tiny model the tests write (test/helpers/onnxModel.ts):
// what it reads from the directory, mean pooling, prefixes per purpose, the token window, and
// the same vectors from the thread pool as in this thread.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { describeOnnxModel, OnnxEmbedder } from '../../src/embed/onnx.js';
import { ThreadedEmbedder } from '../../src/embed/threads.js';
import { ONNX_TEST_DIMENSION, ONNX_TEST_MAX_TOKENS, writeOnnxTestModel } from '../helpers/onnxModel.js';

const root = mkdtempSync(join(tmpdir(), 'kcs-onnx-'));
const dir = writeOnnxTestModel(join(root, 'tiny-de-en'));
const options = { modelDir: dir, languages: ['de', 'en'], queryPrefix: '', documentPrefix: '' };
const embedder = new OnnxEmbedder(options);
after(async () => {
  await embedder.close();
  rmSync(root, { recursive: true, force: true });
});

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i], 0);

describe('the model directory', () => {
  test('model id from the directory name and the model file, dimension and window from the configs', () => {
    const info = describeOnnxModel(dir);
    assert.match(info.modelId, /^onnx:tiny-de-en:[0-9a-f]{12}$/);
    assert.equal(info.dimension, ONNX_TEST_DIMENSION);
    assert.equal(info.maxTokens, ONNX_TEST_MAX_TOKENS);
    assert.equal(embedder.modelId, info.modelId);
  });

  test('a directory without a model, a tokenizer or a dimension is refused with the reason', () => {
    const empty = mkdtempSync(join(root, 'empty-'));
    assert.throws(() => describeOnnxModel(empty), /holds no ONNX model/);
    const noDimension = writeOnnxTestModel(join(root, 'no-dimension'));
    writeFileSync(join(noDimension, 'config.json'), '{}');
    assert.throws(() => describeOnnxModel(noDimension), /names no hidden_size/);
  });

  test('another model file is another model id', () => {
    const other = writeOnnxTestModel(join(root, 'tiny-de-en-2'));
    // The same graph with one more (empty) field: other bytes.
    writeFileSync(join(other, 'model.onnx'), Buffer.concat([readFileSync(join(dir, 'model.onnx')), Buffer.from([0x12, 0x00])]));
    assert.notEqual(describeOnnxModel(other).modelId.split(':')[2], describeOnnxModel(dir).modelId.split(':')[2]);
  });
});

describe('vectors', () => {
  test('unit length, the mean of the token vectors: German and English words of one meaning point alike', async () => {
    const [puppy, dogLeash, coffee, englishDog] = await embedder.embed(['Welpe', 'Eine Leine für Hunde', 'Kaffee und Espresso', 'a leash for the dog']);
    for (const v of [puppy, dogLeash, coffee]) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
    assert.ok(dot(puppy, dogLeash) > 0.8, `Welpe ~ Leine für Hunde: ${dot(puppy, dogLeash)}`);
    assert.ok(dot(puppy, coffee) < 0.2, `Welpe ≁ Kaffee: ${dot(puppy, coffee)}`);
    assert.ok(dot(dogLeash, englishDog) > 0.95, `the same meaning across languages: ${dot(dogLeash, englishDog)}`);
  });

  test('a text is cut at the model window: what follows it changes nothing', async () => {
    const head = Array.from({ length: 40 }, () => 'hund').join(' ');
    const [cut, longer] = await embedder.embed([head, `${head} kaffee kaffee kaffee`]);
    assert.deepEqual(Array.from(longer), Array.from(cut));
  });

  test('the query and document prefixes are put before the text of their purpose', async () => {
    const prefixed = new OnnxEmbedder({ ...options, queryPrefix: 'kaffee ', documentPrefix: '' });
    const [asQuery] = await prefixed.embed(['hund'], 'query');
    const [asDocument] = await prefixed.embed(['hund'], 'document');
    await prefixed.close();
    assert.ok(asQuery[ONNX_TEST_DIMENSION - 1] === 0 && dot(asQuery, asDocument) < 0.9, 'the query carries the coffee prefix');
    assert.equal(dot(asDocument, (await embedder.embed(['hund']))[0]).toFixed(5), '1.00000');
  });

  test('on the thread pool: the same vectors, the calls spread over the threads', async () => {
    const threaded = new ThreadedEmbedder({ provider: 'onnx', ...options }, embedder, { threads: 2, nice: 19, idle: true });
    try {
      const texts = ['Welpe', 'Sattel für das Fahrrad', 'Regenjacke', 'Kaffee'];
      const [inThread, here] = await Promise.all([Promise.all(texts.map((text) => threaded.embed([text]))), embedder.embed(texts)]);
      inThread.forEach(([v], i) => assert.ok(dot(v, here[i]) > 0.99999, texts[i]));
      assert.equal(threaded.parallelism, 2);
    } finally {
      await threaded.close();
    }
  });
});
