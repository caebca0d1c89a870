// The bulk job resource: GET /jobs/{id} with ?wait=true, POST ?wait=true, errors, scope; re-sends
// (unchanged, updated, the identical-item fast path), the source, and repeated external_ids within
// one bulk, across its rounds and across concurrent bulks.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertError } from '../../helpers/assertions.js';
import { JOB_TTL_SECONDS } from '../../../src/store/jobs.js';
import { keys } from '../../../src/store/keys.js';
import {
  stack, t, useStack, BULK, PRODUCTS, JOBS, UUID_V4, NDJSON, JSON_TYPE,
  newSite, item, ndjson, postBulk, waitJob, listAll, totalCount, assertJobShape, TITLE_TOO_SHORT, NOT_AN_OBJECT, JSON_INVALID,
} from './fixtures.js';

useStack();

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

  test('every key a completed job keeps expires with it, its item results and errors too', async () => {
    const site = await newSite();
    const res = await postBulk(site, ndjson([item('ttl-1'), item('ttl-2'), { title: '' }]), NDJSON, { query: 'wait=true' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'completed');
    const redis = await stack.client();
    try {
      const { id } = res.body;
      const kept = [keys.job(t.tenant.id, id), keys.jobCounts(t.tenant.id, id), keys.jobErrors(t.tenant.id, id), keys.jobResults(t.tenant.id, id)];
      for (const key of kept) {
        const ttl = await redis.ttl(key);
        assert.ok(ttl > JOB_TTL_SECONDS - 60 && ttl <= JOB_TTL_SECONDS, `${key}: TTL ${ttl}`);
      }
      assert.equal(await redis.exists(keys.jobItems(t.tenant.id, id)), 0, 'the accepted items go once the job is done');
    } finally {
      redis.disconnect();
    }
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

  test("a bulk into a second site gives its new products the translation groups of the first site's", async () => {
    const [siteA, siteB] = [await newSite(), await newSite()];
    const items = Array.from({ length: 120 }, (_, i) => item(`tg-seq-${i}`));
    const a = await postBulk(siteA, ndjson(items), NDJSON, { query: 'wait=true' });
    // Half of them are new to the tenant as well: those get groups of their own.
    const b = await postBulk(siteB, ndjson([...items.slice(60), ...items.slice(0, 60).map((it) => ({ ...it, external_id: `${it.external_id}-b` }))]), NDJSON, { query: 'wait=true' });
    assert.deepEqual([a.status, a.body.counts.created, b.status, b.body.counts.created], [200, 120, 200, 120], a.text + b.text);
    const groupsA = new Map((await listAll(siteA)).map((p) => [p.external_id, p.translation_group_id]));
    const groupsB = new Map((await listAll(siteB)).map((p) => [p.external_id, p.translation_group_id]));
    for (let i = 0; i < 120; i++) {
      if (i >= 60) assert.equal(groupsB.get(`tg-seq-${i}`), groupsA.get(`tg-seq-${i}`), `tg-seq-${i}`);
      else assert.ok(![...groupsA.values()].includes(groupsB.get(`tg-seq-${i}-b`)), `tg-seq-${i}-b has a group of its own`);
    }
    assert.equal(new Set(groupsB.values()).size, 120);
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

  test('a line sent again is answered as the first time: its errors again, its product by its external_id, into any site', async () => {
    const site = await newSite();
    const other = await newSite();
    // Valid with and without an external_id, an invalid item, a value that is no object, no JSON.
    const body = ndjson([item('again-1'), item('again-bad', { title: '' }), item(null, { title: 'No key' }), 7]) + '{"title":\n';
    const counts = [];
    for (const target of [site, site, other]) {
      const res = await postBulk(target, body, NDJSON);
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.accepted, 2);
      assert.deepEqual(res.body.errors, [
        { index: 1, detail: TITLE_TOO_SHORT },
        { index: 3, detail: NOT_AN_OBJECT },
        { index: 4, detail: JSON_INVALID },
      ]);
      counts.push((await waitJob(res.body.job_id)).counts);
    }
    assert.deepEqual(counts, [
      { created: 2, updated: 0, unchanged: 0, failed: 0, rejected: 3 },
      { created: 1, updated: 0, unchanged: 1, failed: 0, rejected: 3 },
      { created: 2, updated: 0, unchanged: 0, failed: 0, rejected: 3 },
    ]);
    assert.equal(await totalCount(site), 3);
    assert.deepEqual((await listAll(other)).map((p) => p.external_id ?? null).sort(), ['again-1', null]);
  });
});
