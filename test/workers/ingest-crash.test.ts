// A bulk import survives `kill -9` of the worker writing it, twice: the HTTP server of the test
// stack accepts the bulk, a real `kcs worker` process starts writing it and is killed mid-import,
// a second `kcs worker` takes the job over once BullMQ finds it stalled and is killed too, and a
// third completes it (BullMQ's default failed a job found stalled twice, leaving it `running` with
// items never written). Every accepted item is then stored exactly once: none missing, none twice
// (also the items without external_id, whose product ids are pinned when the bulk is accepted),
// and each item is counted once in the job.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { keys } from '../../src/store/keys.js';
import type { Store } from '../../src/store/redis.js';
import { eventually } from '../helpers/eventually.js';
import { CliProcess } from '../helpers/process.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const TOTAL = 10_000; // the bulk limit
const WITHOUT_EXTERNAL_ID = 500;

let stack: Stack;
let t: TenantFixture;
let redis: Store;
const workers: CliProcess[] = [];

before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' }, { workers: false });
  t = await stack.tenant();
  redis = await stack.client();
});
after(async () => {
  for (const w of workers) {
    if (w.child.exitCode === null && w.child.signalCode === null) await w.stop();
  }
  redis.disconnect();
  await stack.close();
});

/**
 * A `kcs worker` on the stack's Redis. KCS_INGEST_LOCK_MS shortens the ingest job lock (and with
 * it BullMQ's stalled check) from 60 s, so the job of a killed worker is taken over within seconds.
 */
function startWorker(): CliProcess {
  const worker = new CliProcess(['worker'], { ...stack.redisEnv, KCS_EMBEDDER: 'none', LOG_LEVEL: 'warn', KCS_INGEST_LOCK_MS: '3000' });
  workers.push(worker);
  return worker;
}

test('kill -9 of the worker mid-import, twice: a third worker completes the job, every item stored exactly once', { timeout: 120_000 }, async (ctx) => {
  const site = await t.request('POST', '/api/knowledge/sites', { body: { slug: 'crash', name: 'Crash', language: 'en' } });
  assert.equal(site.status, 201, site.text);
  const siteId: string = site.body.id;

  // Every 20th item has no external_id: 500 of them among 9,500 with distinct external_ids.
  const items = Array.from({ length: TOTAL }, (_, i) =>
    i % 20 === 7
      ? { title: `Anonymous ${i}`, description: `Item ${i} without external id`, language: 'en' }
      : { external_id: `crash-${i}`, title: `Product ${i}`, description: `Item ${i}`, price_current: `${i}.99`, language: 'en' },
  );
  const externalIds: string[] = items.flatMap((it) => ('external_id' in it && it.external_id ? [it.external_id] : []));
  assert.equal(externalIds.length, TOTAL - WITHOUT_EXTERNAL_ID);

  const first = startWorker();
  const accepted = await t.request('POST', `/api/knowledge/products/bulk?site_id=${siteId}`, {
    raw: items.map((it) => JSON.stringify(it)).join('\n'),
    headers: { 'content-type': 'application/x-ndjson' },
  });
  assert.equal(accepted.status, 202, accepted.text.slice(0, 500));
  assert.equal(accepted.body.accepted, TOTAL);
  assert.equal(accepted.body.rejected, 0);
  const jobId: string = accepted.body.job_id;

  // Kill each worker as soon as it has written products: the kill usually cuts through a round
  // (500 pipelined writes); the next worker must skip every item already stored.
  const siteProducts = keys.siteProducts(t.tenant.id, siteId);
  let storedAtKill = 0;
  for (const [worker, which] of [[first, 'first'], [null, 'second']] as const) {
    const writing = worker ?? startWorker();
    const from = storedAtKill;
    await eventually(async () => ((await redis.zcard(siteProducts)) > from ? true : undefined), `the ${which} worker to write products`, { every: 2 });
    writing.child.kill('SIGKILL');
    await new Promise((done) => (writing.child.exitCode !== null || writing.child.signalCode !== null ? done(null) : writing.child.once('exit', done)));
    assert.equal(writing.child.signalCode, 'SIGKILL');

    storedAtKill = await redis.zcard(siteProducts);
    const statusAtKill = await redis.hget(keys.job(t.tenant.id, jobId), 'status');
    // The premise of this test: the import was cut off part-way, each time.
    assert.equal(statusAtKill, 'running', `job status when the ${which} worker was killed (${storedAtKill} products stored)`);
    assert.ok(storedAtKill < TOTAL, `the import was interrupted (${storedAtKill} of ${TOTAL} stored)`);
    ctx.diagnostic(`${which} worker killed with ${storedAtKill} of ${TOTAL} products stored`);
  }

  startWorker();
  const job = await eventually(async () => {
    const res = await t.request('GET', `/api/knowledge/jobs/${jobId}`);
    assert.equal(res.status, 200, res.text);
    assert.notEqual(res.body.status, 'failed', JSON.stringify(res.body));
    return res.body.status === 'completed' ? res.body : undefined;
  }, 'the third worker to complete the job', { every: 100 });

  assert.equal(job.total, TOTAL);
  assert.deepEqual(job.errors, []);
  assert.equal(job.counts.failed, 0);
  assert.equal(job.counts.rejected, 0);
  assert.equal(job.counts.created + job.counts.updated + job.counts.unchanged, TOTAL, JSON.stringify(job.counts));

  // Exactly the accepted items, each once.
  const list = await t.request('GET', `/api/knowledge/products?site_id=${siteId}&limit=1`);
  assert.equal(list.status, 200, list.text);
  assert.equal(Number(list.headers['x-total-count']), TOTAL);

  const seenExternal = new Map<string, number>();
  const seenIds = new Set<string>();
  const anonymousTitles: string[] = [];
  for (let offset = 0; offset < TOTAL + 200; offset += 200) {
    const page = await t.request('GET', `/api/knowledge/products?site_id=${siteId}&limit=200&offset=${offset}`);
    assert.equal(page.status, 200, page.text);
    for (const p of page.body) {
      assert.ok(!seenIds.has(p.id), `product ${p.id} listed twice`);
      seenIds.add(p.id);
      assert.equal(p.source, 'bulk');
      if (p.external_id === null) anonymousTitles.push(p.title);
      else seenExternal.set(p.external_id, (seenExternal.get(p.external_id) ?? 0) + 1);
    }
    if (page.body.length < 200) break;
  }
  assert.equal(seenIds.size, TOTAL);
  assert.equal(seenExternal.size, externalIds.length, 'every external_id is there');
  for (const ext of externalIds) assert.equal(seenExternal.get(ext), 1, `${ext} exactly once`);
  assert.equal(anonymousTitles.length, WITHOUT_EXTERNAL_ID, 'items without external_id are not created twice');
  assert.equal(new Set(anonymousTitles).size, WITHOUT_EXTERNAL_ID);
});
