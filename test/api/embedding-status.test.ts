// GET /api/knowledge/embedding: the tenant's model, its products and entries by embedding status
// (counted by the scripts that set a status), the current rate and the time left; and the same
// rate in a bulk job's progress. With the real local model and the stack's embed workers.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { keys } from '../../src/store/keys.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const STATUS = '/api/knowledge/embedding';
const counts = (over: Partial<Record<'pending' | 'ready' | 'failed' | 'skipped', number>> = {}) => ({ pending: 0, ready: 0, failed: 0, skipped: 0, ...over });

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (const deadline = Date.now() + 60_000; ; await delay(200)) {
    const value = await read();
    if (done(value)) return value;
    assert.ok(Date.now() < deadline, `${what}: ${JSON.stringify(value)}`);
  }
}

describe('with the local model', () => {
  let stack: Stack;
  let t: TenantFixture;
  let site: string;
  before(async () => {
    stack = await startStack({ KCS_EMBEDDER: 'local' });
    t = await stack.tenant();
    site = (await t.request('POST', '/api/knowledge/sites', { body: { slug: 'shop', name: 'Shop', language: 'en' } })).body.id;
  });
  after(() => stack?.close());
  const status = async () => {
    const res = await t.request('GET', STATUS);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  test('a new tenant: the model, nothing counted, no rate', async () => {
    assert.deepEqual(await status(), { model: 'use-lite-512-en', languages: ['en'], products: counts(), entries: counts(), rate_per_s: 0, eta_s: null, reembedding: null });
  });

  test('a bulk import: pending, then ready; the job and the route show the rate', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => JSON.stringify({ external_id: `s-${i}`, title: `Kettle ${i}`, description: `An electric kettle, model ${i}.`, language: 'en' }));
    const accepted = await t.request('POST', `/api/knowledge/products/bulk?site_id=${site}`, { raw: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' } });
    assert.equal(accepted.status, 202, accepted.text);
    const job = await until(
      async () => (await t.request('GET', `/api/knowledge/jobs/${accepted.body.job_id}`)).body,
      (view) => view.status === 'completed' && view.embedding.pending === 0,
      'the job embedded everything',
    );
    assert.equal(job.embedding.done, 40);
    assert.equal(job.embedding.eta_s, null, 'nothing pending');
    assert.ok(job.embedding.rate_per_s > 0, `a rate: ${job.embedding.rate_per_s}`);
    const after = await status();
    assert.deepEqual(after.products, counts({ ready: 40 }));
    assert.ok(after.rate_per_s > 0);
  });

  test('entries are counted apart; a deleted product leaves the counts', async () => {
    const category = (await t.request('POST', '/api/knowledge/categories', { body: { name: 'Help' } })).body.id;
    const entry = await t.request('POST', '/api/knowledge/knowledge-entries', { body: { category_id: category, language: 'en', title: 'Descaling', content: 'Use vinegar.', visibility: 'public' } });
    assert.equal(entry.status, 201, entry.text);
    const listed = await t.request('GET', `/api/knowledge/products?site_id=${site}&limit=1`);
    assert.equal((await t.request('DELETE', `/api/knowledge/products/${listed.body[0].id}`)).status, 204);
    const settled = await until(status, (s) => s.entries.ready === 1, 'the entry embedded');
    assert.deepEqual([settled.products, settled.entries], [counts({ ready: 39 }), counts({ ready: 1 })]);
  });

  test('catalog:read is needed', async () => {
    const key = await t.keyWith(['knowledge:read']);
    assert.equal((await t.request('GET', STATUS, { key })).status, 403);
    assert.equal((await t.request('GET', STATUS, { key: '' })).status, 401);
  });
});

test('embedding off: no model, documents counted as skipped', async () => {
  const stack = await startStack({ KCS_EMBEDDER: 'none' });
  try {
    const t = await stack.tenant();
    const site = (await t.request('POST', '/api/knowledge/sites', { body: { slug: 'shop', name: 'Shop', language: 'en' } })).body.id;
    assert.equal((await t.request('POST', `/api/knowledge/products?site_id=${site}`, { body: { external_id: 'x', title: 'Lamp', language: 'en' } })).status, 201);
    const res = await t.request('GET', STATUS);
    assert.deepEqual(res.body, { model: null, languages: [], products: counts({ skipped: 1 }), entries: counts(), rate_per_s: 0, eta_s: null, reembedding: null });
  } finally {
    await stack.close();
  }
});

test('the ETA is estimated from the current rate: the latest run of embedding, not the whole minute', async () => {
  // Right after a large import the worker has embedded for a few seconds only (it waits while
  // imports run): the documents of those seconds, as storeVectors counts them, per 1-s bucket.
  const stack = await startStack({ KCS_EMBEDDER: 'none' }, { workers: false });
  const client = await stack.client();
  try {
    const t = await stack.tenant();
    await client.hset(keys.embeddingCounts(t.tenant.id), 'product:pending', 5000);
    const now = Math.floor(Date.now() / 1000);
    // A run a minute ago does not count; the one that began 3 s ago (50 documents a second) does.
    await client.hset(keys.embeddingRate(t.tenant.id), { [now - 55]: 400, [now - 54]: 400, [now - 2]: 50, [now - 1]: 50, [now]: 50 });
    const status = (await t.request('GET', STATUS)).body;
    assert.ok(status.rate_per_s >= 37 && status.rate_per_s <= 75, `about 50 a second: ${status.rate_per_s}`);
    assert.ok(status.eta_s >= 60 && status.eta_s <= 140, `5,000 pending at that rate, not at the minute's average (2,000 s): ${status.eta_s}`);
    // A pause (an import runs again): the rate stays that of the latest run, so does the ETA.
    await client.del(keys.embeddingRate(t.tenant.id));
    await client.hset(keys.embeddingRate(t.tenant.id), { [now - 20]: 40, [now - 19]: 40, [now - 18]: 40, [now - 17]: 40 });
    const paused = (await t.request('GET', STATUS)).body;
    assert.ok(paused.rate_per_s >= 40 && paused.rate_per_s <= 41, `the latest run's 40 a second: ${paused.rate_per_s}`);
    assert.equal(paused.eta_s, 125);
    // Nothing embedded in the last minute: no rate, no ETA.
    await client.del(keys.embeddingRate(t.tenant.id));
    await client.hset(keys.embeddingRate(t.tenant.id), { [now - 70]: 100 });
    assert.deepEqual([(await t.request('GET', STATUS)).body.rate_per_s, (await t.request('GET', STATUS)).body.eta_s], [0, null]);
  } finally {
    client.disconnect();
    await stack.close();
  }
});
