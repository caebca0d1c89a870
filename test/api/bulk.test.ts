// Bulk import over real HTTP (DESIGN §4 "Products" → Bulk, jobs): NDJSON and JSON-array bodies,
// per-item errors that never block valid items, the job resource with ?wait=true, re-sends
// (unchanged/updated), the source, the limits (10,000 items, 32 MiB, content type, list body) and
// tenant isolation of jobs. Embedding is off here (KCS_EMBEDDER=none); see test/workers/embedding.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';
import { assertError } from '../helpers/assertions.js';

const BULK = '/api/knowledge/products/bulk';
const PRODUCTS = '/api/knowledge/products';
const JOBS = '/api/knowledge/jobs';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const MIB = 1024 * 1024;
const NDJSON = 'application/x-ndjson';
const JSON_TYPE = 'application/json';

const JSON_INVALID = [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }];
const TITLE_TOO_SHORT = [{ loc: ['body', 'title'], msg: 'String should have at least 1 character', type: 'string_too_short' }];
const NOT_AN_OBJECT = [{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }];
const JOB_KEYS = ['counts', 'created_at', 'embedding', 'errors', 'finished_at', 'id', 'status', 'total'];

let stack: Stack;
let t: TenantFixture;
before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
  t = await stack.tenant();
});
after(() => stack.close());

// ---- helpers ----------------------------------------------------------------------------------

let siteCounter = 0;
/** A fresh site of tenant `on`; returns its id. */
async function newSite(on: TenantFixture = t): Promise<string> {
  const res = await on.request('POST', '/api/knowledge/sites', { body: { slug: `bulk-${++siteCounter}`, name: 'Bulk shop', language: 'en' } });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

type Item = Record<string, unknown>;
const item = (externalId: string | null, over: Item = {}): Item => ({
  ...(externalId === null ? {} : { external_id: externalId }),
  title: `Product ${externalId ?? 'anonymous'}`,
  language: 'en',
  ...over,
});
const ndjson = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join('\n') + '\n';

function postBulk(siteId: string, raw: string | Buffer, contentType: string, options: { query?: string; headers?: Record<string, string>; on?: TenantFixture } = {}): Promise<HttpResult> {
  const query = options.query ? `&${options.query}` : '';
  return (options.on ?? t).request('POST', `${BULK}?site_id=${encodeURIComponent(siteId)}${query}`, {
    raw,
    headers: { 'content-type': contentType, ...options.headers },
  });
}

/** The job once the worker has stored its items. */
async function waitJob(jobId: string, on: TenantFixture = t): Promise<any> {
  const res = await on.request('GET', `${JOBS}/${jobId}?wait=true`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.status, 'completed', JSON.stringify(res.body));
  return res.body;
}

/** Every product of a site, paging through the list. */
async function listAll(siteId: string): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; offset += 200) {
    const res = await t.request('GET', `${PRODUCTS}?site_id=${siteId}&limit=200&offset=${offset}`);
    assert.equal(res.status, 200, res.text);
    out.push(...res.body);
    if (res.body.length < 200) return out;
  }
}

async function totalCount(siteId: string): Promise<number> {
  const res = await t.request('GET', `${PRODUCTS}?site_id=${siteId}&limit=1`);
  assert.equal(res.status, 200, res.text);
  return Number(res.headers['x-total-count']);
}

function assertJobShape(job: any): void {
  assert.deepEqual(Object.keys(job).sort(), JOB_KEYS);
  assert.match(job.id, UUID_V4);
  assert.ok(['queued', 'running', 'completed', 'failed'].includes(job.status), job.status);
  assert.deepEqual(Object.keys(job.counts).sort(), ['created', 'failed', 'rejected', 'unchanged', 'updated']);
  assert.deepEqual(Object.keys(job.embedding).sort(), ['done', 'failed', 'pending']);
  assert.match(job.created_at, ISO);
  if (job.status === 'completed' || job.status === 'failed') {
    assert.match(job.finished_at, ISO);
    assert.ok(Date.parse(job.finished_at) >= Date.parse(job.created_at));
  } else {
    assert.equal(job.finished_at, null);
  }
}


// ---- bodies and item errors -------------------------------------------------------------------

describe('bodies and item errors', () => {
  test('NDJSON: 202 with per-item errors; blank lines are skipped; valid items are stored', async () => {
    const site = await newSite();
    const body = [
      JSON.stringify(item('nd-1')),
      '', // blank lines are no items
      '{"title": "broken", ', // index 1: not JSON
      '   ',
      JSON.stringify({ title: '', language: 'en', external_id: 'nd-bad' }), // index 2: schema-invalid
      '5', // index 3: not an object
      JSON.stringify(item('nd-2', { price_current: '19.90' })), // index 4
      '',
    ].join('\n');
    const res = await postBulk(site, body, NDJSON);
    assert.equal(res.status, 202, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['accepted', 'errors', 'job_id', 'rejected']);
    assert.match(res.body.job_id, UUID_V4);
    assert.equal(res.body.accepted, 2);
    assert.equal(res.body.rejected, 3);
    assert.deepEqual(res.body.errors, [
      { index: 1, detail: JSON_INVALID },
      { index: 2, detail: TITLE_TOO_SHORT },
      { index: 3, detail: NOT_AN_OBJECT },
    ]);
    assert.ok(res.headers['x-request-id']);

    const job = await waitJob(res.body.job_id);
    assertJobShape(job);
    assert.equal(job.id, res.body.job_id);
    assert.equal(job.total, 5, 'blank lines do not count as items');
    assert.deepEqual(job.counts, { created: 2, updated: 0, unchanged: 0, failed: 0, rejected: 3 });
    assert.deepEqual(job.errors, res.body.errors);
    assert.deepEqual(job.embedding, { pending: 0, done: 0, failed: 0 });

    const products = await listAll(site);
    assert.deepEqual(products.map((p) => p.external_id).sort(), ['nd-1', 'nd-2']);
    for (const p of products) {
      assert.equal(p.source, 'bulk');
      assert.equal(p.embedding_status, 'skipped');
      assert.equal(p.site_id, site);
    }
    assert.equal(products.find((p) => p.external_id === 'nd-2').price_current, '19.90');
  });

  test('NDJSON with CRLF line ends and no final newline', async () => {
    const site = await newSite();
    const body = [JSON.stringify(item('crlf-1')), '', JSON.stringify(item('crlf-2'))].join('\r\n');
    const res = await postBulk(site, body, `${NDJSON}; charset=utf-8`);
    assert.equal(res.status, 202, res.text);
    assert.deepEqual({ ...res.body, job_id: undefined }, { job_id: undefined, accepted: 2, rejected: 0, errors: [] });
    const job = await waitJob(res.body.job_id);
    assert.equal(job.total, 2);
    assert.equal(job.counts.created, 2);
  });

  test('JSON array: 202 with per-item errors; indexes are array positions', async () => {
    const site = await newSite();
    const items = [item('ja-1'), { title: '', language: 'en' }, 5, null, 'text', item('ja-2'), item(null, { title: 'No external id' })];
    const res = await postBulk(site, JSON.stringify(items), `${JSON_TYPE}; charset=utf-8`);
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.accepted, 3);
    assert.equal(res.body.rejected, 4);
    assert.deepEqual(res.body.errors, [
      { index: 1, detail: TITLE_TOO_SHORT },
      { index: 2, detail: NOT_AN_OBJECT },
      { index: 3, detail: NOT_AN_OBJECT },
      { index: 4, detail: NOT_AN_OBJECT },
    ]);
    const job = await waitJob(res.body.job_id);
    assert.equal(job.total, 7);
    assert.deepEqual(job.counts, { created: 3, updated: 0, unchanged: 0, failed: 0, rejected: 4 });
    const products = await listAll(site);
    assert.equal(products.length, 3);
    assert.deepEqual(products.map((p) => p.title).sort(), ['No external id', 'Product ja-1', 'Product ja-2']);
  });

  test('an item with several problems lists all of them', async () => {
    const site = await newSite();
    const res = await postBulk(site, ndjson([{ title: '', rating_count: -1 }, item('many-ok')]), NDJSON);
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.errors.length, 1);
    const { index, detail } = res.body.errors[0];
    assert.equal(index, 0);
    const byField = Object.fromEntries(detail.map((d: any) => [d.loc.join('.'), d.type]));
    assert.deepEqual(byField, { 'body.title': 'string_too_short', 'body.language': 'missing', 'body.rating_count': 'greater_than_equal' });
    await waitJob(res.body.job_id);
  });

  test('a bulk with only invalid items is accepted as a completed job with nothing to write', async () => {
    const site = await newSite();
    const res = await postBulk(site, 'nope\n{"title": ""}\n', NDJSON);
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.accepted, 0);
    assert.equal(res.body.rejected, 2);
    const got = await t.request('GET', `${JOBS}/${res.body.job_id}`);
    assert.equal(got.status, 200, got.text);
    assertJobShape(got.body);
    assert.equal(got.body.status, 'completed');
    assert.deepEqual(got.body.counts, { created: 0, updated: 0, unchanged: 0, failed: 0, rejected: 2 });
    assert.equal(await totalCount(site), 0);
  });
});

// ---- jobs -------------------------------------------------------------------------------------

describe('jobs', () => {
  test('GET /jobs/{id} answers the job at once; ?wait=true once it is completed', async () => {
    const site = await newSite();
    const items = Array.from({ length: 300 }, (_, i) => item(`jw-${i}`));
    const res = await postBulk(site, ndjson(items), NDJSON);
    assert.equal(res.status, 202, res.text);

    const now = await t.request('GET', `${JOBS}/${res.body.job_id}`);
    assert.equal(now.status, 200, now.text);
    assertJobShape(now.body);
    assert.equal(now.body.total, 300);

    const done = await waitJob(res.body.job_id);
    assertJobShape(done);
    assert.deepEqual(done.counts, { created: 300, updated: 0, unchanged: 0, failed: 0, rejected: 0 });
    assert.deepEqual(done.errors, []);
    assert.equal(await totalCount(site), 300);
    // The job stays readable after completion, with the same answer.
    const again = await t.request('GET', `${JOBS}/${res.body.job_id.toUpperCase()}`);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, done);
  });

  test('POST ?wait=true answers 200 with the completed job', async () => {
    const site = await newSite();
    const res = await postBulk(site, JSON.stringify([item('pw-1'), item('pw-2'), { title: '' }]), JSON_TYPE, { query: 'wait=true' });
    assert.equal(res.status, 200, res.text);
    assertJobShape(res.body);
    assert.equal(res.body.status, 'completed');
    assert.equal(res.body.total, 3);
    assert.deepEqual(res.body.counts, { created: 2, updated: 0, unchanged: 0, failed: 0, rejected: 1 });
    assert.equal(res.body.errors.length, 1);
    assert.equal(res.body.errors[0].index, 2);
    // Stored by the time the answer arrives.
    assert.equal(await totalCount(site), 2);
  });

  test('re-sending the same bulk counts unchanged; changed items count updated', async () => {
    const site = await newSite();
    const items = Array.from({ length: 20 }, (_, i) => item(`rs-${i}`, { price_current: '10.00', description: `Description ${i}` }));
    const first = await postBulk(site, ndjson(items), NDJSON, { query: 'wait=true' });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body.counts, { created: 20, updated: 0, unchanged: 0, failed: 0, rejected: 0 });
    const before = new Map((await listAll(site)).map((p) => [p.external_id, p]));

    const same = await postBulk(site, ndjson(items), NDJSON, { query: 'wait=true' });
    assert.equal(same.status, 200, same.text);
    assert.notEqual(same.body.id, first.body.id, 'every request is its own job');
    assert.deepEqual(same.body.counts, { created: 0, updated: 0, unchanged: 20, failed: 0, rejected: 0 });

    const changed = items.map((it, i) => (i < 5 ? { ...it, price_current: '12.50' } : i < 8 ? { ...it, title: `Renamed ${i}` } : it));
    const third = await postBulk(site, JSON.stringify(changed), JSON_TYPE, { query: 'wait=true' });
    assert.equal(third.status, 200, third.text);
    assert.deepEqual(third.body.counts, { created: 0, updated: 8, unchanged: 12, failed: 0, rejected: 0 });

    const after = await listAll(site);
    assert.equal(after.length, 20);
    for (const p of after) {
      const i = Number(p.external_id.slice(3));
      assert.equal(p.id, before.get(p.external_id).id, 'an upsert keeps the product id');
      assert.equal(p.price_current, i < 5 ? '12.50' : '10.00');
      assert.equal(p.title, i >= 5 && i < 8 ? `Renamed ${i}` : `Product rs-${i}`);
    }
  });

  test('products written by bulk have source "bulk", or the X-Audit-Source value', async () => {
    const site = await newSite();
    const res = await postBulk(site, ndjson([item('src-1')]), NDJSON, { query: 'wait=true', headers: { 'x-audit-source': 'connector-shopify' } });
    assert.equal(res.status, 200, res.text);
    const [product] = await listAll(site);
    assert.equal(product.source, 'connector-shopify');

    const plain = await postBulk(site, ndjson([item('src-2')]), NDJSON, { query: 'wait=true' });
    assert.equal(plain.status, 200, plain.text);
    const byExt = new Map((await listAll(site)).map((p) => [p.external_id, p]));
    assert.equal(byExt.get('src-2').source, 'bulk');
  });

  test('a duplicate external_id inside one bulk makes exactly one product; the later item wins', async () => {
    const site = await newSite();
    const items = [item('dup', { title: 'First' }), item('other'), item('dup', { title: 'Second' })];
    const res = await postBulk(site, ndjson(items), NDJSON, { query: 'wait=true' });
    assert.equal(res.status, 200, res.text);
    const c = res.body.counts;
    assert.equal(c.failed, 0);
    assert.equal(c.created, 2, JSON.stringify(c));
    assert.equal(c.created + c.updated + c.unchanged, 3);
    const products = await listAll(site);
    assert.equal(products.length, 2);
    const dups = products.filter((p) => p.external_id === 'dup');
    assert.equal(dups.length, 1, 'exactly one product for the duplicated external_id');
    assert.equal(dups[0].title, 'Second');
    assert.equal(await totalCount(site), 2);
  });

  test('a duplicate external_id across two rounds of one bulk (items 500 apart) is still one product', async () => {
    const site = await newSite();
    const items = Array.from({ length: 600 }, (_, i) => item(`far-${i}`));
    items[550] = item('far-0', { title: 'Later' });
    const res = await postBulk(site, ndjson(items), NDJSON, { query: 'wait=true' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.counts.created, 599);
    assert.equal(res.body.counts.updated, 1);
    assert.equal(await totalCount(site), 599);
    const far0 = (await listAll(site)).filter((p) => p.external_id === 'far-0');
    assert.equal(far0.length, 1);
    assert.equal(far0[0].title, 'Later');
  });

  test('concurrent bulks with the same external_ids make each product once', async () => {
    const site = await newSite();
    const items = Array.from({ length: 800 }, (_, i) => item(`cc-${i}`));
    const [a, b] = await Promise.all([
      postBulk(site, ndjson(items), NDJSON, { query: 'wait=true' }),
      postBulk(site, JSON.stringify([...items].reverse()), JSON_TYPE, { query: 'wait=true' }),
    ]);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    for (const job of [a.body, b.body]) {
      assert.equal(job.counts.failed, 0);
      assert.equal(job.counts.created + job.counts.updated + job.counts.unchanged, 800);
    }
    assert.equal(a.body.counts.created + b.body.counts.created, 800, 'each product is created by exactly one of the jobs');
    const products = await listAll(site);
    assert.equal(products.length, 800);
    assert.equal(new Set(products.map((p) => p.external_id)).size, 800);
  });

  test('concurrent bulks into two sites give products of one external_id one translation group', async () => {
    const [siteA, siteB] = [await newSite(), await newSite()];
    const items = Array.from({ length: 300 }, (_, i) => item(`tg-${i}`));
    const [a, b] = await Promise.all([
      postBulk(siteA, ndjson(items), NDJSON, { query: 'wait=true' }),
      postBulk(siteB, ndjson(items.map((it) => ({ ...it, language: 'de' }))), NDJSON, { query: 'wait=true' }),
    ]);
    assert.deepEqual([a.status, b.status], [200, 200], a.text + b.text);
    assert.equal(a.body.counts.created, 300);
    assert.equal(b.body.counts.created, 300);
    const groupsA = new Map((await listAll(siteA)).map((p) => [p.external_id, p.translation_group_id]));
    const groupsB = new Map((await listAll(siteB)).map((p) => [p.external_id, p.translation_group_id]));
    assert.equal(groupsA.size, 300);
    for (const [ext, group] of groupsA) {
      assert.match(group, UUID_V4);
      assert.equal(groupsB.get(ext), group, ext);
    }
    assert.equal(new Set(groupsA.values()).size, 300, 'one group per external_id');
  });

  test('unknown job → 404; a non-UUID job id → 422; another tenant\'s job → 404', async () => {
    assertError(await t.request('GET', `${JOBS}/${randomUUID()}`), 404);
    assertError(await t.request('GET', `${JOBS}/${randomUUID()}?wait=true`), 404);

    const bad = await t.request('GET', `${JOBS}/not-a-uuid`);
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.body.detail.length, 1);
    assert.deepEqual(bad.body.detail[0].loc, ['path', 'job_id']);
    assert.equal(bad.body.detail[0].type, 'uuid_parsing');

    const site = await newSite();
    const res = await postBulk(site, ndjson([item('iso-1')]), NDJSON);
    assert.equal(res.status, 202, res.text);
    const other = await stack.tenant();
    assertError(await other.request('GET', `${JOBS}/${res.body.job_id}`), 404);
    assertError(await other.request('GET', `${JOBS}/${res.body.job_id}?wait=true`), 404);
    await waitJob(res.body.job_id);
  });

  test('the job routes need catalog:write', async () => {
    const site = await newSite();
    const readOnly = await t.keyWith(['catalog:read']);
    const post = await t.request('POST', `${BULK}?site_id=${site}`, { key: readOnly, raw: ndjson([item('scope')]), headers: { 'content-type': NDJSON } });
    assert.equal(post.status, 403, post.text);
    const res = await postBulk(site, ndjson([item('scope')]), NDJSON, { query: 'wait=true' });
    assert.equal(res.status, 200, res.text);
    const get = await t.request('GET', `${JOBS}/${res.body.id}`, { key: readOnly });
    assert.equal(get.status, 403, get.text);
  });
});

// ---- limits -----------------------------------------------------------------------------------

// ---- re-sent items: the identical-item fast path and the order of repeated external_ids ----------

describe('re-sent items', () => {
  const byExt = async (site: string) => new Map((await listAll(site)).map((p) => [p.external_id, p]));

  test('an identical re-send is unchanged: last_synced_at moves, nothing else does', async () => {
    const site = await newSite();
    const items = Array.from({ length: 30 }, (_, i) => item(`same-${i}`, { sync_hash: `h${i}`, price_current: 5 + i }));
    const first = await postBulk(site, ndjson(items), NDJSON, { query: 'wait=true' });
    assert.deepEqual(first.body.counts, { created: 30, updated: 0, unchanged: 0, failed: 0, rejected: 0 });
    const before = await byExt(site);
    const again = await postBulk(site, ndjson(items), NDJSON, { query: 'wait=true' });
    assert.deepEqual(again.body.counts, { created: 0, updated: 0, unchanged: 30, failed: 0, rejected: 0 });
    for (const [ext, p] of await byExt(site)) {
      const old = before.get(ext);
      assert.deepEqual({ ...p, last_synced_at: undefined }, { ...old, last_synced_at: undefined });
      assert.ok(Date.parse(p.last_synced_at) >= Date.parse(old.last_synced_at));
    }
  });

  test('the same item after another write to its product is applied again (the fast path never hides a change)', async () => {
    const site = await newSite();
    const original = item('fp-1', { title: 'Original', sync_hash: 'v1' });
    assert.equal((await postBulk(site, ndjson([original]), NDJSON, { query: 'wait=true' })).body.counts.created, 1);

    // A single upsert changes the product; the bulk line sent before must now update it back.
    const single = await t.request('POST', `${PRODUCTS}?site_id=${site}`, { body: item('fp-1', { title: 'Changed by the API', sync_hash: 'v2' }) });
    assert.equal(single.status, 200, single.text);
    const resent = await postBulk(site, ndjson([original]), NDJSON, { query: 'wait=true' });
    assert.deepEqual(resent.body.counts, { created: 0, updated: 1, unchanged: 0, failed: 0, rejected: 0 });
    assert.equal((await byExt(site)).get('fp-1').title, 'Original');

    // A PUT likewise.
    const id = (await byExt(site)).get('fp-1').id;
    const put = await t.request('PUT', `${PRODUCTS}/${id}`, { body: item('fp-1', { title: 'Replaced', sync_hash: 'v3' }) });
    assert.equal(put.status, 200, put.text);
    const afterPut = await postBulk(site, ndjson([original]), NDJSON, { query: 'wait=true' });
    assert.deepEqual(afterPut.body.counts, { created: 0, updated: 1, unchanged: 0, failed: 0, rejected: 0 });
    assert.equal((await byExt(site)).get('fp-1').title, 'Original');
    assert.equal((await postBulk(site, ndjson([original]), NDJSON, { query: 'wait=true' })).body.counts.unchanged, 1);
  });

  test('the same line with another X-Audit-Source changes the source; the same text in another key order is unchanged', async () => {
    const site = await newSite();
    const line = item('src-fp', { brand: 'Acme' }); // no sync_hash: every stored field counts, the source too
    await postBulk(site, ndjson([line]), NDJSON, { query: 'wait=true' });
    const other = await postBulk(site, ndjson([line]), NDJSON, { query: 'wait=true', headers: { 'x-audit-source': 'connector-x' } });
    assert.deepEqual(other.body.counts, { created: 0, updated: 1, unchanged: 0, failed: 0, rejected: 0 });
    assert.equal((await byExt(site)).get('src-fp').source, 'connector-x');

    const reordered = Object.fromEntries(Object.entries(line).reverse());
    const res = await postBulk(site, ndjson([reordered]), NDJSON, { query: 'wait=true', headers: { 'x-audit-source': 'connector-x' } });
    assert.deepEqual(res.body.counts, { created: 0, updated: 0, unchanged: 1, failed: 0, rejected: 0 });
  });

  test('a re-send with the same sync_hash and new prices updates only the volatile fields', async () => {
    const site = await newSite();
    await postBulk(site, ndjson([item('vol-1', { sync_hash: 'same', price_current: '10.00', description: 'First text' })]), NDJSON, { query: 'wait=true' });
    const before = (await byExt(site)).get('vol-1');
    const res = await postBulk(site, ndjson([item('vol-1', { sync_hash: 'same', price_current: '8.50', description: 'Ignored text' })]), NDJSON, { query: 'wait=true' });
    assert.deepEqual(res.body.counts, { created: 0, updated: 1, unchanged: 0, failed: 0, rejected: 0 });
    const after = (await byExt(site)).get('vol-1');
    assert.equal(after.price_current, '8.50');
    assert.equal(after.description, 'First text', 'a content field stays while the sync_hash is the same');
    assert.equal(after.id, before.id);
  });

  test('repeated external_ids in one bulk take effect in order, whichever of them matches what is stored', async () => {
    const site = await newSite();
    const stored = item('ord', { title: 'Stored' });
    await postBulk(site, ndjson([stored]), NDJSON, { query: 'wait=true' });

    // The first item equals the stored product, the second changes it: the second wins.
    const a = await postBulk(site, ndjson([stored, item('ord', { title: 'Later' })]), NDJSON, { query: 'wait=true' });
    assert.deepEqual(a.body.counts, { created: 0, updated: 1, unchanged: 1, failed: 0, rejected: 0 });
    assert.equal((await byExt(site)).get('ord').title, 'Later');

    // The first item changes it, the second is the state before: the second still wins.
    const b = await postBulk(site, ndjson([item('ord', { title: 'Changed' }), item('ord', { title: 'Later' })]), NDJSON, { query: 'wait=true' });
    assert.deepEqual(b.body.counts, { created: 0, updated: 2, unchanged: 0, failed: 0, rejected: 0 });
    assert.equal((await byExt(site)).get('ord').title, 'Later');

    // Three in a row within one chunk, then the same external_id far behind in another chunk.
    const many = [item('ord', { title: 'One' }), item('x-1'), item('ord', { title: 'Two' }), item('ord', { title: 'Three' })];
    for (let i = 0; i < 600; i++) many.push(item(`pad-${i}`));
    many.push(item('ord', { title: 'Last' }));
    const c = await postBulk(site, ndjson(many), NDJSON, { query: 'wait=true' });
    assert.equal(c.body.counts.failed, 0);
    assert.equal(c.body.counts.updated, 4);
    assert.equal((await byExt(site)).get('ord').title, 'Last');
    assert.equal(await totalCount(site), 1 + 1 + 600);
  });

  test('items without an external_id are created once each, also when sent twice', async () => {
    const site = await newSite();
    const anonymous = [item(null, { title: 'A' }), item(null, { title: 'A' })];
    const first = await postBulk(site, ndjson(anonymous), NDJSON, { query: 'wait=true' });
    assert.equal(first.body.counts.created, 2);
    const second = await postBulk(site, ndjson(anonymous), NDJSON, { query: 'wait=true' });
    assert.equal(second.body.counts.created, 2, 'without an upsert key every item is a new product');
    assert.equal(await totalCount(site), 4);
  });
});

describe('limits', () => {
  const small = (i: number) => ({ external_id: `l${i}`, title: `T${i}`, language: 'en' });

  test('10,000 items are accepted and all stored', async () => {
    const site = await newSite();
    const items = Array.from({ length: 10_000 }, (_, i) => small(i));
    const res = await postBulk(site, ndjson(items), NDJSON, { query: 'wait=true' });
    assert.equal(res.status, 200, res.text.slice(0, 500));
    assert.equal(res.body.status, 'completed');
    assert.equal(res.body.total, 10_000);
    assert.deepEqual(res.body.counts, { created: 10_000, updated: 0, unchanged: 0, failed: 0, rejected: 0 });
    assert.equal(await totalCount(site), 10_000);
  });

  test('10,001 items are a 413 (NDJSON and JSON array), and nothing is stored', async () => {
    const site = await newSite();
    const items = Array.from({ length: 10_001 }, (_, i) => small(i));
    assertError(await postBulk(site, ndjson(items), NDJSON), 413);
    assertError(await postBulk(site, JSON.stringify(items), JSON_TYPE), 413);
    // Blank lines do not count: 10,000 items among blank lines are fine.
    const padded = items.slice(0, 10_000).map((i) => JSON.stringify(i)).join('\n\n');
    const ok = await postBulk(site, padded, NDJSON);
    assert.equal(ok.status, 202, ok.text.slice(0, 500));
    assert.equal(ok.body.accepted, 10_000);
    await waitJob(ok.body.job_id);
    assert.equal(await totalCount(site), 10_000);
  });

  test('a body of exactly 32 MiB is accepted; one byte more is a 413', async () => {
    const site = await newSite();
    const head = ndjson([small(1), small(2)]);
    const exact = head + ' '.repeat(32 * MIB - Buffer.byteLength(head));
    assert.equal(Buffer.byteLength(exact), 32 * MIB);
    const ok = await postBulk(site, exact, NDJSON);
    assert.equal(ok.status, 202, ok.text.slice(0, 500));
    assert.equal(ok.body.accepted, 2);
    await waitJob(ok.body.job_id);

    const over = Buffer.alloc(32 * MIB + 1, 0x20);
    over.write(head);
    const res = await postBulk(site, over, NDJSON);
    assertError(res, 413);
    assert.ok(res.headers['x-request-id']);
  });

  test('a content type other than NDJSON or JSON is a 415', async () => {
    const site = await newSite();
    assertError(await postBulk(site, ndjson([small(1)]), 'text/plain'), 415);
    assertError(await postBulk(site, ndjson([small(1)]), 'application/x-www-form-urlencoded'), 415);
    assert.equal(await totalCount(site), 0);
  });

  test('a JSON body that is not an array is a 422 list_type; malformed JSON is json_invalid', async () => {
    const site = await newSite();
    const res = await postBulk(site, JSON.stringify(small(1)), JSON_TYPE);
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.body, { detail: [{ loc: ['body'], msg: 'Input should be a valid list', type: 'list_type' }] });

    const broken = await postBulk(site, '[{"title": "x"', JSON_TYPE);
    assert.equal(broken.status, 422, broken.text);
    assert.equal(broken.body.detail.length, 1);
    assert.equal(broken.body.detail[0].type, 'json_invalid');
    assert.equal(broken.body.detail[0].loc[0], 'body');
    assert.equal(await totalCount(site), 0);
  });

  test('an unknown site is a 404; a missing site_id is a 422', async () => {
    assertError(await postBulk(randomUUID(), ndjson([small(1)]), NDJSON), 404);
    assertError(await postBulk('no-such-site', ndjson([small(1)]), NDJSON), 404);
    const missing = await t.request('POST', BULK, { raw: ndjson([small(1)]), headers: { 'content-type': NDJSON } });
    assert.equal(missing.status, 422, missing.text);
    assert.deepEqual(missing.body, { detail: [{ loc: ['query', 'site_id'], msg: 'Field required', type: 'missing' }] });
  });

  test('a site of another tenant is unknown here', async () => {
    const other = await stack.tenant();
    const theirs = await newSite(other);
    assertError(await postBulk(theirs, ndjson([small(1)]), NDJSON), 404);
  });

  test('the site may be given by slug', async () => {
    const res = await t.request('POST', '/api/knowledge/sites', { body: { slug: 'by-slug-bulk', name: 'Slug', language: 'en' } });
    assert.equal(res.status, 201, res.text);
    const bulk = await postBulk('by-slug-bulk', ndjson([small(1)]), NDJSON, { query: 'wait=true' });
    assert.equal(bulk.status, 200, bulk.text);
    assert.equal(bulk.body.counts.created, 1);
    assert.equal(await totalCount(res.body.id), 1);
  });
});
