// Bulk import requests (DESIGN §4 "Products" → Bulk): NDJSON and JSON-array bodies, per-item
// errors that never block valid items, and the limits (10,000 items, 32 MiB, the content type, a
// list body, the site).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertError } from '../../helpers/assertions.js';
import {
  stack, t, useStack, BULK, JOBS, UUID_V4, MIB, NDJSON, JSON_TYPE, JSON_INVALID, TITLE_TOO_SHORT, NOT_AN_OBJECT,
  newSite, item, ndjson, postBulk, waitJob, listAll, totalCount, assertJobShape,
} from './fixtures.js';

useStack();

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
    assert.deepEqual(job.embedding, { pending: 0, done: 0, failed: 0, rate_per_s: 0, eta_s: null });

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

// ---- limits -----------------------------------------------------------------------------------

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
