// Products skipped for their language get vectors once a model serving it is configured, and lose
// them to a model that does not (DESIGN §7): an onnx model directory configured for English only
// stores a German product skipped; the workers started with the same model serving German embed
// it (a background job finds it by its status); the workers of another model serving English only
// re-embed the English product and mark the German one skipped again, related by keywords.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { describeOnnxModel } from '../../src/embed/onnx.js';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/store/embeddedRedis.js';
import { keys } from '../../src/store/keys.js';
import type { RedisAt } from '../../src/store/redis.js';
import { waitEmbedded } from '../helpers/embedding.js';
import { writeOnnxTestModel } from '../helpers/onnxModel.js';
import { sharedRedis, startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const root = mkdtempSync(join(tmpdir(), 'kcs-language-switch-'));
// A private server, or the run's server with the Query Engine (`npm run test:rqe`, alone): fresh tenants there.
let redis: EmbeddedRedis | null = null;
let url: RedisAt;
let t: TenantFixture;
/** A tenant of German products only. */
let german: TenantFixture;
const modelA = writeOnnxTestModel(join(root, 'model-a'));
const modelB = writeOnnxTestModel(join(root, 'model-b'));
// Model B: the same graph with one more (empty) field, so other bytes and another model id.
writeFileSync(join(modelB, 'model.onnx'), Buffer.concat([readFileSync(join(modelB, 'model.onnx')), Buffer.from([0x12, 0x00])]));
const idA = describeOnnxModel(modelA).modelId;
const idB = describeOnnxModel(modelB).modelId;
const onnx = (dir: string, languages: string) => ({ KCS_EMBEDDER: 'onnx', KCS_ONNX_MODEL_DIR: dir, KCS_ONNX_LANGUAGES: languages, KCS_VECTOR_CLEANUP_DELAY_MS: '0' });
const ids: Record<string, string> = {};

const product = (stack: Stack, id: string, of = t) => stack.request('GET', `/api/knowledge/products/${id}`, { tenant: of.tenant.slug, key: of.key });
const related = (stack: Stack, id: string, of = t) => stack.request('GET', `/api/knowledge/products/${id}/related`, { tenant: of.tenant.slug, key: of.key });
const statusOf = async (stack: Stack, key: string) => {
  const res = await product(stack, ids[key]);
  assert.equal(res.status, 200, res.text);
  return [res.body.embedding_status, res.body.embedding_skipped_reason];
};

before(async () => {
  const shared = sharedRedis();
  if (shared) url = shared;
  else url = (redis = await startEmbeddedRedis(join(root, 'redis'), { persist: false })).url;
});
after(async () => {
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
});

test('a model serving English only: a German product is skipped for its language, an English one embedded', async () => {
  const stack = await startStack(onnx(modelA, 'en'), { redis: url });
  try {
    t = await stack.tenant();
    const request = (method: string, path: string, body: unknown) => stack.request(method, path, { tenant: t.tenant.slug, key: t.key, body });
    const de = (await request('POST', '/api/knowledge/sites', { slug: 'laden', name: 'Laden', language: 'de' })).body.id;
    const en = (await request('POST', '/api/knowledge/sites', { slug: 'shop', name: 'Shop', language: 'en' })).body.id;
    for (const [key, site, title, language] of [['leine', de, 'Leine für Hunde', 'de'], ['kaffee', de, 'Kaffee Bohnen', 'de'], ['saddle', en, 'Bike saddle', 'en']]) {
      const res = await request('POST', `/api/knowledge/products?site_id=${site}`, { external_id: key, title, language, brand: 'Tierfreund' });
      assert.equal(res.status, 201, res.text);
      ids[key] = res.body.id;
    }
    german = await stack.tenant();
    const laden = (await german.request('POST', '/api/knowledge/sites', { body: { slug: 'laden', name: 'Laden', language: 'de' } })).body.id;
    for (const [key, title] of [['hund', 'Leine für Hunde'], ['welpe', 'Halsband für Welpen']]) {
      ids[key] = (await german.request('POST', `/api/knowledge/products?site_id=${laden}`, { body: { external_id: key, title, language: 'de', brand: 'Tierfreund' } })).body.id;
    }
    await waitEmbedded(t, `/api/knowledge/products/${ids.saddle}`, 'saddle');
    assert.deepEqual(await statusOf(stack, 'leine'), ['skipped', 'language_not_served']);
    assert.deepEqual(await statusOf(stack, 'kaffee'), ['skipped', 'language_not_served']);
    const res = await related(stack, ids.leine);
    assert.deepEqual([res.body.mode, res.body.hits.map((h: { id: string }) => h.id)], ['keyword', [ids.kaffee]], `the brand they share: ${res.text}`);
  } finally {
    await stack.close();
  }
});

test('the same model configured for German too: the workers embed the German products skipped before', async () => {
  const stack = await startStack(onnx(modelA, 'de,en'), { redis: url });
  try {
    for (const [key, of] of [['leine', t], ['kaffee', t], ['hund', german], ['welpe', german]] as const) {
      for (const deadline = Date.now() + 60_000; ; await delay(100)) {
        const res = await product(stack, ids[key], of);
        if (res.body.embedding_status === 'ready') break;
        assert.ok(['skipped', 'pending'].includes(res.body.embedding_status), res.text);
        assert.ok(Date.now() < deadline, `${key} was not embedded: ${res.text}`);
      }
    }
    assert.deepEqual(await statusOf(stack, 'leine'), ['ready', null]);
    const status = (await stack.request('GET', '/api/knowledge/embedding', { tenant: t.tenant.slug, key: t.key })).body;
    assert.deepEqual([status.products.ready, status.products.skipped, status.products.pending], [3, 0, 0], JSON.stringify(status));
    // A German query finds the leash by meaning (a puppy), with the vectors it got.
    const search = await stack.request('POST', '/api/knowledge/search/products', { tenant: t.tenant.slug, key: t.key, body: { query: 'Welpe', mode: 'semantic', language: 'de', limit: 1 } });
    assert.deepEqual([search.body.semantic_fallback, search.body.hits[0]?.id], [null, ids.leine], search.text);
    assert.equal((await related(stack, ids.leine)).body.mode, 'semantic');
    assert.equal((await related(stack, ids.hund, german)).body.mode, 'semantic');
  } finally {
    await stack.close();
  }
});

test('another model serving English only: the English product is embedded again, the German ones skipped again', async () => {
  assert.notEqual(idA, idB);
  const stack = await startStack(onnx(modelB, 'en'), { redis: url });
  const client = await stack.client();
  try {
    for (const deadline = Date.now() + 60_000; (await client.get(keys.embeddingModel(t.tenant.id))) !== idB; await delay(100)) {
      assert.ok(Date.now() < deadline, 'the re-embed did not finish');
    }
    assert.equal(await client.hget(keys.product(t.tenant.id, ids.saddle), 'embedding_model'), idB);
    assert.deepEqual(await statusOf(stack, 'saddle'), ['ready', null]);
    assert.deepEqual(await statusOf(stack, 'leine'), ['skipped', 'language_not_served']);
    const status = (await stack.request('GET', '/api/knowledge/embedding', { tenant: t.tenant.slug, key: t.key })).body;
    assert.deepEqual([status.products.ready, status.products.skipped, status.reembedding], [1, 2, null], JSON.stringify(status));
    // Once model A's vectors are dropped, the German products are related by keywords again.
    for (const deadline = Date.now() + 30_000; ; await delay(100)) {
      const res = await related(stack, ids.leine);
      if (res.body.mode === 'keyword') {
        assert.deepEqual(res.body.hits.map((h: { id: string }) => h.id), [ids.kaffee], res.text);
        break;
      }
      assert.ok(Date.now() < deadline, `still related by the old vectors: ${res.text}`);
    }
    // A tenant of German products only: nothing to embed again, its products skipped at once, and
    // search reads it again without the old vectors.
    for (const deadline = Date.now() + 30_000; ; await delay(100)) {
      const res = await related(stack, ids.hund, german);
      if (res.body.mode === 'keyword') {
        assert.deepEqual(res.body.hits.map((h: { id: string }) => h.id), [ids.welpe], res.text);
        break;
      }
      assert.ok(Date.now() < deadline, `still related by the old vectors: ${res.text}`);
    }
    assert.deepEqual((await product(stack, ids.welpe, german)).body.embedding_skipped_reason, 'language_not_served');
  } finally {
    client.disconnect();
    await stack.close();
  }
});
