// The query embedding model loads in the background at start, never on a shopper's request: /readyz
// answers 503 (semantic: loading) until it is loaded, then 200 with semantic: ready, before any
// search ran; semantic: off without an embedder; failed (ready, searches by keyword) when the
// model cannot be loaded.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, test } from 'node:test';
import { writeOnnxTestModel } from '../helpers/onnxModel.js';
import { startStack, type Stack } from '../helpers/stack.js';

const root = mkdtempSync(join(tmpdir(), 'kcs-query-model-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** /readyz until it answers 200 (every answer before: 503 starting, the query model loading); its body then. */
async function readyBody(stack: Stack): Promise<Record<string, unknown>> {
  for (const deadline = Date.now() + 60_000; ; await delay(50)) {
    const res = await stack.request('GET', '/readyz');
    if (res.status === 200) return res.body;
    assert.equal(res.status, 503, res.text);
    assert.equal(res.body.status, 'starting', res.text);
    assert.ok(Date.now() < deadline, `not ready: ${res.text}`);
  }
}

test('the local model: /readyz says semantic loading, then ready, with no search having asked for it', async () => {
  const stack = await startStack({ KCS_EMBEDDER: 'local' }, { workers: false });
  try {
    const first = await stack.request('GET', '/readyz');
    assert.ok(first.status === 200 || first.body.semantic === 'loading', `503 only while the model loads: ${first.text}`);
    const body = await readyBody(stack);
    assert.equal(body.status, 'ready');
    assert.equal(body.semantic, 'ready');
    const t = await stack.tenant();
    const res = await t.request('POST', '/api/knowledge/search/products', { body: { query: 'rain jacket', language: 'en', mode: 'semantic' } });
    assert.deepEqual([res.status, res.body.mode, res.body.semantic_fallback], [200, 'semantic', null], res.text);
  } finally {
    await stack.close();
  }
});

test('embedding off: semantic off', async () => {
  const stack = await startStack({ KCS_EMBEDDER: 'none' }, { workers: false });
  try {
    assert.equal((await readyBody(stack)).semantic, 'off');
  } finally {
    await stack.close();
  }
});

test('a model that cannot be loaded: ready, semantic failed, and semantic searches fall back to keyword', async () => {
  const dir = writeOnnxTestModel(join(root, 'broken'));
  writeFileSync(join(dir, 'model.onnx'), Buffer.from('not a model'));
  const stack = await startStack({ KCS_EMBEDDER: 'onnx', KCS_ONNX_MODEL_DIR: dir, KCS_ONNX_LANGUAGES: 'en' }, { workers: false });
  try {
    assert.equal((await readyBody(stack)).semantic, 'failed');
    const t = await stack.tenant();
    const res = await t.request('POST', '/api/knowledge/search/products', { body: { query: 'rain jacket', language: 'en', mode: 'semantic' } });
    assert.deepEqual([res.status, res.body.mode], [200, 'keyword'], res.text);
    assert.match(res.body.semantic_fallback, /embedding the query failed/);
  } finally {
    await stack.close();
  }
});
