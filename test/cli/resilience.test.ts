// `npm start` when things go wrong: the embedded redis-server killed under a running service, and
// a stop while the embed worker has a backlog.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { freePort, isAlive } from '../../src/store/embeddedRedis.js';
import { CliProcess, httpJson } from '../helpers/process.js';

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** `kcs start` on a fresh data directory, ready, with its first-start key. */
async function startKcs(env: Record<string, string>, dataDir = mkdtempSync(join(tmpdir(), 'kcs-resilience-'))) {
  dirs.push(dataDir);
  const port = await freePort();
  const kcs = new CliProcess(['start'], { PORT: String(port), KCS_DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_URL: '', ...env });
  await kcs.until(async () => (await httpJson(port, 'localhost', 'GET', '/readyz').catch(() => ({ status: 0 }))).status === 200, 30_000, '/readyz');
  return { kcs, port, dataDir, host: `demo.localhost:${port}` };
}

const firstKey = async (kcs: CliProcess) => {
  await kcs.until(() => /kcs_[\w-]+/.test(kcs.stdout), 10_000, 'the first-start key');
  return /kcs_[\w-]+/.exec(kcs.stdout)![0];
};

test('the embedded redis-server killed with -9: 503 + Retry-After meanwhile, then the service picks up by itself', async () => {
  const { kcs, port, dataDir, host } = await startKcs({ KCS_EMBEDDER: 'none' });
  try {
    const key = await firstKey(kcs);
    const site = await httpJson(port, host, 'POST', '/api/knowledge/sites', key, { slug: 'kept', name: 'Kept', language: 'en' });
    assert.equal(site.status, 201);
    const pidFile = join(dataDir, 'redis', 'redis.pid');
    const killed = Number(readFileSync(pidFile, 'utf8'));
    process.kill(killed, 'SIGKILL');
    await kcs.until(() => !isAlive(killed), 5_000, 'redis-server gone');

    // Until it is back every request is refused at once: 503 with Retry-After, never a hang.
    const down = await httpJson(port, host, 'GET', '/api/knowledge/sites', key);
    if (down.status === 503) assert.equal(down.headers['retry-after'], '1');
    else assert.equal(down.status, 200, 'either refused or already back');

    await kcs.until(async () => (await httpJson(port, 'localhost', 'GET', '/readyz')).status === 200, 30_000, 'ready again');
    assert.notEqual(Number(readFileSync(pidFile, 'utf8')), killed, 'a new redis-server runs');
    const kept = await httpJson(port, host, 'GET', '/api/knowledge/sites/kept', key);
    assert.equal(kept.status, 200, 'the data written before the kill is there (append-only file)');
    const written = await httpJson(port, host, 'POST', '/api/knowledge/sites', key, { slug: 'after', name: 'After', language: 'en' });
    assert.equal(written.status, 201, 'writes work again without a restart of kcs');
  } finally {
    assert.equal(await kcs.stop(), 0, kcs.stderr);
  }
});

test('a stop with an embedding backlog ends cleanly and leaves the backlog queued for the next start', async () => {
  // Small embedding batches: the first ones land within seconds even on a busy machine.
  const env = { KCS_SHUTDOWN_GRACE_MS: '10000', KCS_EMBED_BATCH: '16' };
  const first = await startKcs(env);
  const { port, host } = first;
  let job = '';
  let key = '';
  const embedding = async (p: number) => (await httpJson(p, host, 'GET', job, key)).body.embedding as { pending: number; done: number; failed: number };
  try {
    key = await firstKey(first.kcs);
    assert.equal((await httpJson(port, host, 'POST', '/api/knowledge/sites', key, { slug: 'en', name: 'EN', language: 'en' })).status, 201);
    const sentence = (i: number) => `A light waterproof trail shoe, model ${i}, for long runs on wet mountain paths and rocky ground. `;
    const items = Array.from({ length: 200 }, (_, i) => ({ external_id: `p${i}`, title: `Trail shoe ${i}`, description: sentence(i).repeat(4), language: 'en' }));
    const bulk = await httpJson(port, host, 'POST', '/api/knowledge/products/bulk?site_id=en&wait=true', key, items);
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    job = `/api/knowledge/jobs/${bulk.body.id}`;
    await first.kcs.until(async () => (await embedding(port)).done > 0, 120_000, 'the first embeddings');
  } finally {
    assert.equal(await first.kcs.stop(), 0, first.kcs.stderr);
  }
  assert.doesNotMatch(first.kcs.stdout + first.kcs.stderr, /did not finish in time/);

  const second = await startKcs(env, first.dataDir);
  try {
    const left = await embedding(second.port);
    assert.ok(left.pending > 0, 'the stop left a backlog (it did not wait for it)');
    await second.kcs.until(async () => (await embedding(second.port)).pending === 0, 180_000, 'the backlog embedded after the restart');
    const { pending, done, failed } = await embedding(second.port);
    assert.deepEqual({ pending, done, failed }, { pending: 0, done: 200, failed: 0 });
  } finally {
    assert.equal(await second.kcs.stop(), 0, second.kcs.stderr);
  }
});
