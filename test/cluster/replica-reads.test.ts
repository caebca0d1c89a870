// Replica reads (KCS_SEARCH_READS=replicas) with the Redis Query Engine, on a private master with two
// replicas and on a private 6-node Redis Cluster of a build with the search module
// (KCS_TEST_QE_REDIS_SERVER, KCS_TEST_QE_MODULE; skipped with one line without): every write
// answered, then searched at once, is found although the searches run on replicas; a replica killed
// or promoted while searches run costs no answer; on the cluster, a master killed costs 503s with
// Retry-After until its replica takes over, then right answers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { keys } from '../../src/store/keys.js';
import { queryEngineBuild, SKIP_WITHOUT_QUERY_ENGINE_BUILD, startRedisCluster, type RedisCluster } from '../helpers/redisCluster.js';
import { startReplicatedRedis, type ReplicatedRedis } from '../helpers/redisReplicas.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const build = queryEngineBuild();
const PRODUCTS = '/api/knowledge/products?site_id=shop';
const SEARCH = '/api/knowledge/search/products';
const READS = { KCS_SEARCH_ENGINE: 'redis', KCS_EMBEDDER: 'none', KCS_SEARCH_READS: 'replicas' };

/** A word of letters only, one per number (digits would be split off by the analysis). */
const wordOf = (n: number) => `zq${n.toString(26).split('').map((d) => String.fromCharCode(97 + parseInt(d, 26))).join('')}x`;

/** Calls a node has answered of commands matching `name` (a pattern of INFO commandstats names). */
async function calls(c: Redis, name: string): Promise<number> {
  const stats = await c.info('commandstats');
  return [...stats.matchAll(new RegExp(`cmdstat_(?:${name}):calls=(\\d+)`, 'gi'))].reduce((n, m) => n + Number(m[1]), 0);
}
/** A search's FT commands; the read of its page's documents on a replica. */
const ftCalls = (c: Redis) => calls(c, 'FT\\.SEARCH|FT\\.AGGREGATE');
const documentReads = (c: Redis) => calls(c, 'evalsha_ro|eval_ro');

async function tenantWithSite(stack: Stack): Promise<TenantFixture> {
  const t = await stack.tenant();
  assert.equal((await t.request('POST', '/api/knowledge/sites', { body: { slug: 'shop', name: 'Shop', language: 'en' } })).status, 201);
  return t;
}

/** `n` products written one by one, each searched for by its own word right after its write is answered; the misses. */
async function writeThenSearch(t: TenantFixture, n: number, from = 0): Promise<string[]> {
  const missed: string[] = [];
  for (let i = from; i < from + n; i++) {
    const word = wordOf(i);
    const write = await t.request('POST', PRODUCTS, { body: { external_id: `p-${i}`, title: `Lamp ${word}`, language: 'en' } });
    assert.equal(write.status, 201, write.text);
    const found = await t.request('POST', SEARCH, { body: { query: word, mode: 'keyword' } });
    assert.equal(found.status, 200, found.text);
    if (found.body.hits[0]?.id !== write.body.id) missed.push(word);
  }
  return missed;
}

if (!build) {
  test('replica reads with the Redis Query Engine', { skip: SKIP_WITHOUT_QUERY_ENGINE_BUILD }, () => undefined);
} else {
  describe('replica reads on one server with two replicas', () => {
    let servers: ReplicatedRedis;
    let stack: Stack;

    before(async () => {
      servers = await startReplicatedRedis({ replicas: 2, ...build });
      // The cache of recent results holds nothing with replica reads (its mark is the master's).
      stack = await startStack({ ...READS, KCS_SEARCH_CACHE_MB: '8' }, { redis: servers.url });
      // A replica serves once seen for a whole wait timeout (1 s).
      await new Promise((r) => setTimeout(r, 1300));
    });
    after(async () => {
      await stack?.close();
      await servers?.stop();
    });

    test('300 writes, each searched at once: every one found, the searches answered by the replicas', async (t2) => {
      const t = await tenantWithSite(stack);
      const before = await Promise.all([servers.master, ...servers.replicas].map((n) => servers.ask(n, ftCalls)));
      assert.deepEqual(await writeThenSearch(t, 300), []);
      for (let i = 0; i < 3; i++) assert.equal((await t.request('POST', SEARCH, { body: { query: 'lamp', mode: 'keyword' } })).body.total, 300);
      const after = await Promise.all([servers.master, ...servers.replicas].map((n) => servers.ask(n, ftCalls)));
      const [onMaster, ...onReplicas] = after.map((n, i) => n - before[i]);
      t2.diagnostic(`FT calls: master ${onMaster}, replicas ${onReplicas.join(' and ')}`);
      for (const n of onReplicas) assert.ok(n > 100, `each replica answered searches (${onReplicas})`);
      assert.ok(onMaster < onReplicas[0] + onReplicas[1], `the master answered fewer than the replicas (${onMaster})`);
      const metrics = (await stack.request('GET', '/metrics')).text;
      assert.match(metrics, /^kcs_search_cache_hits 0$/m, 'no search answered from the cache of recent results');
      const documents = await Promise.all(servers.replicas.map((n) => servers.ask(n, documentReads)));
      assert.ok(documents[0] + documents[1] >= 250, `the replicas read the pages' documents (${documents})`);
    });

    test('a replica killed, then the other promoted, while searches run: every search answered, and right', async () => {
      const t = await tenantWithSite(stack);
      assert.deepEqual(await writeThenSearch(t, 20), []);
      const [killed, promoted] = servers.replicas;
      let searches = 0;
      const search = async () => {
        const res = await t.request('POST', SEARCH, { body: { query: 'lamp', mode: 'keyword', limit: 50 } });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.total, 20);
        searches++;
      };
      for (let i = 0; i < 30; i++) await search();
      killed.process.kill('SIGKILL');
      for (let i = 0; i < 60; i++) await search();
      await servers.ask(promoted, (c) => c.replicaof('NO', 'ONE'));
      for (let i = 0; i < 60; i++) await search();
      assert.equal(searches, 150);
      // Writes and searches go on with the master alone.
      assert.deepEqual(await writeThenSearch(t, 10, 1000), []);
    });
  });

  describe('replica reads on a 6-node Redis Cluster', () => {
    let cluster: RedisCluster;
    let stack: Stack;

    before(async () => {
      cluster = await startRedisCluster({ nodeTimeoutMs: 2000, ...build });
      stack = await startStack(READS, { redis: cluster.target });
      await new Promise((r) => setTimeout(r, 1300));
    });
    after(async () => {
      await stack?.close();
      await cluster?.stop();
    });

    test('200 writes, each searched at once: every one found, the searches answered by the replica', async (t2) => {
      const t = await tenantWithSite(stack);
      const master = await cluster.masterOf(calculateSlot(keys.tenant(t.tenant.id)));
      const ports = cluster.nodes.map((n) => n.port);
      const calls = () => Promise.all(cluster.nodes.map(async (n) => {
        const c = new Redis({ port: n.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
        try {
          await c.connect();
          return await ftCalls(c);
        } finally {
          c.disconnect();
        }
      }));
      const before = await calls();
      assert.deepEqual(await writeThenSearch(t, 200), []);
      const delta = (await calls()).map((n, i) => n - before[i]);
      const onMaster = delta[ports.indexOf(master.port)];
      const elsewhere = delta.reduce((a, b) => a + b, 0) - onMaster;
      t2.diagnostic(`FT calls: the tenant's master ${onMaster}, its replica ${elsewhere}`);
      assert.ok(elsewhere > onMaster, 'the replica answered most searches');
    });

    test('kill -9 of the tenant\'s master with replica reads on: 503 with Retry-After or right answers, then right answers', async () => {
      const t = await tenantWithSite(stack);
      assert.deepEqual(await writeThenSearch(t, 20), []);
      const master = await cluster.masterOf(calculateSlot(keys.tenant(t.tenant.id)));
      let answered = 0;
      let refused = 0;
      let killed = false;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline && answered < 200; ) {
        if (!killed && answered >= 20) {
          master.process.kill('SIGKILL');
          killed = true;
        }
        const res = await t.request('POST', SEARCH, { body: { query: 'lamp', mode: 'keyword', limit: 50 } });
        if (res.status === 200) {
          assert.equal(res.body.total, 20, 'every product');
          answered++;
        } else {
          assert.equal(res.status, 503, res.text);
          assert.equal(res.headers['retry-after'], '1');
          refused++;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      assert.equal(answered, 200, `${answered} answered, ${refused} refused`);
      await cluster.waitHealthy();
      assert.deepEqual(await writeThenSearch(t, 10, 1000), []);
    });
  });
}
