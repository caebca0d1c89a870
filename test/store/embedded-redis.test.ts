// The embedded redis-server's memory settings: its allocator on transparent huge pages (a third less
// of its CPU for an import's writes), a user's own allocator setting passed on
// unchanged, and a document's hash kept as one listpack.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Redis } from 'ioredis';
import { startEmbeddedRedis } from '../../src/store/embeddedRedis.js';

const dataDir = mkdtempSync(join(tmpdir(), 'kcs-embedded-redis-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * The options jemalloc runs with, as the server reports them (`opt.thp: "always"`); null where the
 * server was built with another allocator. (redis-server overwrites its environment block with its
 * process title, so /proc/<pid>/environ cannot tell.)
 */
async function allocatorOptions(client: Redis): Promise<Map<string, string> | null> {
  const info = await client.info('memory');
  if (!/mem_allocator:jemalloc/.test(info)) return null;
  const stats = String(await client.call('MEMORY', 'MALLOC-STATS'));
  return new Map([...stats.matchAll(/^\s+opt\.(\w+): "?([^"\n]*)"?$/gm)].map((m) => [m[1]!, m[2]!] as const));
}

/** An embedded server of its own (no persistence) and a client, both stopped after `use`. */
async function withEmbeddedRedis(name: string, use: (client: Redis, pid: number) => Promise<void>): Promise<void> {
  const redis = await startEmbeddedRedis(join(dataDir, name), { persist: false });
  const client = new Redis(redis.url);
  try {
    await use(client, redis.pid);
  } finally {
    client.disconnect();
    await redis.stop();
  }
}

const THP = '/sys/kernel/mm/transparent_hugepage/enabled';
/** Whether the kernel grants huge pages to a process that asks (`madvise`) or to all (`always`). */
const kernelGrantsHugePages = existsSync(THP) && !readFileSync(THP, 'utf8').includes('[never]');

test('the embedded redis-server backs its heap with transparent huge pages', (t) =>
  withEmbeddedRedis('default', async (client, pid) => {
    const options = await allocatorOptions(client);
    if (!options) return t.skip('this redis-server was not built with jemalloc');
    assert.equal(options.get('thp'), 'always');
    if (!kernelGrantsHugePages) return t.skip(`the kernel grants no huge pages (${THP}: never)`);
    // ~40 MB of hash fields, the shape of an import's writes, so that the heap spans huge pages.
    for (let batch = 0; batch < 20; batch++) {
      const pipeline = client.pipeline();
      for (let i = 0; i < 10_000; i++) pipeline.hset(`h:${batch}:${i % 100}`, `field:${i}`, 'x'.repeat(150));
      await pipeline.exec();
    }
    const huge = /AnonHugePages:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    assert.ok(Number(huge?.[1]) > 0, `redis-server holds huge pages (${huge?.[0]})`);
  }));

test("a user's own allocator setting reaches the embedded redis-server unchanged", async (t) => {
  // Both names, so that either jemalloc (Debian's shared one, or the one Redis bundles) reads it.
  process.env.MALLOC_CONF = process.env.JE_MALLOC_CONF = 'narenas:2';
  try {
    await withEmbeddedRedis('own', async (client) => {
      const options = await allocatorOptions(client);
      if (!options) return t.skip('this redis-server was not built with jemalloc');
      assert.equal(options.get('narenas'), '2');
      assert.equal(options.get('thp'), 'default', 'no huge pages asked for beside the setting of the user');
    });
  } finally {
    delete process.env.MALLOC_CONF;
    delete process.env.JE_MALLOC_CONF;
  }
});

test("a document's hash stays one compact listpack, its JSON and vectors included", () =>
  withEmbeddedRedis('listpack', async (client) => {
    // A product as stored: its JSON (~1.3 KB in bench:ingest's catalogue), a few fields, and two
    // 768-dimension float32 vectors.
    const vector = Buffer.alloc(768 * 4, 7);
    await client.hset('doc', { doc: JSON.stringify({ description: 'd'.repeat(1300) }), rev: '1', embedding_status: 'done', 'vec:description': vector, 'vec:anchor': vector });
    assert.equal(await client.object('ENCODING', 'doc'), 'listpack');
    // Past the limit (8 KiB a value) Redis keeps a hash table, as for any hash.
    await client.hset('doc', 'doc', 'x'.repeat(8193));
    assert.equal(await client.object('ENCODING', 'doc'), 'hashtable');
  }));
