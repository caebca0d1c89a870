// What is particular to the Redis Query Engine, beyond the engine contract: documents are indexed
// from their own hashes, so documents stored without the search projection (while the built-in
// engine served) are projected by the maintenance job; a sync that changes nothing never makes the
// server re-index a product; a deleted site leaves search at once, before its purge; vectors of
// another model (another dimension) never keep a document out of the index. Needs a server with the
// search module at REDIS_URL (`npm run test:rqe`); skipped with one line without.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ProductInput } from '../../src/domain/products.js';
import { createLogger } from '../../src/log.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { keys } from '../../src/store/keys.js';
import { connectRedis, type Store } from '../../src/store/redis.js';
import { VectorRepository } from '../../src/store/vectors.js';
import { searchModuleAt, SKIP_WITHOUT_QUERY_ENGINE } from '../helpers/queryEngine.js';
import { startStack, type Stack } from '../helpers/stack.js';
import {
  DIM, MODEL, SEARCH_PRODUCTS, axis, keysOf, openDomain, productSearch, searchIds, sorted, uniqueSlug, within, writeCatalogue,
  type Domain,
} from './fixtures.js';

const url = process.env.REDIS_URL;
const available = Boolean(url) && (await searchModuleAt(url!));

if (!available) {
  test('Redis Query Engine: projection, sync bookkeeping, deleted sites, foreign vectors', { skip: SKIP_WITHOUT_QUERY_ENGINE }, () => undefined);
} else {
  const { RedisQueryEngine } = await import('../../src/search/redisQuery/engine.js');
  const { queryEngineProjection } = await import('../../src/search/redisQuery/projection.js');
  const { ProjectionBackfill } = await import('../../src/store/projectionBackfill.js');
  const log = createLogger('silent', 'rqe-test');

  describe('Redis Query Engine, in process', () => {
    let plain: Domain;
    let projecting: Domain;
    let redis: Store;
    const engines: SearchEngine[] = [];
    const projected: string[] = [];

    const engine = async () => {
      const e = new RedisQueryEngine(redis, log, {
        modelId: MODEL, dimension: DIM,
        project: async (tenantId) => {
          projected.push(tenantId);
          await new ProjectionBackfill(redis, queryEngineProjection).run(tenantId);
        },
      });
      engines.push(e);
      await e.start();
      return e;
    };
    const tenant = async (domain: Domain) => (await domain.services.tenants.create(uniqueSlug('rq'), 'rqe')).id;
    const products = async (e: SearchEngine, tenantId: string, query: string) => (await e.searchProducts(tenantId, productSearch({ query }))).hits.map((h) => h.id);

    before(async () => {
      plain = await openDomain(url!);
      projecting = await openDomain(url!, undefined, queryEngineProjection);
      redis = connectRedis(url!);
      await redis.connect();
    });
    after(async () => {
      await Promise.all(engines.map((e) => e.close()));
      redis.disconnect();
      plain.close();
      projecting.close();
    });

    test('documents stored without the projection are projected once, then found', async () => {
      const tenantId = await tenant(plain);
      const cat = await writeCatalogue(plain, tenantId);
      assert.equal(await redis.hget(keys.product(tenantId, cat.id.lantern), 'f:title'), null, 'written as under the built-in engine');
      const first = await engine();
      assert.ok(projected.includes(tenantId), 'start hands the unprojected tenant to the projection job');
      assert.equal(await redis.get(keys.searchProjection(tenantId)), queryEngineProjection.version);
      assert.deepEqual(keysOf(await first.searchProducts(tenantId, productSearch({ query: 'lantern' })).then((r) => r.hits), cat.key), ['lantern', 'tent']);
      projected.length = 0;
      await engine();
      assert.ok(!projected.includes(tenantId), 'a projected tenant is not projected again');
    });

    test('an unchanged sync never re-indexes the product; a change does', async (t) => {
      const e = await engine();
      const tenantId = await tenant(projecting);
      const site = await projecting.services.sites.create(tenantId, { slug: 'shop', name: 'Shop', language: 'en' });
      const input = { external_id: 'sku-1', title: 'Canvas Backpack', language: 'en', price_current: '40.00' } as ProductInput;
      const upsert = (over: Partial<ProductInput> = {}) => projecting.services.products.upsert(tenantId, { siteId: site.id, input: { ...input, ...over } as ProductInput, source: 'api' });
      const { id } = await upsert();
      assert.deepEqual(await products(e, tenantId, 'backpack'), [id]);
      const index = (e as unknown as { indexes: { products(t: string): { index: string; prefix: string } } }).indexes.products(tenantId);
      const internalId = async () => String(await redis.call('FT.DEBUG', 'DOCIDTOID', index.index, index.prefix + id));
      const before = await internalId().catch(() => null);
      if (before === null) return t.skip('FT.DEBUG is not allowed on this server');
      assert.equal((await upsert()).result, 'unchanged');
      assert.equal(await internalId(), before, 'the sync time was recorded without touching the indexed hash');
      assert.ok(await redis.hget(keys.productsSynced(tenantId), id), 'the sync time is recorded');
      assert.equal((await upsert({ price_current: '35.00' })).result, 'updated');
      assert.notEqual(await internalId(), before, 'a change is indexed');
      const cheap = await e.searchProducts(tenantId, productSearch({ query: 'backpack', filters: { priceMax: 36 } }));
      assert.deepEqual(cheap.hits.map((h) => h.id), [id], 'the new price is searched');
    });

    test("a deleted site's products leave search at once, before the purge", async () => {
      const e = await engine();
      const tenantId = await tenant(projecting);
      const cat = await writeCatalogue(projecting, tenantId);
      assert.ok(keysOf((await e.searchProducts(tenantId, productSearch({ query: 'schuh' }))).hits, cat.key).includes('schuh'));
      // The site's products stay stored until the maintenance job purges them (no queue here).
      await assert.rejects(projecting.services.sites.delete(tenantId, cat.sites.de), /no maintenance queue/);
      assert.ok(await redis.exists(keys.product(tenantId, cat.id.schuh)), 'not purged yet');
      assert.deepEqual(keysOf((await e.searchProducts(tenantId, productSearch({ query: 'schuh' }))).hits, cat.key), []);
      assert.equal(await e.relatedProducts(tenantId, cat.id.schuh, { limit: 5, offset: 0, variantStrategy: 'all' }), null);
      assert.equal((await e.searchProducts(tenantId, productSearch({}))).total, 10, 'only the English site is browsed');
    });

    test("vectors of another model (another dimension) never keep a product out of the index", async () => {
      const e = await engine();
      const tenantId = await tenant(projecting);
      const site = await projecting.services.sites.create(tenantId, { slug: 'shop', name: 'Shop', language: 'en' });
      const { id, thash } = await projecting.services.products.upsert(tenantId, { siteId: site.id, input: { title: 'Walking Stick', language: 'en' } as ProductInput, source: 'api' });
      assert.ok(await new VectorRepository(redis).store(tenantId, { kind: 'product', id }, thash, 'other-model', { description: new Float32Array(DIM * 2).fill(0.1) }));
      assert.deepEqual(await products(e, tenantId, 'walking stick'), [id]);
      assert.deepEqual((await e.searchProducts(tenantId, productSearch({ mode: 'semantic', vector: axis(1) }))).hits, [], 'no vector of its model');
      assert.ok(await new VectorRepository(redis).store(tenantId, { kind: 'product', id }, thash, MODEL, { description: axis(1) }));
      assert.deepEqual((await e.searchProducts(tenantId, productSearch({ mode: 'semantic', vector: axis(1) }))).hits.map((h) => h.id), [id]);
    });
  });

  describe('Redis Query Engine, through kcs serve and its workers', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack({ KCS_SEARCH_ENGINE: 'redis', KCS_EMBEDDER: 'none' }, { redisUrl: url });
    });
    after(async () => {
      await stack?.close();
    });

    test('a tenant whose products were stored without the projection is projected by the maintenance job', async () => {
      const t = await stack.tenant();
      const plain = await openDomain(url!);
      try {
        const site = await plain.services.sites.create(t.tenant.id, { slug: 'legacy', name: 'Legacy', language: 'en' });
        const { id } = await plain.services.products.upsert(t.tenant.id, { siteId: site.id, input: { title: 'Legacy Lantern', language: 'en' } as ProductInput, source: 'api' });
        const waited = await within(15_000, 'the projection job', async () => (await searchIds(t, SEARCH_PRODUCTS, { query: 'lantern', mode: 'keyword' })).includes(id), 100);
        assert.ok(waited >= 0);
        const res = await t.request('POST', SEARCH_PRODUCTS, { body: { query: 'lantern', mode: 'keyword' } });
        assert.equal(res.body.engine, 'redis-query-engine');
        assert.deepEqual(sorted(res.body.hits.map((h: { id: string }) => h.id)), [id]);
      } finally {
        plain.close();
      }
    });
  });
}
