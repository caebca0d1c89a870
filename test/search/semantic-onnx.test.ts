// German semantic search offline, with the onnx embedder and a model directory the test writes
// (test/helpers/onnxModel.ts; KCS_ONNX_LANGUAGES=de,en): the workers embed German products and
// entries, a German query finds them by meaning without sharing a word, and a language the model
// does not serve falls back to keyword search and says why.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { waitEmbedded } from '../helpers/embedding.js';
import { writeOnnxTestModel } from '../helpers/onnxModel.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { SEARCH_KNOWLEDGE, SEARCH_PRODUCTS, createSiteHttp, searchHttp, upsertHttp } from './fixtures.js';

const PRODUCTS: Record<string, Record<string, unknown>> = {
  leash: { title: 'Leine für Hunde', description: 'Eine robuste Leine mit Karabiner.' },
  beans: { title: 'Espresso Bohnen', description: 'Kaffee aus Italien, kräftig geröstet.' },
  saddle: { title: 'Sattel', description: 'Ein bequemer Sattel für das Fahrrad.' },
};

const root = mkdtempSync(join(tmpdir(), 'kcs-onnx-search-'));
let stack: Stack;
let t: TenantFixture;
const ids: Record<string, string> = {};
const keyOf = (id: string) => Object.entries(ids).find(([, v]) => v === id)?.[0] ?? id;

before(async () => {
  const modelDir = writeOnnxTestModel(join(root, 'tiny-de-en'));
  stack = await startStack({ KCS_EMBEDDER: 'onnx', KCS_ONNX_MODEL_DIR: modelDir, KCS_ONNX_LANGUAGES: 'de,en' });
  t = await stack.tenant();
  const site = await createSiteHttp(t, 'laden', 'de');
  for (const [key, body] of Object.entries(PRODUCTS)) ids[key] = (await upsertHttp(t, site.slug, { external_id: key, language: 'de', ...body })).id;
  const category = (await t.request('POST', '/api/knowledge/categories', { body: { name: 'Hilfe' } })).body.id;
  const res = await t.request('POST', '/api/knowledge/knowledge-entries', {
    body: { category_id: category, language: 'de', title: 'Regen', content: 'Die Regenjacke hält dicht.', visibility: 'public' },
  });
  assert.equal(res.status, 201, res.text);
  ids.rain = res.body.id;
  for (const key of Object.keys(PRODUCTS)) await waitEmbedded(t, `/api/knowledge/products/${ids[key]}`, key);
  await waitEmbedded(t, `/api/knowledge/knowledge-entries/${ids.rain}`, 'rain');
  // The vectors reach the engine through the change stream; min_similarity 0 lets every vector
  // answer, however far from the query.
  for (const deadline = Date.now() + 5000; ; await delay(100)) {
    const found = await searchHttp(t, SEARCH_PRODUCTS, { query: 'welpe', mode: 'semantic', language: 'de', limit: 10, min_similarity: 0 });
    if (found.body.hits?.length === Object.keys(PRODUCTS).length) break;
    assert.ok(Date.now() < deadline, `the engine did not pick up the vectors: ${found.text}`);
  }
});
after(async () => {
  await stack?.close();
  rmSync(root, { recursive: true, force: true });
});

test('the documents carry the model directory’s model id', async () => {
  const res = await t.request('GET', `/api/knowledge/knowledge-entries/${ids.rain}`);
  assert.match(res.body.embedding_model, /^onnx:tiny-de-en:[0-9a-f]{12}$/);
});

test('a German query finds a German product by meaning, sharing no word with it', async () => {
  const keyword = await searchHttp(t, SEARCH_PRODUCTS, { query: 'Welpe', mode: 'keyword', language: 'de' });
  assert.deepEqual(keyword.body.hits, [], 'no shared word');
  const res = await searchHttp(t, SEARCH_PRODUCTS, { query: 'Welpe', mode: 'semantic', language: 'de', limit: 3 });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.mode, 'semantic');
  assert.equal(res.body.semantic_fallback, null);
  assert.equal(keyOf(res.body.hits[0].id), 'leash', res.text);

  const hybrid = await searchHttp(t, SEARCH_PRODUCTS, { query: 'Kaffee', mode: 'hybrid', language: 'de', limit: 3 });
  assert.equal(hybrid.body.mode, 'hybrid');
  assert.equal(keyOf(hybrid.body.hits[0].id), 'beans');
  assert.deepEqual(hybrid.body.hits[0].ranks, { keyword: 1, semantic: 1 });
});

test('knowledge entries too', async () => {
  const res = await searchHttp(t, SEARCH_KNOWLEDGE, { query: 'Regen', mode: 'semantic', language: 'de', limit: 1 });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.hits[0]?.id, ids.rain);
});

test('a language the model is not configured for falls back to keyword search and says why', async () => {
  const res = await searchHttp(t, SEARCH_PRODUCTS, { query: 'Kaffee', mode: 'semantic', language: 'fr' });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.mode, 'keyword');
  assert.match(res.body.semantic_fallback, /fr/);
});
