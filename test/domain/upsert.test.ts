// The product upsert and delta-sync rules (domain/products.ts) on an in-memory store: what counts
// as created, updated or unchanged, when texts are embedded again, the order of requests for one
// product, retries after a concurrent write, external_id claims, and the bulk fast path by item
// digest. The same rules run end to end against Redis in test/api/products and test/api/bulk.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { ConflictError } from '../../src/domain/errors.js';
import { ProductService, type EmbeddingScheduler, type ProductInput } from '../../src/domain/products.js';
import { MemoryProductStore } from './memoryProductStore.js';

const T = 'tenant-1';
const SITE = 'site-1';
const scheduled: { productId: string; textHash: string }[] = [];
const embedding: EmbeddingScheduler = { initialStatus: 'pending', schedule: async (_t, items) => void scheduled.push(...items) };

let store: MemoryProductStore;
let products: ProductService;

beforeEach(() => {
  store = new MemoryProductStore();
  products = new ProductService(store, embedding);
  scheduled.length = 0;
});

const item = (fields: Partial<ProductInput> = {}): ProductInput =>
  ({ external_id: 'sku-1', title: 'Trail Lamp', description: 'A lamp for the trail.', language: 'en', price_current: '19.90', ...fields }) as ProductInput;
const upsert = (input: ProductInput) => products.upsert(T, { siteId: SITE, input, source: 'api' });

test('the same product twice: created, then unchanged without a write; a new price is an update without new embeddings', async () => {
  const created = await upsert(item());
  assert.equal(created.result, 'created');
  assert.equal(scheduled.length, 1, 'a new product is embedded');
  assert.equal((await upsert(item())).result, 'unchanged');
  assert.equal(store.writes, 1, 'nothing written for an unchanged product');

  const repriced = await upsert(item({ price_current: '17.50' }));
  assert.deepEqual([repriced.result, repriced.id, repriced.embed], ['updated', created.id, false]);
  assert.equal(scheduled.length, 1, 'a price is not embedded');
  assert.equal(store.rows.get(created.id)!.doc.price_current, '17.50');
  assert.equal(store.rows.get(created.id)!.rev, '2');

  const retitled = await upsert(item({ price_current: '17.50', description: 'A brighter lamp for the trail.' }));
  assert.deepEqual([retitled.result, retitled.embed], ['updated', true]);
  assert.equal(scheduled.length, 2, 'new texts are embedded again');
});

test('same sync_hash: only the volatile fields are taken (the source data is the same)', async () => {
  const created = await upsert(item({ sync_hash: 'h1' }));
  const again = await upsert(item({ sync_hash: 'h1', title: 'Ignored: same sync_hash', availability: 'out_of_stock' }));
  assert.equal(again.result, 'updated');
  const doc = store.rows.get(created.id)!.doc;
  assert.equal(doc.title, 'Trail Lamp', 'a non-volatile field is kept');
  assert.equal(doc.availability, 'out_of_stock', 'a volatile field is taken');
});

test('requests for one product in one batch apply in their order', async () => {
  const outcomes = await products.upsertMany(T, [
    { siteId: SITE, input: item({ price_current: '1.00' }), source: 'bulk' },
    { siteId: SITE, input: item({ price_current: '2.00' }), source: 'bulk' },
    { siteId: SITE, input: item({ external_id: 'sku-2' }), source: 'bulk' },
  ]);
  assert.deepEqual(outcomes.map((o) => o.result), ['created', 'updated', 'created']);
  assert.equal(outcomes[0].id, outcomes[1].id);
  assert.equal(store.rows.get(outcomes[0].id)!.doc.price_current, '2.00', 'the later request wins');
});

test('a write that raced with another writer is read again and retried', async () => {
  const created = await upsert(item());
  // Between this upsert's read and its write another process changes the product.
  store.beforeWrite = () => {
    const row = store.rows.get(created.id)!;
    row.doc = { ...row.doc, brand: 'Elsewhere' };
    row.rev = String(Number(row.rev) + 1);
  };
  const outcome = await upsert(item({ price_current: '9.99' }));
  assert.equal(outcome.result, 'updated');
  const row = store.rows.get(created.id)!;
  assert.equal(row.doc.price_current, '9.99');
  assert.equal(row.rev, '3', 'one write of ours after the other writer');
});

test("PUT of another product's external_id is a conflict, and nothing changes", async () => {
  await upsert(item());
  const other = await upsert(item({ external_id: 'sku-2' }));
  await assert.rejects(products.replace(T, other.id, { input: item({ external_id: 'sku-1' }), source: 'api' }), ConflictError);
  assert.equal(store.rows.get(other.id)!.doc.external_id, 'sku-2');
});

test('bulk fast path: an item whose digest is the one last applied is unchanged without a read; each job item counts once', async () => {
  const job = (index: number) => ({ jobId: 'job-1', index });
  const [first] = await products.upsertMany(T, [{ siteId: SITE, input: item(), source: 'bulk', itemDigest: 'digest-1', jobItem: job(0) }]);
  assert.equal(first.result, 'created');

  const settled = await products.settleUnchanged(T, {
    siteId: SITE, jobId: 'job-2', items: [
      { externalId: 'sku-1', itemDigest: 'digest-1', index: 0 },
      { externalId: 'sku-1', itemDigest: 'digest-other', index: 1 },
      { externalId: 'unknown', itemDigest: 'digest-1', index: 2 },
    ],
  });
  assert.deepEqual(settled.map((s) => s.result), ['unchanged', 'unsettled', 'unsettled']);
  assert.deepEqual(settled.map((s) => s.id), [first.id, first.id, null]);
  assert.equal(store.jobResults.get('job-2 0'), 'unchanged');

  const again = await products.settleUnchanged(T, { siteId: SITE, jobId: 'job-2', items: [{ externalId: 'sku-1', itemDigest: 'digest-1', index: 0 }] });
  assert.equal(again[0].result, 'done', 'a job item already counted is not counted again');
  assert.equal(store.writes, 1);
});
