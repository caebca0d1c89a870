// The embedder's configuration: local by default on every core at the lowest priority, onnx with
// a model directory that must exist, and one readable line for each bad value.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { problemsOf } from '../helpers/configProblems.js';

const query = { threads: 1, nice: 5 };

test('defaults: the local model, a thread per core, nice 19 and SCHED_IDLE, batches of 64; queries on one thread at nice 5', () => {
  assert.deepEqual(loadConfig({}).embedding, { provider: 'local', batchSize: 64, threads: availableParallelism(), nice: 19, idle: true, query });
  assert.deepEqual(loadConfig({ KCS_EMBED_THREADS: '1', KCS_EMBED_NICE: '5' }).embedding, { provider: 'local', batchSize: 64, threads: 1, nice: 5, idle: true, query });
  assert.deepEqual(loadConfig({ KCS_QUERY_EMBED_THREADS: '2', KCS_QUERY_EMBED_NICE: '0' }).embedding.query, { threads: 2, nice: 0 });
  assert.equal(loadConfig({ KCS_EMBED_IDLE: 'off' }).embedding.idle, false);
  // The embed jobs' lock: BullMQ's 30 s unless set.
  assert.equal(loadConfig({}).embedLockMs, 30_000);
  assert.equal(loadConfig({ KCS_EMBED_LOCK_MS: '2000' }).embedLockMs, 2000);
});

test('onnx: the model directory, its languages (de,en unless set) and the prefixes of queries and documents', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kcs-onnx-config-'));
  try {
    assert.deepEqual(loadConfig({ KCS_EMBEDDER: 'onnx', KCS_ONNX_MODEL_DIR: dir }).embedding, {
      provider: 'onnx', batchSize: 64, threads: availableParallelism(), nice: 19, idle: true, query, modelDir: dir, languages: ['de', 'en'], queryPrefix: '', documentPrefix: '',
    });
    const floor = loadConfig({ KCS_EMBEDDER: 'onnx', KCS_ONNX_MODEL_DIR: dir, KCS_ONNX_MIN_SIMILARITY: '0.85' }).embedding;
    assert.equal(floor.provider === 'onnx' && floor.minSimilarity, 0.85);
    const e5 = loadConfig({ KCS_EMBEDDER: 'onnx', KCS_ONNX_MODEL_DIR: dir, KCS_ONNX_LANGUAGES: 'de, FR', KCS_ONNX_QUERY_PREFIX: 'query: ', KCS_ONNX_DOCUMENT_PREFIX: 'passage: ' }).embedding;
    assert.deepEqual(e5.provider === 'onnx' && [e5.languages, e5.queryPrefix, e5.documentPrefix], [['de', 'fr'], 'query: ', 'passage: ']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('one line for each bad value', () => {
  assert.deepEqual(problemsOf({ KCS_EMBEDDER: 'onnx' }), ['KCS_ONNX_MODEL_DIR must name a model directory (model.onnx, tokenizer.json, as Hugging Face exports them) when KCS_EMBEDDER=onnx']);
  assert.deepEqual(problemsOf({ KCS_EMBEDDER: 'onnx', KCS_ONNX_MODEL_DIR: '/nonexistent/model' }), ['KCS_ONNX_MODEL_DIR="/nonexistent/model" does not exist']);
  assert.deepEqual(problemsOf({ KCS_EMBED_THREADS: '0', KCS_EMBED_NICE: '20' }), ['KCS_EMBED_THREADS="0" must be an integer from 1 to 64', 'KCS_EMBED_NICE="20" must be an integer from 0 to 19']);
  assert.match(problemsOf({ KCS_EMBEDDER: 'tensorflow' })[0], /KCS_EMBEDDER.*local, onnx, hf, none/);
  assert.match(problemsOf({ KCS_EMBED_IDLE: 'yes' })[0], /KCS_EMBED_IDLE.*on, off/);
  assert.deepEqual(problemsOf({ KCS_EMBED_LOCK_MS: '999' }), ['KCS_EMBED_LOCK_MS="999" must be an integer from 1000 to 3600000']);
  assert.deepEqual(problemsOf({ KCS_EMBEDDER: 'hf', KCS_HF_MODEL: 'm', KCS_HF_MIN_SIMILARITY: '1.5' }), ['KCS_HF_MIN_SIMILARITY="1.5" must be a cosine similarity from 0 to 1']);
});
