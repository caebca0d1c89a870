// How far the embed worker reads ahead of the model. A bulk import's embed jobs hold 128 documents
// each and the worker takes several jobs at once; a document's texts are read only when it is
// about one batch of model calls from the model (KCS_EMBED_BATCH documents in flight), so texts
// changed while it waited are not sent to the model. The model here is an hf endpoint of the test's
// own (a local HTTP server) that holds its answers until the test lets them go.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { HeldModel } from '../helpers/heldModel.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const PRODUCTS = '/api/knowledge/products';
/** Documents in flight (KCS_EMBED_BATCH): the bulk below holds several times as many. */
const IN_FLIGHT = 16;
const BULK = 300;
/** Its position in its embed job (of 128) is past IN_FLIGHT whichever job the worker takes first. */
const CHANGED = 200;

let model: HeldModel;
let stack: Stack;
let t: TenantFixture;

before(async () => {
  model = await HeldModel.start();
  stack = await startStack({ ...model.env('test/read-ahead'), KCS_EMBED_BATCH: String(IN_FLIGHT) });
  t = await stack.tenant();
});
after(async () => {
  model.release();
  await stack.close();
  await model.close();
});

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
  await eventually(() => (model.texts.length > 0 ? true : undefined), 'the first model call');
  const changed = await t.request('POST', `${PRODUCTS}?site_id=${siteId}`, { body: item(CHANGED, `Second description of product number ${CHANGED}.`) });
  assert.equal(changed.status, 200, changed.text);
  model.release();

  const job = await eventually(async () => {
    const got = await t.request('GET', `/api/knowledge/jobs/${bulk.body.id}`);
    assert.equal(got.status, 200, got.text);
    return got.body.embedding.pending === 0 ? got.body : undefined;
  }, 'the bulk\'s embeddings');
  assert.equal(job.embedding.failed, 0);
  const product = await eventually(async () => {
    const got = await t.request('GET', `${PRODUCTS}/${changed.body.id}`);
    return got.body.embedding_status === 'ready' ? got.body : undefined;
  }, 'the changed product\'s embedding');
  assert.equal(product.description, `Second description of product number ${CHANGED}.`);

  // A product's text is its title and description.
  const sent = (description: string) => model.texts.some((text) => text.endsWith(`\n${description}`));
  assert.ok(sent(`Second description of product number ${CHANGED}.`), 'the new text is embedded');
  assert.ok(!sent(`First description of product number ${CHANGED}.`), 'the replaced text never reached the model');
  assert.ok(sent(`First description of product number ${BULK - 1}.`), 'the bulk\'s last product is embedded');
});
