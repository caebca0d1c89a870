// The ingest worker runs each concurrent import on a Redis connection of its own (a lane), so one
// import's reads never queue behind another's write pipeline: with KCS_WORKER_CONCURRENCY=3 the
// worker holds three `kcs-ingest` connections, and three imports at once (one of them re-sending
// the products of another) are each stored whole.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/store/embeddedRedis.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { NDJSON, ndjson, postBulk, waitJob } from '../api/bulk/fixtures.js';

const LANES = 3;
const ITEMS = 1_200; // more than two rounds of 500 per import

let dir: string;
let redis: EmbeddedRedis;
let stack: Stack;
let t: TenantFixture;

// A Redis of this file's own: the connections counted below are this worker's alone.
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kcs-lanes-'));
  redis = await startEmbeddedRedis(dir, { persist: false });
  stack = await startStack({ KCS_EMBEDDER: 'none', KCS_WORKER_CONCURRENCY: String(LANES) }, { redis: redis.url });
  t = await stack.tenant();
});
after(async () => {
  await stack.close();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

const bulk = (siteId: string, prefix: string, price: string) =>
  postBulk(siteId, ndjson(Array.from({ length: ITEMS }, (_, i) => ({ external_id: `${prefix}-${i}`, title: `Product ${i}`, price_current: price, language: 'en' }))), NDJSON, { on: t });

test('one connection per concurrent import; imports at once are each stored whole', { timeout: 60_000 }, async () => {
  const client = await stack.client();
  try {
    const names = (await client.client('LIST') as string).split('\n').map((line) => /\bname=(\S*)/.exec(line)?.[1]);
    assert.equal(names.filter((name) => name === 'kcs-ingest').length, LANES);
  } finally {
    client.disconnect();
  }

  const sites = await Promise.all(['a', 'b'].map(async (slug) => {
    const res = await t.request('POST', '/api/knowledge/sites', { body: { slug: `lanes-${slug}`, name: slug, language: 'en' } });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  }));
  // Site a twice: the second import names the same products with another price, so it updates
  // what the first one creates, whichever of the two writes a product first.
  const accepted = await Promise.all([bulk(sites[0], 'a', '1.00'), bulk(sites[1], 'b', '2.00'), bulk(sites[0], 'a', '3.00')]);
  const jobs = await Promise.all(accepted.map(async (res) => {
    assert.equal(res.status, 202, res.text);
    return (await waitJob(res.body.job_id, t)).counts;
  }));
  assert.deepEqual(jobs[1], { created: ITEMS, updated: 0, unchanged: 0, failed: 0, rejected: 0 });
  const [first, second] = [jobs[0], jobs[2]];
  assert.equal(first.created + second.created, ITEMS, 'each product of site a created once');
  assert.equal(first.created + first.updated + first.unchanged + first.failed, ITEMS);
  assert.equal(second.created + second.updated + second.unchanged + second.failed, ITEMS);
  assert.equal(first.failed + second.failed, 0);
  for (const [site, count] of [[sites[0], ITEMS], [sites[1], ITEMS]] as const) {
    const res = await t.request('GET', `/api/knowledge/products?site_id=${site}&limit=1`);
    assert.equal(Number(res.headers['x-total-count']), count);
  }
});
