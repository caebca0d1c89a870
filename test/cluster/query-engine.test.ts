// kcs with the Redis Query Engine on a private 6-node Redis Cluster of a build with the search
// module (KCS_TEST_QE_REDIS_SERVER, KCS_TEST_QE_MODULE; skipped with one line without): every
// search is answered by the Query Engine on the master of the tenant's slot. What clusters do while
// searches run: `kill -9` of that master (503 with Retry-After until its replica takes over, then
// right answers, nothing lost), and the tenant's slot migrated to another master while searches and
// writes run, as `redis-cli --cluster reshard` moves it (503s meanwhile, never a wrong answer, and
// every acknowledged document searchable afterwards).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import calculateSlot from 'cluster-key-slot';
import { keys } from '../../src/store/keys.js';
import { queryEngineBuild, SKIP_WITHOUT_QUERY_ENGINE_BUILD, startRedisCluster, type RedisCluster } from '../helpers/redisCluster.js';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';

const build = queryEngineBuild();
const PRODUCTS = '/api/knowledge/products?site_id=shop';
const SEARCH = '/api/knowledge/search/products';
/** Far above the 503s measured and far below a hang. */
const NO_HANG_MS = 5000;

/** A refused search or write: 503 with Retry-After, answered without waiting for the cluster. */
function assertRefusal(res: HttpResult, ms: number, what: string): void {
  assert.equal(res.status, 503, `${what}: ${res.status} ${res.text}`);
  assert.equal(res.headers['retry-after'], '1', what);
  assert.ok(ms < NO_HANG_MS, `${what} took ${ms.toFixed(0)} ms`);
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await run();
  return [result, performance.now() - started];
}

if (!build) {
  test('the Redis Query Engine on a Redis Cluster', { skip: SKIP_WITHOUT_QUERY_ENGINE_BUILD }, () => undefined);
} else {
  describe('the Redis Query Engine on a Redis Cluster', () => {
    let cluster: RedisCluster;
    let stack: Stack;

    before(async () => {
      cluster = await startRedisCluster({ nodeTimeoutMs: 2000, ...build });
      stack = await startStack({ KCS_SEARCH_ENGINE: 'redis', KCS_EMBEDDER: 'none' }, { redis: cluster.target });
    });
    after(async () => {
      await stack?.close();
      await cluster?.stop();
    });

    /** A tenant with a site and `n` products titled "Lamp <i>"; their ids. */
    async function tenantWithLamps(n: number): Promise<{ t: TenantFixture; ids: string[] }> {
      const t = await stack.tenant();
      assert.equal((await t.request('POST', '/api/knowledge/sites', { body: { slug: 'shop', name: 'Shop', language: 'en' } })).status, 201);
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const res = await t.request('POST', PRODUCTS, { body: { external_id: `lamp-${i}`, title: `Lamp ${i}`, language: 'en', price_current: String(10 + i) } });
        assert.equal(res.status, 201, res.text);
        ids.push(res.body.id);
      }
      return { t, ids };
    }

    const lamps = (t: TenantFixture) => t.request('POST', SEARCH, { body: { query: 'lamp', mode: 'keyword', limit: 100 } });

    test('a search is answered by the Query Engine on the master of the tenant\'s slot', async () => {
      const { t, ids } = await tenantWithLamps(5);
      const res = await lamps(t);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.engine, 'redis-query-engine');
      assert.deepEqual(res.body.hits.map((h: { id: string }) => h.id).sort(), [...ids].sort());
      const cheap = await t.request('POST', SEARCH, { body: { query: 'lamp', mode: 'keyword', filters: { price_max: 11 } } });
      assert.equal(cheap.body.total, 2, 'a price filter');
    });

    test('kill -9 of the master of the tenant\'s slot while searches run: 503 with Retry-After, then right answers, nothing lost', async (t2) => {
      const { t, ids } = await tenantWithLamps(30);
      const master = await cluster.masterOf(calculateSlot(keys.tenant(t.tenant.id)));
      let answered = 0;
      let refused = 0;
      let killedAt = 0;
      let recoveredAt = 0;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
        if (!killedAt && answered >= 20) {
          master.process.kill('SIGKILL');
          killedAt = performance.now();
        }
        const [res, ms] = await timed(() => lamps(t));
        if (res.status === 200) {
          assert.equal(res.body.engine, 'redis-query-engine');
          assert.equal(res.body.total, ids.length, `every product, ${killedAt ? 'after' : 'before'} the kill`);
          answered++;
          if (refused > 0 && !recoveredAt) recoveredAt = performance.now();
          if (recoveredAt && performance.now() - recoveredAt > 1000) break;
        } else {
          assertRefusal(res, ms, 'a search while the slot has no master');
          refused++;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      t2.diagnostic(`${answered} searches answered, ${refused} refused; answering again ${(recoveredAt - killedAt).toFixed(0)} ms after the kill`);
      assert.ok(refused > 0, 'searches were refused while the slot had no master');
      assert.ok(recoveredAt > 0, 'searches were answered again after the failover');
      // A write after the failover is searched on the new master.
      const res = await t.request('POST', PRODUCTS, { body: { external_id: 'after', title: 'Lamp after the failover', language: 'en' } });
      assert.equal(res.status, 201, res.text);
      const found = await lamps(t);
      assert.equal(found.body.total, ids.length + 1);
      await cluster.waitHealthy();
    });

    test('the tenant\'s slot migrated to another master while searches and writes run: 503s meanwhile, no wrong answer, nothing missing after', async (t2) => {
      const { t, ids } = await tenantWithLamps(60);
      const slot = calculateSlot(keys.tenant(t.tenant.id));
      const from = await cluster.masterOf(slot);
      const to = (await cluster.masters()).find((n) => n !== from);
      assert.ok(to, 'another master');
      const acknowledged = [...ids];
      const stats = { searches: 0, refusedSearches: 0, writes: 0, refusedWrites: 0 };
      const searchAndWrite = async () => {
        const [write, writeMs] = await timed(() =>
          t.request('POST', PRODUCTS, { body: { external_id: `moving-${stats.writes}`, title: `Lamp moving ${stats.writes}`, language: 'en' } }),
        );
        stats.writes++;
        if (write.status === 201) acknowledged.push(write.body.id);
        else {
          assertRefusal(write, writeMs, 'a write during the migration');
          stats.refusedWrites++;
        }
        const [res, ms] = await timed(() => lamps(t));
        stats.searches++;
        if (res.status === 200) {
          // A write refused mid-way may have been applied (its outcome is unknown to the client).
          assert.ok(res.body.total >= acknowledged.length && res.body.total <= acknowledged.length + stats.refusedWrites, `a complete answer during the migration: ${res.body.total} of ${acknowledged.length}`);
        } else {
          assertRefusal(res, ms, 'a search during the migration');
          stats.refusedSearches++;
        }
      };
      await cluster.migrateSlot(slot, to, { batch: 5, between: searchAndWrite });
      assert.equal(await cluster.masterOf(slot), to, 'the slot has moved');
      let answer: HttpResult | null = null;
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        const [res, ms] = await timed(() => lamps(t));
        if (res.status === 200) {
          answer = res;
          break;
        }
        assertRefusal(res, ms, 'a search right after the migration');
      }
      t2.diagnostic(`during the migration: ${stats.searches} searches, ${stats.refusedSearches} refused; ${stats.writes} writes, ${stats.refusedWrites} refused`);
      assert.ok(stats.refusedSearches > 0, 'searches are refused while the slot migrates');
      assert.ok(answer, 'searches are answered again on the new master');
      const found = new Set(answer.body.hits.map((h: { id: string }) => h.id));
      for (const id of acknowledged) assert.ok(found.has(id), `acknowledged product ${id} is searchable after the migration`);
      assert.ok(answer.body.total <= acknowledged.length + stats.refusedWrites);
      const written = await t.request('POST', PRODUCTS, { body: { external_id: 'after-move', title: 'Lamp after the move', language: 'en' } });
      assert.equal(written.status, 201, written.text);
      assert.ok((await lamps(t)).body.hits.some((h: { id: string }) => h.id === written.body.id), 'a write on the new master is searched at once');
    });
  });
}
