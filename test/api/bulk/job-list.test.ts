// GET /api/knowledge/jobs: the tenant's latest bulk jobs, newest first, without their item errors;
// limit checked; catalog:write needed; another tenant's jobs never listed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stack, t, useStack, JOBS, NDJSON, newSite, item, ndjson, postBulk, waitJob } from './fixtures.js';

useStack();

test('the latest jobs, newest first, without item errors; limit; scope; tenants apart', async () => {
  const site = await newSite();
  const ids: string[] = [];
  for (const n of [1, 2, 3]) {
    const res = await postBulk(site, ndjson([item(`j${n}`), { title: '' }]), NDJSON);
    assert.equal(res.status, 202, res.text);
    ids.push(res.body.job_id);
    await waitJob(res.body.job_id);
  }
  const listed = await t.request('GET', JOBS);
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.body.slice(0, 3).map((j: { id: string }) => j.id), [...ids].reverse());
  const [latest] = listed.body;
  assert.equal(latest.errors, undefined, 'item errors only on the job itself');
  assert.deepEqual([latest.status, latest.total, latest.counts.created, latest.counts.rejected], ['completed', 2, 1, 1]);

  const one = await t.request('GET', `${JOBS}?limit=1`);
  assert.deepEqual(one.body.map((j: { id: string }) => j.id), [ids[2]]);
  assert.equal((await t.request('GET', `${JOBS}?limit=0`)).status, 422);
  assert.equal((await t.request('GET', `${JOBS}?limit=101`)).status, 422);

  assert.equal((await t.request('GET', JOBS, { key: await t.keyWith(['catalog:read']) })).status, 403);
  const other = await stack.tenant();
  const theirs = await other.request('GET', JOBS);
  assert.equal(theirs.status, 200);
  assert.deepEqual(theirs.body, []);
});
