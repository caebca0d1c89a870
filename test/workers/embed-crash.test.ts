// A bulk import's embeddings survive `kill -9` of the embed worker, twice. The worker holds the
// import's embed jobs (128 documents each) while the model works; a kill sends them back to the
// queue once BullMQ finds them stalled. BullMQ's default fails a job found stalled a second time,
// and a job failed that way still had attempts left: its documents stayed `pending` for good and
// the import's embedding never finished. Now every document ends embedded, none failed.
// The model is an hf endpoint of the test's own (a local HTTP server) that holds its answers
// until the test lets them go, so each worker is killed with the jobs in its hands.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { HeldModel } from '../helpers/heldModel.js';
import { CliProcess } from '../helpers/process.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const PRODUCTS = '/api/knowledge/products';
/** Three embed jobs (128 + 128 + 44 documents). */
const BULK = 300;

let model: HeldModel;
let stack: Stack;
let t: TenantFixture;
const workers: CliProcess[] = [];

before(async () => {
  model = await HeldModel.start();
  stack = await startStack(model.env('test/embed-crash'), { workers: false });
  t = await stack.tenant();
});
after(async () => {
  model.release();
  for (const w of workers) {
    if (w.child.exitCode === null && w.child.signalCode === null) await w.stop();
  }
  await stack.close();
  await model.close();
});

/** A `kcs worker` on the stack's Redis; KCS_EMBED_LOCK_MS shortens the wait before a killed worker's jobs are taken over from 30 s. */
function startWorker(): CliProcess {
  const worker = new CliProcess(['worker'], { ...stack.redisEnv, ...model.env('test/embed-crash'), LOG_LEVEL: 'warn', KCS_EMBED_LOCK_MS: '2000' });
  workers.push(worker);
  return worker;
}

async function kill(worker: CliProcess): Promise<void> {
  worker.child.kill('SIGKILL');
  await new Promise((done) => (worker.child.exitCode !== null || worker.child.signalCode !== null ? done(null) : worker.child.once('exit', done)));
}

test('kill -9 of the embed worker twice while it holds an import\'s embed jobs: a third worker embeds every document', { timeout: 180_000 }, async () => {
  const site = await t.request('POST', '/api/knowledge/sites', { body: { slug: 'embed-crash', name: 'Embed crash', language: 'en' } });
  assert.equal(site.status, 201, site.text);
  const ndjson = Array.from({ length: BULK }, (_, i) => JSON.stringify({ external_id: `ec-${i}`, title: `Crash product ${i}`, description: `Description ${i}.`, language: 'en' })).join('\n');

  const first = startWorker();
  const bulk = await t.request('POST', `${PRODUCTS}/bulk?site_id=${site.body.id}&wait=true`, { raw: ndjson, headers: { 'content-type': 'application/x-ndjson' } });
  assert.equal(bulk.status, 200, bulk.text);
  assert.equal(bulk.body.counts.created, BULK);

  // Each worker is killed while its first model call is held: it has taken the import's jobs.
  await eventually(() => (model.calls > 0 ? true : undefined), 'the first worker\'s model call');
  await kill(first);
  const callsBefore = model.calls;
  const second = startWorker();
  await eventually(() => (model.calls > callsBefore ? true : undefined), 'the second worker to take the stalled jobs');
  await kill(second);

  startWorker();
  model.release();
  const job = await eventually(async () => {
    const got = await t.request('GET', `/api/knowledge/jobs/${bulk.body.id}`);
    assert.equal(got.status, 200, got.text);
    return got.body.embedding.pending === 0 ? got.body : undefined;
  }, 'the import\'s embeddings');
  assert.equal(job.embedding.failed, 0, JSON.stringify(job.embedding));
  assert.equal(job.embedding.done, BULK, JSON.stringify(job.embedding));

  for (let offset = 0; offset < BULK; offset += 100) {
    const page = await t.request('GET', `${PRODUCTS}?site_id=${site.body.id}&limit=100&offset=${offset}`);
    assert.equal(page.status, 200, page.text);
    for (const product of page.body) assert.equal(product.embedding_status, 'ready', `${product.external_id}: ${product.embedding_status}`);
  }
});
