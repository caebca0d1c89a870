// A change of model (DESIGN §7): documents embedded with one onnx model directory, then the
// workers started with another. A background job embeds every document again with the new model,
// counting its progress on the status route; the old vectors stay beside the new ones and are
// searched (queries embedded with the old model) until every document has its new vectors, then
// the new model becomes the tenant's, and (after KCS_VECTOR_CLEANUP_DELAY_MS) the old ones go.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { describeOnnxModel } from '../../src/embed/onnx.js';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/store/embeddedRedis.js';
import { keys } from '../../src/store/keys.js';
import { vectorField } from '../../src/store/vectors.js';
import { waitEmbedded } from '../helpers/embedding.js';
import { writeOnnxTestModel } from '../helpers/onnxModel.js';
import { IndexRouter } from '../../src/search/redisQuery/router.js';
import type { RedisAt } from '../../src/store/redis.js';
import { sharedRedis, startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const root = mkdtempSync(join(tmpdir(), 'kcs-reembed-'));
// A private server, or the run's server with the Query Engine (`npm run test:rqe`): fresh tenants there.
let redis: EmbeddedRedis | null = null;
let url: RedisAt;
let first: Stack;
let second: Stack | null = null;
let t: TenantFixture;
const modelA = writeOnnxTestModel(join(root, 'model-a'));
const modelB = writeOnnxTestModel(join(root, 'model-b'));
// Model B: the same graph with one more (empty) field, so other bytes and another model id.
writeFileSync(join(modelB, 'model.onnx'), Buffer.concat([readFileSync(join(modelB, 'model.onnx')), Buffer.from([0x12, 0x00])]));
const idA = describeOnnxModel(modelA).modelId;
const idB = describeOnnxModel(modelB).modelId;
const onnx = (dir: string) => ({ KCS_EMBEDDER: 'onnx', KCS_ONNX_MODEL_DIR: dir, KCS_ONNX_LANGUAGES: 'de' });
const products: Record<string, string> = {};
let entry = '';

before(async () => {
  const shared = sharedRedis();
  if (shared) url = shared;
  else url = (redis = await startEmbeddedRedis(join(root, 'redis'), { persist: false })).url;
  first = await startStack(onnx(modelA), { redis: url });
  t = await first.tenant();
  const site = (await t.request('POST', '/api/knowledge/sites', { body: { slug: 'laden', name: 'Laden', language: 'de' } })).body.id;
  for (const [key, title] of [['leash', 'Leine für Hunde'], ['beans', 'Kaffee Bohnen'], ['saddle', 'Sattel für das Fahrrad']]) {
    const res = await t.request('POST', `/api/knowledge/products?site_id=${site}`, { body: { external_id: key, title, language: 'de' } });
    assert.equal(res.status, 201, res.text);
    products[key] = res.body.id;
    await waitEmbedded(t, `/api/knowledge/products/${res.body.id}`, key);
  }
  const category = (await t.request('POST', '/api/knowledge/categories', { body: { name: 'Hilfe' } })).body.id;
  const created = await t.request('POST', '/api/knowledge/knowledge-entries', { body: { category_id: category, language: 'de', title: 'Regen', content: 'Die Regenjacke.', visibility: 'public' } });
  entry = created.body.id;
  await waitEmbedded(t, `/api/knowledge/knowledge-entries/${entry}`, 'entry');
  await first.close();
});
after(async () => {
  await second?.close();
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** A semantic search for a puppy (Welpe): the leash is the nearest product under either model. */
const puppy = (stack: Stack) =>
  stack.request('POST', '/api/knowledge/search/products', { tenant: t.tenant.slug, key: t.key, body: { query: 'Welpe', mode: 'semantic', language: 'de', limit: 1 } });

test('until the re-embed is done, search serves the tenant’s old vectors with queries embedded by the old model', async () => {
  // No workers: nothing re-embeds, and no document has vectors of model B.
  const stack = await startStack(onnx(modelB), { redis: url, workers: false });
  try {
    const res = await puppy(stack);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.mode, res.body.semantic_fallback, res.body.hits[0]?.id], ['semantic', null, products.leash], res.text);
  } finally {
    await stack.close();
  }
  // The old model's directory is gone: search says so and ranks by keyword until the re-embed is done.
  renameSync(modelA, `${modelA}.moved`);
  const without = await startStack(onnx(modelB), { redis: url, workers: false });
  try {
    const res = await puppy(without);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.mode, 'keyword');
    assert.match(res.body.semantic_fallback, new RegExp(`vectors are of the model ${idA.replace(/[.:]/g, '\\$&')}, which this process cannot load`));
  } finally {
    await without.close();
    renameSync(`${modelA}.moved`, modelA);
  }
});

test('the workers of another model embed every document again; the new model becomes the tenant’s when all are done', async () => {
  assert.notEqual(idA, idB);
  // The old model's vectors go as soon as the switch is done (a deployment waits 10 minutes).
  const stack = (second = await startStack({ ...onnx(modelB), KCS_VECTOR_CLEANUP_DELAY_MS: '0' }, { redis: url }));
  const client = await stack.client();
  try {
    const status = async () => (await stack.request('GET', '/api/knowledge/embedding', { tenant: t.tenant.slug, key: t.key })).body;
    const seen: unknown[] = [];
    for (const deadline = Date.now() + 60_000; ; await delay(50)) {
      const s = await status();
      if (s.reembedding) seen.push(s.reembedding);
      if ((await client.get(keys.embeddingModel(t.tenant.id))) === idB) break;
      assert.ok(Date.now() < deadline, `the re-embed did not finish: ${JSON.stringify(s)}`);
    }
    assert.equal((await status()).reembedding, null, 'finished: nothing left to show');
    for (const r of seen) assert.deepEqual([(r as any).model, (r as any).total], [idB, 4], 'its progress while it ran');
    const progress = await client.hgetall(keys.reembed(t.tenant.id));
    assert.deepEqual([progress.model, progress.total, progress.done], [idB, '4', '4']);
    for (const id of Object.values(products)) {
      const hash = await client.hgetallBuffer(keys.product(t.tenant.id, id));
      assert.equal(hash.embedding_model.toString(), idB);
      assert.ok((await client.hgetBuffer(keys.productVectors(t.tenant.id, id), vectorField(idB, 'description')))?.length, 'the new vectors are there');
    }
    assert.equal(await client.hget(keys.entry(t.tenant.id, entry), 'embedding_model'), idB);
    // Search ranks by the new vectors: model A's directory can go.
    renameSync(modelA, `${modelA}.gone`);
    for (const deadline = Date.now() + 10_000; ; await delay(100)) {
      const res = await puppy(stack);
      assert.equal(res.status, 200, res.text);
      if (res.body.hits[0]?.id === products.leash && res.body.semantic_fallback === null) break;
      assert.ok(Date.now() < deadline, `semantic search with the new model: ${res.text}`);
    }
  } finally {
    client.disconnect();
  }
});

/** The vector fields (`v:*`) of the tenant's products (their vector hashes) and its entry, by document. */
async function vectorFields(client: Awaited<ReturnType<Stack['client']>>): Promise<string[][]> {
  const hashes = [...Object.values(products).map((id) => keys.productVectors(t.tenant.id, id)), keys.entry(t.tenant.id, entry)];
  return Promise.all(hashes.map(async (key) => (await client.hkeys(key)).filter((f) => f.startsWith('v:')).sort()));
}

test('once the new model is the tenant’s, the vectors search no longer reads go: the old model’s, and its Query Engine indexes', async () => {
  assert.ok(second, 'the stack of the previous test');
  const client = await second.client();
  try {
    const wanted = (names: string[]) => names.map((name) => vectorField(idB, name)).sort();
    for (const deadline = Date.now() + 30_000; ; await delay(100)) {
      const fields = await vectorFields(client);
      if (fields.every((f) => !f.some((name) => name.startsWith(vectorField(idA, ''))))) {
        // Each product has its description vector (no anchor text); the entry its content vector.
        assert.deepEqual(fields, [...Object.values(products).map(() => wanted(['description'])), wanted(['content'])]);
        break;
      }
      assert.ok(Date.now() < deadline, `the old vectors are still there: ${JSON.stringify(fields)}`);
    }
    // The maintenance job drops the old model's indexes after its vectors (workers/maintenance.ts).
    for (const deadline = Date.now() + 30_000; ; await delay(100)) {
      const indexes = await new IndexRouter(client).call(t.tenant.id, ['FT._LIST']).then((names) => names as string[], () => null);
      if (!indexes) break;
      const ofTenant = indexes.filter((name) => name.startsWith(keys.searchIndex(t.tenant.id, '')));
      const dropped = ofTenant.length > 0 && ofTenant.every((name) => !name.includes(idA.replace(/[^\w.-]/g, '_')));
      if (dropped) break;
      assert.ok(Date.now() < deadline, `model A's indexes are dropped: ${ofTenant}`);
    }
    const res = await puppy(second);
    assert.deepEqual([res.status, res.body.hits[0]?.id, res.body.semantic_fallback], [200, products.leash, null], res.text);

    // Vectors of texts ranking does not use (an earlier build's properties vector) go when workers start.
    const leash = keys.productVectors(t.tenant.id, products.leash);
    await client.hset(leash, vectorField(idB, 'properties'), Buffer.alloc(16));
    const third = await startStack(onnx(modelB), { redis: url });
    try {
      for (const deadline = Date.now() + 30_000; await client.hexists(leash, vectorField(idB, 'properties')); await delay(100)) {
        assert.ok(Date.now() < deadline, 'the properties vector is still there');
      }
      assert.deepEqual((await vectorFields(client))[0], wanted(['description']));
    } finally {
      await third.close();
    }
  } finally {
    client.disconnect();
  }
});
