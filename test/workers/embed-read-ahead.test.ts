// How far the embed worker reads ahead of the model. A bulk import's embed jobs hold 128 documents
// each and the worker takes several jobs at once; a document's texts are read only when it is
// about one batch of model calls from the model (KCS_EMBED_BATCH documents in flight), so texts
// changed while it waited are not sent to the model. The model here is an hf endpoint of the test's
// own (a local HTTP server) that holds its answers until the test lets them go.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const PRODUCTS = '/api/knowledge/products';
const DIMENSION = 4;
/** Documents in flight (KCS_EMBED_BATCH): the bulk below holds several times as many. */
const IN_FLIGHT = 16;
const BULK = 300;
/** Its position in its embed job (of 128) is past IN_FLIGHT whichever job the worker takes first. */
const CHANGED = 200;

let server: Server;
/** Every text the model was asked to embed. */
const embedded: string[] = [];
/** Model calls wait here until the test releases them. */
let release: () => void = () => undefined;
let released: Promise<void> = new Promise((resolve) => (release = resolve));
let stack: Stack;
let t: TenantFixture;

before(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const inputs = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { inputs: string[] }).inputs;
    embedded.push(...inputs);
    await released;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(inputs.map((_, i) => Array.from({ length: DIMENSION }, (__, d) => (d === i % DIMENSION ? 1 : 0.1)))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stack = await startStack({
    KCS_EMBEDDER: 'hf',
    KCS_HF_MODEL: 'test/read-ahead',
    KCS_HF_ENDPOINT_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    KCS_HF_DIMENSION: String(DIMENSION),
    KCS_HF_LANGUAGES: 'en',
    KCS_EMBED_BATCH: String(IN_FLIGHT),
  });
  t = await stack.tenant();
});
after(async () => {
  release();
  await stack.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await delay(50);
  }
}

const item = (i: number, description: string) => ({ external_id: `ra-${i}`, title: `Read-ahead product ${i}`, description, language: 'en' });

test('texts changed while their document waited for the model are not embedded: the worker reads a batch ahead, not its whole backlog', async () => {
  const site = await t.request('POST', '/api/knowledge/sites', { body: { slug: 'read-ahead', name: 'Read ahead', language: 'en' } });
  assert.equal(site.status, 201, site.text);
  const siteId = site.body.id as string;
  const ndjson = Array.from({ length: BULK }, (_, i) => JSON.stringify(item(i, `First description of product number ${i}.`))).join('\n');
  const bulk = await t.request('POST', `${PRODUCTS}/bulk?site_id=${siteId}&wait=true`, { raw: ndjson, headers: { 'content-type': 'application/x-ndjson' } });
  assert.equal(bulk.status, 200, bulk.text);
  assert.equal(bulk.body.counts.created, BULK);

  // The model has its first call and holds it: the worker has taken the bulk's embed jobs.
  await until(() => (embedded.length > 0 ? true : undefined), 'the first model call');
  const changed = await t.request('POST', `${PRODUCTS}?site_id=${siteId}`, { body: item(CHANGED, `Second description of product number ${CHANGED}.`) });
  assert.equal(changed.status, 200, changed.text);
  release();

  const job = await until(async () => {
    const got = await t.request('GET', `/api/knowledge/jobs/${bulk.body.id}`);
    assert.equal(got.status, 200, got.text);
    return got.body.embedding.pending === 0 ? got.body : undefined;
  }, 'the bulk\'s embeddings');
  assert.equal(job.embedding.failed, 0);
  const product = await until(async () => {
    const got = await t.request('GET', `${PRODUCTS}/${changed.body.id}`);
    return got.body.embedding_status === 'ready' ? got.body : undefined;
  }, 'the changed product\'s embedding');
  assert.equal(product.description, `Second description of product number ${CHANGED}.`);

  // A product's text is its title and description.
  const sent = (description: string) => embedded.some((text) => text.endsWith(`\n${description}`));
  assert.ok(sent(`Second description of product number ${CHANGED}.`), 'the new text is embedded');
  assert.ok(!sent(`First description of product number ${CHANGED}.`), 'the replaced text never reached the model');
  assert.ok(sent(`First description of product number ${BULK - 1}.`), 'the bulk\'s last product is embedded');
});
