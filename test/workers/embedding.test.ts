// The embedding pipeline end to end (DESIGN §7): an upsert answers embedding_status "pending", the
// embed worker (BullMQ, in-process workers of the test stack) stores unit-length float32 vectors
// per text on the product hash, unchanged texts are not re-embedded, the content-addressed cache
// serves equal texts, stale vectors are discarded, bulk jobs count embedding progress. Then the
// adapters on their own: the local USE-lite model and the hf adapter against a local HTTP server.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { ProductInput } from '../../src/domain/products.js';
import { embeddingTexts } from '../../src/domain/productTexts.js';
import { float32Bytes, fromBytes, fromFloat32Bytes, toBytes } from '../../src/store/vectorBytes.js';
import { HfEmbedder } from '../../src/embed/hf.js';
import { LocalEmbedder } from '../../src/embed/local.js';
import { embeddingCacheKey, keys } from '../../src/store/keys.js';
import { connectRedis, type Store } from '../../src/store/redis.js';
import { textKey, vectorField, VectorRepository } from '../../src/store/vectors.js';
import { eventually } from '../helpers/eventually.js';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';

const PRODUCTS = '/api/knowledge/products';
const MODEL = 'use-lite-512-en';
const DIM = 512;
/** The hash field of a vector of the test's model. */
const vf = (name: string) => vectorField(MODEL, name);
/** The vectors every product gets: search ranks by the description's (and the anchor's, when it has one). */
const BASE_FIELDS = [vf('description')];

let stack: Stack;
let t: TenantFixture;
let redis: Store;
let store: Store;
let siteA: string;
let siteB: string;
const local = new LocalEmbedder();

before(async () => {
  stack = await startStack(); // KCS_EMBEDDER defaults to local
  t = await stack.tenant();
  redis = await stack.client();
  store = connectRedis(stack.redis);
  await store.connect();
  siteA = await newSite('emb-a');
  siteB = await newSite('emb-b');
});
after(async () => {
  redis.disconnect();
  store.disconnect();
  await stack.close();
});

// ---- helpers ----------------------------------------------------------------------------------

async function newSite(slug: string): Promise<string> {
  const res = await t.request('POST', '/api/knowledge/sites', { body: { slug, name: slug, language: 'en' } });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

type Body = Record<string, unknown>;
let counter = 0;
const product = (over: Body = {}): Body => ({
  external_id: `emb-${++counter}`,
  title: `Trail running shoe ${counter}`,
  description: 'Lightweight shoe with a grippy sole for muddy trails.',
  properties: { color: 'red', size: '42' },
  attributes: { material: 'mesh' },
  language: 'en',
  ...over,
});

async function upsert(body: Body, siteId = siteA): Promise<HttpResult> {
  const res = await t.request('POST', `${PRODUCTS}?site_id=${siteId}`, { body });
  assert.ok([200, 201].includes(res.status), `${res.status} ${res.text}`);
  return res;
}

async function untilReady(id: string): Promise<any> {
  return eventually(async () => {
    const res = await t.request('GET', `${PRODUCTS}/${id}`);
    assert.equal(res.status, 200, res.text);
    assert.notEqual(res.body.embedding_status, 'failed');
    return res.body.embedding_status === 'ready' ? res.body : undefined;
  }, `product ${id} to be embedded`);
}

/** The product's Redis hash with the fields of its vector hash (its vectors), values as bytes. */
const productHash = async (id: string): Promise<Record<string, Buffer>> => ({
  ...(await redis.hgetallBuffer(keys.product(t.tenant.id, id))), ...(await redis.hgetallBuffer(keys.productVectors(t.tenant.id, id))),
});

/** The v:* fields of a product hash. */
function vectorsOf(hash: Record<string, Buffer>): Record<string, Buffer> {
  return Object.fromEntries(Object.entries(hash).filter(([name]) => name.startsWith('v:')));
}

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0) / (norm(a) * norm(b));

/** A stored vector (FLOAT16, two bytes a dimension) or, `cached`, one of the embedding cache (float32, exactly as the model gave it). */
function assertUnitVector(bytes: Buffer, what: string, { cached = false } = {}): Float32Array {
  assert.equal(bytes.length, DIM * (cached ? 4 : 2), `${what}: 512 ${cached ? 'float32' : 'float16'}`);
  const v = cached ? fromFloat32Bytes(bytes) : fromBytes(bytes);
  assert.ok(v.every(Number.isFinite), `${what}: finite`);
  assert.ok(Math.abs(norm(v) - 1) < (cached ? 1e-4 : 2e-3), `${what}: unit length, got ${norm(v)}`);
  return v;
}

// ---- the worker pipeline ----------------------------------------------------------------------

describe('embedding of single upserts', () => {
  test('pending at once, then ready with unit vectors per text; no anchor without similarity_text', async () => {
    const body = product();
    const created = await upsert(body);
    assert.equal(created.status, 201);
    assert.equal(created.body.embedding_status, 'pending');
    assert.equal(created.body.has_similarity_anchor, false);

    await untilReady(created.body.id);
    const hash = await productHash(created.body.id);
    assert.equal(hash.embedding_model?.toString(), MODEL);
    assert.equal(hash.embedding_status?.toString(), 'ready');
    assert.deepEqual(Object.keys(vectorsOf(hash)).sort(), [...BASE_FIELDS].sort());
    const texts = embeddingTexts(body as unknown as ProductInput);
    const expected = await local.embed([texts.description]);
    BASE_FIELDS.forEach((field, i) => {
      const v = assertUnitVector(hash[field], field);
      // Each vector is the model's vector of its own text (batching may change the last bits).
      assert.ok(cosine(v, expected[i]) > 0.999, `${field} embeds its own text: cosine ${cosine(v, expected[i])}`);
    });
    assert.equal(hash[vf('properties')], undefined, 'no vector search does not rank by');

    const changed = await upsert({ ...body, properties: { color: 'blue', size: '42' }, attributes: { material: 'leather' } });
    assert.equal(changed.headers['x-upsert-result'], 'updated');
    assert.equal(changed.body.embedding_status, 'ready', 'properties and attributes are not embedded: nothing to embed again');
  });

  test('a similarity_text adds the anchor vector; dropping it removes it', async () => {
    const body = product({ similarity_text: 'waterproof trail running shoe for autumn' });
    const created = await upsert(body);
    assert.equal(created.body.embedding_status, 'pending');
    assert.equal(created.body.has_similarity_anchor, true);
    await untilReady(created.body.id);
    const hash = await productHash(created.body.id);
    assert.deepEqual(Object.keys(vectorsOf(hash)).sort(), [...BASE_FIELDS, vf('anchor')].sort());
    const anchor = assertUnitVector(hash[vf('anchor')], 'the anchor vector');
    const [expected] = await local.embed(['waterproof trail running shoe for autumn']);
    assert.ok(cosine(anchor, expected) > 0.999);

    const { similarity_text: _dropped, ...without } = body;
    const updated = await upsert(without);
    assert.equal(updated.status, 200);
    assert.equal(updated.headers['x-upsert-result'], 'updated');
    assert.equal(updated.body.embedding_status, 'pending', 'the texts changed');
    assert.equal(updated.body.has_similarity_anchor, false);
    await untilReady(created.body.id);
    const after = await productHash(created.body.id);
    assert.deepEqual(Object.keys(vectorsOf(after)).sort(), [...BASE_FIELDS].sort(), 'the anchor vector is gone with its text');
    for (const field of BASE_FIELDS) assert.ok(after[field].equals(hash[field]), `${field}: same text, same vector`);
  });

  test('identical content is unchanged and not re-embedded; same sync_hash with a new price keeps the vectors', async () => {
    const body = product({ sync_hash: 'sync-v1', price_current: '99.00' });
    const created = await upsert(body);
    await untilReady(created.body.id);
    const before = vectorsOf(await productHash(created.body.id));
    assert.equal(Object.keys(before).length, BASE_FIELDS.length);

    const same = await upsert(body);
    assert.equal(same.status, 200);
    assert.equal(same.headers['x-upsert-result'], 'unchanged');
    assert.equal(same.body.embedding_status, 'ready', 'no new embedding for unchanged content');

    // Same sync_hash: only volatile fields change; the (changed) description is ignored.
    const priced = await upsert({ ...body, price_current: '79.00', description: 'A different description the sync_hash hides' });
    assert.equal(priced.status, 200);
    assert.equal(priced.headers['x-upsert-result'], 'updated');
    assert.equal(priced.body.embedding_status, 'ready');
    assert.equal(priced.body.price_current, '79.00');
    assert.equal(priced.body.description, body.description);

    // Give a wrongly scheduled embedding the time to land, then compare byte for byte.
    await delay(500);
    const hash = await productHash(created.body.id);
    assert.equal(hash.embedding_status.toString(), 'ready');
    const afterVectors = vectorsOf(hash);
    assert.deepEqual(Object.keys(afterVectors).sort(), Object.keys(before).sort());
    for (const [field, bytes] of Object.entries(before)) assert.ok(afterVectors[field].equals(bytes), `${field} unchanged`);
  });

  test('texts changed twice in a row: the stored vectors are those of the latest texts', async () => {
    const first = product({ description: 'A cast iron frying pan for the kitchen.' });
    const created = await upsert(first);
    const second = { ...first, description: 'Noise cancelling wireless headphones with long battery life.' };
    const updated = await upsert(second);
    assert.equal(updated.body.embedding_status, 'pending');
    await untilReady(created.body.id);
    const stored = fromBytes((await productHash(created.body.id))[vf('description')]);
    const [latest, stale] = await local.embed([
      embeddingTexts(second as unknown as ProductInput).description,
      embeddingTexts(first as unknown as ProductInput).description,
    ]);
    assert.ok(cosine(stored, latest) > 0.999, `vector of the latest text: ${cosine(stored, latest)}`);
    assert.ok(cosine(stored, stale) < 0.99, 'not the vector of the replaced text');
  });
});

describe('content-addressed cache', () => {
  test('a product with the same texts in another site gets byte-identical vectors; cache keys exist', async () => {
    const body = product({ title: 'Cache shared kettle', description: 'Electric kettle, 1.7 l, stainless steel.', properties: { volume: '1.7 l' } });
    const a = await upsert(body, siteA);
    await untilReady(a.body.id);
    const vectorsA = vectorsOf(await productHash(a.body.id));

    const texts = embeddingTexts(body as unknown as ProductInput);
    for (const text of [texts.description]) {
      const key = embeddingCacheKey(MODEL, textKey(text));
      assert.match(key, /^kcs:emb:use-lite-512-en:[0-9a-f]{64}$/);
      const cached = await redis.getBuffer(key);
      assert.ok(cached, `cache key for ${JSON.stringify(text)}`);
      assertUnitVector(cached, 'cached vector', { cached: true });
      assert.ok((await redis.ttl(key)) > 0, 'cache entries expire');
    }

    const b = await upsert({ ...body, external_id: `other-${body.external_id}` }, siteB);
    assert.equal(b.status, 201);
    assert.notEqual(b.body.id, a.body.id);
    assert.equal(b.body.embedding_status, 'pending');
    await untilReady(b.body.id);
    const vectorsB = vectorsOf(await productHash(b.body.id));
    assert.deepEqual(Object.keys(vectorsB).sort(), Object.keys(vectorsA).sort());
    for (const [field, bytes] of Object.entries(vectorsA)) assert.ok(vectorsB[field].equals(bytes), `${field} equal byte for byte`);
  });

  test('a vector already in the cache is used instead of computing one', async () => {
    const body = product({ title: 'Cache planted lamp', description: 'A desk lamp that exists only in this test.', similarity_text: 'a lamp for reading at night' });
    const texts = embeddingTexts(body as unknown as ProductInput);
    // A unit vector the model would never produce for this text.
    const planted = new Float32Array(DIM);
    planted[7] = 1;
    await redis.set(embeddingCacheKey(MODEL, textKey(texts.description)), float32Bytes(planted));

    const created = await upsert(body);
    await untilReady(created.body.id);
    const hash = await productHash(created.body.id);
    assert.ok(hash[vf('description')].equals(toBytes(planted)), 'the cached vector was stored');
    assert.ok(!hash[vf('anchor')].equals(toBytes(planted)), 'the other text was computed');
    assertUnitVector(hash[vf('anchor')], 'the anchor vector');
  });
});

describe('stale vectors', () => {
  test('VectorRepository.store with a text hash other than the stored one writes nothing', async () => {
    const created = await upsert(product());
    await untilReady(created.body.id);
    const before = await productHash(created.body.id);
    const textHash = before.text_hash.toString();

    const vectors = new VectorRepository(store);
    const foreign = new Float32Array(DIM).fill(1 / Math.sqrt(DIM));
    const stale = await vectors.store(t.tenant.id, { kind: 'product', id: created.body.id }, {
      textHash: `${textHash.slice(0, -1)}x`, model: 'other-model', vectors: { description: foreign, properties: foreign, attributes: null, anchor: foreign },
    });
    assert.equal(stale, false);
    assert.deepEqual(await productHash(created.body.id), before, 'the product and its vectors are untouched');

    const gone = await vectors.store(t.tenant.id, { kind: 'product', id: '00000000-0000-4000-8000-000000000000' }, { textHash, model: 'other-model', vectors: { description: foreign } });
    assert.equal(gone, false, 'a missing product is never created by a vector write');
    assert.equal(await redis.exists(keys.product(t.tenant.id, '00000000-0000-4000-8000-000000000000'), keys.productVectors(t.tenant.id, '00000000-0000-4000-8000-000000000000')), 0);

    // The guard, not the method, refused: with the current text hash the write goes through.
    assert.equal(await vectors.store(t.tenant.id, { kind: 'product', id: created.body.id }, { textHash, model: 'other-model', vectors: { description: foreign, attributes: null } }), true);
    const after = await productHash(created.body.id);
    assert.ok(after[vectorField('other-model', 'description')].equals(toBytes(foreign)), 'stored under its own model');
    assert.equal(after[vectorField('other-model', 'attributes')], undefined, 'an empty vector removes the field');
    assert.ok(after[vf('description')].equals(before[vf('description')]), "the configured model's vectors stay as they were");
    assert.equal(after.embedding_model.toString(), 'other-model');
  });
});

describe('bulk with embedding', () => {
  test('the job counts embeddings until none is pending', async () => {
    const site = await newSite('emb-bulk');
    const items = Array.from({ length: 25 }, (_, i) => ({
      external_id: `bulk-emb-${i}`,
      title: `Bulk embedded product ${i}`,
      description: `Item number ${i} of a bulk import with embeddings.`,
      language: 'en',
    }));
    const ndjson = items.map((i) => JSON.stringify(i)).join('\n');
    const res = await t.request('POST', `${PRODUCTS}/bulk?site_id=${site}&wait=true`, { raw: ndjson, headers: { 'content-type': 'application/x-ndjson' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.counts, { created: 25, updated: 0, unchanged: 0, failed: 0, rejected: 0 });
    assert.equal(res.body.embedding.done + res.body.embedding.pending + res.body.embedding.failed, 25);

    const job = await eventually(async () => {
      const got = await t.request('GET', `/api/knowledge/jobs/${res.body.id}`);
      assert.equal(got.status, 200, got.text);
      return got.body.embedding.pending === 0 ? got.body : undefined;
    }, 'the bulk embeddings');
    const { rate_per_s: rate, eta_s: eta, ...progress } = job.embedding;
    assert.deepEqual(progress, { pending: 0, done: 25, failed: 0 });
    assert.ok(rate > 0 && eta === null, `the tenant's rate, nothing left: ${rate}, ${eta}`);

    const list = await t.request('GET', `${PRODUCTS}?site_id=${site}&limit=100`);
    assert.equal(list.body.length, 25);
    for (const p of list.body) {
      assert.equal(p.embedding_status, 'ready', p.external_id);
      const hash = await productHash(p.id);
      for (const field of BASE_FIELDS) assertUnitVector(hash[field], `${p.external_id} ${field}`);
    }

    // The same bulk again: nothing changed, nothing to embed.
    const again = await t.request('POST', `${PRODUCTS}/bulk?site_id=${site}&wait=true`, { raw: ndjson, headers: { 'content-type': 'application/x-ndjson' } });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.counts.unchanged, 25);
    assert.deepEqual({ ...again.body.embedding, rate_per_s: 0 }, { pending: 0, done: 0, failed: 0, rate_per_s: 0, eta_s: null });
  });
});

// ---- the adapters -----------------------------------------------------------------------------

describe('local model', () => {
  test('declares its model and embeds related texts closer than unrelated ones', async () => {
    assert.equal(local.modelId, MODEL);
    assert.equal(local.dimension, DIM);
    assert.deepEqual([...local.languages], ['en']);
    const [shoe, sneakers, tax] = await local.embed(['red running shoe', 'running sneakers in red', 'tax law for small companies']);
    for (const v of [shoe, sneakers, tax]) {
      assert.ok(v instanceof Float32Array);
      assert.equal(v.length, DIM);
      assert.ok(Math.abs(norm(v) - 1) < 1e-4);
    }
    assert.ok(cosine(shoe, sneakers) > cosine(shoe, tax), `${cosine(shoe, sneakers)} vs ${cosine(shoe, tax)}`);
    assert.deepEqual(await local.embed([]), []);
  });
});

// This tests our client against the Hugging Face feature-extraction HTTP contract as
// @huggingface/inference speaks it to an endpointUrl (POST <endpointUrl> with JSON {inputs: string[]}
// → JSON number[][]), served by a local node:http server. The real hosted service cannot be
// reached from here.
describe('hf adapter', () => {
  let server: Server;
  let url: string;
  const seen: { method: string; path: string; contentType: string; authorization: string | undefined; body: any }[] = [];
  /** What the fake endpoint answers for the inputs of a request. */
  let answer: (inputs: string[]) => { status: number; body: unknown } = () => ({ status: 500, body: { error: 'unset' } });

  before(async () => {
    server = createServer(async (req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      seen.push({ method: req.method ?? '', path: req.url ?? '', contentType: req.headers['content-type'] ?? '', authorization: req.headers.authorization, body });
      const reply = answer(body?.inputs ?? []);
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const embedder = () => new HfEmbedder({ model: 'test/model', endpointUrl: url, dimension: 4, languages: ['en'] });

  test('sends the texts as {inputs} to the endpoint and returns normalized vectors in order', async () => {
    seen.length = 0;
    // A distinct, non-normalized vector per input: its length, then 0, 3, 4.
    answer = (inputs) => ({ status: 200, body: inputs.map((text) => [text.length, 0, 3, 4]) });
    const hf = embedder();
    assert.equal(hf.modelId, 'hf:test/model');
    assert.equal(hf.dimension, 4);
    assert.deepEqual([...hf.languages], ['en']);

    const texts = ['a', 'four', 'twelve chars'];
    const vectors = await hf.embed(texts);
    assert.equal(seen.length, 1, 'one request for the batch');
    assert.equal(seen[0].method, 'POST');
    assert.equal(seen[0].path, '/');
    assert.match(seen[0].contentType, /^application\/json/);
    assert.equal(seen[0].authorization, undefined, 'no token, no Authorization header');
    assert.deepEqual(seen[0].body, { inputs: texts });

    assert.equal(vectors.length, 3);
    vectors.forEach((v, i) => {
      assert.ok(v instanceof Float32Array);
      assert.equal(v.length, 4);
      assert.ok(Math.abs(norm(v) - 1) < 1e-6, 'unit length');
      const raw = [texts[i].length, 0, 3, 4];
      const n = Math.hypot(...raw);
      raw.forEach((x, k) => assert.ok(Math.abs(v[k] - x / n) < 1e-6, `vector ${i} in input order`));
    });
    assert.deepEqual(await hf.embed([]), [], 'nothing to embed, no request');
    assert.equal(seen.length, 1);
  });

  test('a token is sent as a Bearer header', async () => {
    seen.length = 0;
    answer = (inputs) => ({ status: 200, body: inputs.map(() => [1, 0, 0, 0]) });
    const hf = new HfEmbedder({ model: 'test/model', endpointUrl: url, token: 'hf_testtoken', dimension: 4, languages: ['en'] });
    await hf.embed(['x']);
    assert.equal(seen[0].authorization, 'Bearer hf_testtoken');
  });

  test('a vector of the wrong dimension is an error', async () => {
    answer = (inputs) => ({ status: 200, body: inputs.map(() => [1, 2, 3]) });
    await assert.rejects(embedder().embed(['one', 'two']), /expected 4 dimensions, got 3/);
  });

  test('a response with the wrong number of vectors is an error', async () => {
    answer = () => ({ status: 200, body: [[1, 2, 3, 4]] });
    await assert.rejects(embedder().embed(['one', 'two']), /unexpected feature-extraction response shape/);
  });

  test('an HTTP error of the endpoint is an error', async () => {
    answer = () => ({ status: 500, body: { error: 'model exploded' } });
    await assert.rejects(embedder().embed(['one']), /model exploded/);
  });

  test('a 503 is one failed attempt, not an endless retry (BullMQ retries with backoff)', async () => {
    seen.length = 0;
    answer = () => ({ status: 503, body: { error: 'Model is loading' } });
    const result = embedder().embed(['one']).then(() => 'resolved', (error: Error) => error.message);
    const settled = await Promise.race([result, delay(5000).then(() => 'still retrying')]);
    const requests = seen.length;
    answer = (inputs) => ({ status: 200, body: inputs.map(() => [1, 0, 0, 0]) }); // ends a retry loop
    await result;
    assert.match(settled, /Model is loading/);
    assert.equal(requests, 1, 'exactly one request');
  });
});
