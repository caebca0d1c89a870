// A language the embedding model does not serve (DESIGN §7), with the local model (English only):
// a German product gets no vectors and no embedding work (embedding_status skipped, with
// embedding_skipped_reason language_not_served), a German bulk import queues none either, and its
// related products come from keyword similarity (title, brand, category, attributes: as
// Elasticsearch's more-like-this) among its site's products, without its own variants. An
// English product is still embedded and related by its vectors. Both engines (`npm run test:rqe`).
import assert from 'node:assert/strict';
import { Queue } from 'bullmq';
import { after, before, test } from 'node:test';
import { QUEUE_PREFIX } from '../../src/queue/connection.js';
import { EMBED_QUEUE, embedTargets, type EmbedJob } from '../../src/queue/embed.js';
import { waitEmbedded } from '../helpers/embedding.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { createSiteHttp, relatedProductsPath, upsertHttp } from './fixtures.js';

let stack: Stack;
let t: TenantFixture;
const ids: Record<string, string> = {};
const GERMAN = {
  'jacke-damen': { title: 'Regenjacke Damen', brand: 'Nordwind', category: 'Jacken', price_current: '89.90', attributes: { farbe: 'rot' } },
  'jacke-herren': { title: 'Regenjacke Herren', brand: 'Alpin', category: 'Jacken', price_current: '99.00', attributes: { farbe: 'blau' } },
  socken: { title: 'Wollsocken', brand: 'Alpin', category: 'Socken', price_current: '12.00', attributes: { farbe: 'rot' } },
  kanne: { title: 'Gießkanne aus Zink', brand: 'Holzwerk', category: 'Garten', price_current: '19.00' },
};
/** Imported in bulk: a variant of the women's jacket, and a lamp. */
const GERMAN_BULK = {
  'jacke-damen-m': { title: 'Regenjacke Damen M', brand: 'Nordwind', category: 'Jacken', attributes: { farbe: 'rot', größe: 'M' }, is_variant: true, parent_external_id: 'jacke-damen' },
  lampe: { title: 'Stehlampe', brand: 'Lumo', category: 'Wohnen' },
};

before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'local' });
  t = await stack.tenant();
  const de = await createSiteHttp(t, 'laden', 'de');
  for (const [key, body] of Object.entries(GERMAN)) ids[key] = (await upsertHttp(t, de.slug, { external_id: key, language: 'de', ...body })).id;
  const lines = Object.entries(GERMAN_BULK).map(([key, body]) => JSON.stringify({ external_id: key, language: 'de', ...body }));
  const job = await t.request('POST', `/api/knowledge/products/bulk?site_id=${de.slug}&wait=true`, { raw: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' } });
  assert.equal(job.status, 200, job.text);
  assert.deepEqual({ ...job.body.counts, embedding: job.body.embedding }, {
    created: 2, updated: 0, unchanged: 0, failed: 0, rejected: 0, embedding: { pending: 0, done: 0, failed: 0, rate_per_s: job.body.embedding.rate_per_s, eta_s: null },
  }, 'the import queued no embedding');
  const listed = await t.request('GET', `/api/knowledge/products?site_id=${de.slug}&limit=50`);
  for (const p of listed.body) ids[p.external_id] ??= p.id;
  const en = await createSiteHttp(t, 'shop', 'en');
  ids.jacket = (await upsertHttp(t, en.slug, { external_id: 'jacket', title: 'Rain jacket', language: 'en', price_current: '79.00' })).id;
});
after(() => stack?.close());

test('a German product is stored skipped, saying why, and no embedding job names it', async () => {
  const german = [...Object.keys(GERMAN), ...Object.keys(GERMAN_BULK)];
  for (const key of german) {
    const res = await t.request('GET', `/api/knowledge/products/${ids[key]}`);
    assert.deepEqual([res.body.embedding_status, res.body.embedding_skipped_reason], ['skipped', 'language_not_served'], `${key}: ${res.text}`);
  }
  const client = await stack.client();
  const queue = new Queue<EmbedJob>(EMBED_QUEUE, { connection: client, prefix: QUEUE_PREFIX });
  try {
    const jobs = await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed']);
    const named = new Set(jobs.filter((j) => j?.data.tenantId === t.tenant.id).flatMap((j) => embedTargets(j.data).map((d) => d.id)));
    for (const key of german) assert.ok(!named.has(ids[key]), `no job for ${key}`);
  } finally {
    await queue.close();
    client.disconnect();
  }
  const status = (await t.request('GET', '/api/knowledge/embedding')).body;
  assert.equal(status.products.skipped, german.length, JSON.stringify(status));
  assert.ok(status.products.pending + status.products.ready === 1, `only the English product is embedded: ${JSON.stringify(status)}`);
});

test('an English product still gets vectors', async () => {
  await waitEmbedded(t, `/api/knowledge/products/${ids.jacket}`, 'the English jacket');
  const res = await t.request('GET', `/api/knowledge/products/${ids.jacket}`);
  assert.equal(res.body.embedding_skipped_reason, null);
  const related = await t.request('GET', relatedProductsPath(ids.jacket));
  assert.deepEqual([related.status, related.body.mode, related.body.semantic_fallback], [200, 'semantic', null], related.text);
});

test("a German product's related products come from keyword similarity: title, brand, category, attributes", async () => {
  const res = await t.request('GET', relatedProductsPath(ids['jacke-damen'], '?limit=10'));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.mode, 'keyword');
  assert.match(res.body.semantic_fallback, /no vectors: related by keyword similarity/);
  const keys = res.body.hits.map((h: { id: string }) => Object.keys(ids).find((k) => ids[k] === h.id));
  // The other rain jacket (its title's words, the category); the socks share the colour only.
  assert.deepEqual(keys, ['jacke-herren', 'socken'], `not itself, not its own variant, not the unrelated, not another site: ${res.text}`);
  res.body.hits.forEach((h: { ranks: unknown }, i: number) => assert.deepEqual(h.ranks, { keyword: i + 1, semantic: null }));
  assert.ok(res.body.hits[0].score > res.body.hits[1].score);
  const variant = await t.request('GET', relatedProductsPath(ids['jacke-damen-m'], '?limit=10'));
  assert.deepEqual(variant.body.hits.map((h: { id: string }) => h.id).slice(0, 2), [ids['jacke-damen'], ids['jacke-herren']], `its parent first (title, brand, category, colour): ${variant.text}`);
});
