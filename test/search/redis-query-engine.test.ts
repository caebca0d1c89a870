// What is particular to the Redis Query Engine, beyond the engine contract: documents are indexed
// from their own hashes, so documents stored without the search projection (while the built-in
// engine served) are projected by the maintenance job; a sync that changes nothing never makes the
// server re-index a product; a deleted site leaves search at once, before its purge; vectors of
// another model (another dimension) never keep a document out of the index. Needs a server with the
// search module at REDIS_URL (`npm run test:rqe`); skipped with one line without.
import assert from 'node:assert/strict';
import type { Redis } from 'ioredis';
import { after, before, describe, test } from 'node:test';
import type { ProductInput } from '../../src/domain/products.js';
import { createLogger } from '../../src/log.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { keys } from '../../src/store/keys.js';
import { connectRedis, type Store } from '../../src/store/redis.js';
import { VectorRepository } from '../../src/store/vectors.js';
import { queryEngineRedis, SKIP_WITHOUT_QUERY_ENGINE } from '../helpers/queryEngine.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { ServingModels } from '../../src/search/servingModels.js';
import { IndexRouter } from '../../src/search/redisQuery/router.js';
import { collectionOf, dropOtherModelIndexes, PROJECTION_VERSION } from '../../src/search/redisQuery/schema.js';
import { TenantIndexes } from '../../src/search/redisQuery/tenantIndexes.js';
import { parseInfoReply, parseSearchReply } from '../../src/search/redisQuery/replies.js';
import {
  CATALOGUE, DIM, MODEL, SEARCH_PRODUCTS, axis, keysOf, openDomain, productSearch, sorted, uniqueSlug, within, writeCatalogue,
  type Domain,
} from './fixtures.js';

const url = await queryEngineRedis();
const available = url !== null;

if (!available) {
  test('Redis Query Engine: projection, sync bookkeeping, deleted sites, foreign vectors', { skip: SKIP_WITHOUT_QUERY_ENGINE }, () => undefined);
} else {
  const { RedisQueryEngine } = await import('../../src/search/redisQuery/engine.js');
  const { queryEngineProjection } = await import('../../src/search/redisQuery/projection.js');
  const { ProjectionBackfill } = await import('../../src/store/projectionBackfill.js');
  const log = createLogger('silent', 'rqe-test');
  /** An FT command about one of the tenant's indexes, where they are (the master of its slot on a cluster). */
  let ftRedis: Store;
  const ft = (tenantId: string, ...args: string[]) => new IndexRouter(ftRedis).call(tenantId, args);

  describe('Redis Query Engine, in process', () => {
    let plain: Domain;
    let projecting: Domain;
    let redis: Store;
    const engines: SearchEngine[] = [];
    const projected: string[] = [];

    const engine = async () => {
      const e = new RedisQueryEngine(redis, log, {
        models: new ServingModels(redis, { configured: { modelId: MODEL, dimension: DIM } }),
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
      projecting = await openDomain(url!, undefined, 'redis-query-engine');
      redis = connectRedis(url!);
      ftRedis = redis;
      await redis.connect();
    });
    after(async () => {
      await Promise.all(engines.map((e) => e.close()));
      redis.disconnect();
      plain.close();
      projecting.close();
    });

    test('the query syntax of every word shape parses: joined compounds whose last part completes, in one language or all', async () => {
      const { wordExpression } = await import('../../src/search/redisQuery/query.js');
      const { COMPLETING_FIELDS } = await import('../../src/search/redisQuery/schema.js');
      const { analyzeQuery, joinedWords } = await import('../../src/search/analysis.js');
      const index = `${uniqueSlug('syntax')}:idx`;
      await redis.call('FT.CREATE', index, 'ON', 'HASH', 'PREFIX', '1', `${index}:`, 'SCHEMA', ...COMPLETING_FIELDS.product.flatMap((f) => [f, 'TEXT']));
      try {
        for (const analysis of [{ stemming: 'de', language: 'de' }, { stemming: null, language: 'de' }, { stemming: null, language: null }]) {
          // "keketzlichste" has three terms without a language (its fold, German and English stems): the
          // server's parser once refused the reading of its parts after them.
          for (const query of ['keketzlich ste', 'regen jacke', 'kopfhoerer', 'akkubohrschrauber', 'kaffee maschine mit timer']) {
            const words = analyzeQuery(query, analysis);
            const shapes = [...words, ...words.slice(1).flatMap((w, i) => joinedWords(words[i], w, analysis) ?? [])];
            const expression = shapes.map((w) => wordExpression(w, true, COMPLETING_FIELDS.product)).join(' ');
            await redis.call('FT.EXPLAIN', index, expression, 'DIALECT', '2').catch((e: Error) => assert.fail(`${query} ${JSON.stringify(analysis)}: ${e.message}\n${expression}`));
          }
        }
      } finally {
        await redis.call('FT.DROPINDEX', index);
      }
    });

    test('the search module\'s query worker threads are read from each master (this build has none: queries run on the main thread)', async () => {
      const { queryWorkers } = await import('../../src/search/redisQuery/workers.js');
      for (const master of new IndexRouter(redis).masters()) {
        const workers = await queryWorkers(master);
        assert.ok(Number.isInteger(workers) && workers >= 0, `workers ${workers}`);
        const declared = await master.call('FT.CONFIG', 'GET', 'WORKERS').then((r) => (r as unknown[]).length > 0, () => false);
        if (!declared) assert.equal(workers, 0);
      }
    });

    test('documents stored without the projection are projected once, then found', async () => {
      const tenantId = await tenant(plain);
      const cat = await writeCatalogue(plain, tenantId);
      assert.equal(await redis.hget(keys.productSearch(tenantId, cat.id.lantern), 'f:title'), null, 'written as under the built-in engine');
      // A kcs process of another suite on the same server may have started (and projected it) meanwhile.
      const projectedElsewhere = (await redis.get(keys.searchProjection(tenantId))) !== null;
      const first = await engine();
      assert.ok(projectedElsewhere || projected.includes(tenantId), 'start hands the unprojected tenant to the projection job');
      assert.equal(await redis.get(keys.searchProjection(tenantId)), queryEngineProjection.version);
      // The tenant's indexes are new: they read the stored documents (written again by kcs, or by the
      // server's scan of its whole keyspace where the tenant is a large share of it); searches answer
      // from what is read so far.
      const lantern = async () => keysOf((await first.searchProducts(tenantId, productSearch({ query: 'lantern' }))).hits, cat.key);
      await within(60_000, 'the new index has read the stored documents', async () => (await lantern()).length === 2, 100);
      assert.deepEqual(await lantern(), ['lantern', 'tent']);
      projected.length = 0;
      await engine();
      assert.ok(!projected.includes(tenantId), 'a projected tenant is not projected again');
    });

    test('no search result may be held while the tenant\'s documents are unprojected or its indexes still read them; then the mark moves with each write', async () => {
      const tenantId = await tenant(plain);
      const cat = await writeCatalogue(plain, tenantId);
      // An engine whose projection job does nothing: the documents stay without search fields.
      const e = new RedisQueryEngine(redis, log, { models: new ServingModels(redis, { configured: { modelId: MODEL, dimension: DIM } }), project: async () => undefined });
      engines.push(e);
      await e.start();
      await e.searchProducts(tenantId, productSearch({ query: 'lantern' }));
      // A kcs process of another suite on the same server may have projected it meanwhile.
      if ((await redis.get(keys.searchProjection(tenantId))) === null) assert.equal(await e.changeMark(tenantId), null, 'unprojected: its answers are partial');
      await new ProjectionBackfill(redis, queryEngineProjection).run(tenantId);
      await within(60_000, 'projected and read: a result may be held', async () => {
        await e.searchProducts(tenantId, productSearch({ query: 'lantern' }));
        return (await e.changeMark(tenantId)) !== null;
      }, 100);
      assert.deepEqual(keysOf((await e.searchProducts(tenantId, productSearch({ query: 'lantern' }))).hits, cat.key), ['lantern', 'tent'], 'by then every document is found');
      const before = await e.changeMark(tenantId);
      assert.equal(await e.changeMark(tenantId), before, 'no write, the same mark');
      await plain.services.products.delete(tenantId, cat.id.tent);
      assert.notEqual(await e.changeMark(tenantId), before, 'a write moves it');
    });

    test('a tenant created where the Query Engine serves has its indexes before its first document, and needs no projection job', async () => {
      const tenantId = await tenant(projecting);
      assert.equal(await redis.get(keys.searchProjection(tenantId)), queryEngineProjection.version);
      const indexes = (await new IndexRouter(redis).call(tenantId, ['FT._LIST'])) as string[];
      assert.equal(indexes.filter((name) => name.startsWith(keys.searchIndex(tenantId, ''))).length, 3, 'products, their vectors, entries');
      projected.length = 0;
      const e = await engine();
      const site = await projecting.services.sites.create(tenantId, { slug: 'shop', name: 'Shop', language: 'en' });
      const { id } = await projecting.services.products.upsert(tenantId, { siteId: site.id, input: { title: 'Copper Kettle', language: 'en' } as ProductInput, source: 'api' });
      assert.deepEqual(await products(e, tenantId, 'kettle'), [id]);
      assert.ok(!projected.includes(tenantId));
    });

    test('an unchanged sync never re-indexes the product; a change does; a change of price or rating never re-indexes its vectors', async (t) => {
      const e = await engine();
      const tenantId = await tenant(projecting);
      const site = await projecting.services.sites.create(tenantId, { slug: 'shop', name: 'Shop', language: 'en' });
      const input = { external_id: 'sku-1', title: 'Canvas Backpack', language: 'en', price_current: '40.00' } as ProductInput;
      const upsert = (over: Partial<ProductInput> = {}) => projecting.services.products.upsert(tenantId, { siteId: site.id, input: { ...input, ...over } as ProductInput, source: 'api' });
      const { id } = await upsert();
      assert.deepEqual(await products(e, tenantId, 'backpack'), [id]);
      const index = collectionOf('product', tenantId, { modelId: MODEL, dimension: DIM });
      const internalId = async () => String(await ft(tenantId, 'FT.DEBUG', 'DOCIDTOID', index.index, index.prefix + id));
      const before = await internalId().catch(() => null);
      if (before === null) return t.skip('FT.DEBUG is not allowed on this server');
      assert.equal((await upsert()).result, 'unchanged');
      assert.equal(await internalId(), before, 'the sync time was recorded without touching the indexed hash');
      assert.ok(await redis.hget(keys.productsSynced(tenantId), id), 'the sync time is recorded');
      const vectors = collectionOf('productVectors', tenantId, { modelId: MODEL, dimension: DIM });
      const vectorId = () => ft(tenantId, 'FT.DEBUG', 'DOCIDTOID', vectors.index, vectors.prefix + id).then(String);
      const vectorBefore = await vectorId();
      assert.equal((await upsert({ price_current: '35.00' })).result, 'updated');
      assert.notEqual(await internalId(), before, 'a change is indexed');
      const cheap = await e.searchProducts(tenantId, productSearch({ query: 'backpack', filters: { priceMax: 36 } }));
      assert.deepEqual(cheap.hits.map((h) => h.id), [id], 'the new price is searched');
      const priced = await internalId();
      assert.equal((await upsert({ price_current: '35.00', rating_average: '4.5' })).result, 'updated');
      assert.notEqual(await internalId(), priced, 'a rating (and updated_at) is sorted and filtered by: indexed');
      assert.equal(await vectorId(), vectorBefore, 'the vector hash was not indexed again');
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

    test('a repeated search runs its partial tier with its first queries and answers as before; a total changed by another process since is followed', async () => {
      const tenantId = await tenant(projecting);
      const { id: siteId } = await projecting.services.sites.create(tenantId, { slug: 'shop', name: 'Shop', language: 'en' });
      const product = (key: string, title: string, brand: string): ProductInput => ({
        language: 'en', external_id: key, title, description: `${title}, for the kitchen.`, brand, category: 'Kitchen', availability: 'InStock', price_current: '20.00',
      } as ProductInput);
      // "amber" is the rarer word: it alone covers enough of "amber kettle" for the partial tier; "kettle" alone does not.
      const inputs = [product('full', 'Amber Kettle', 'Brio'), product('lamp-1', 'Amber Lamp', 'Lumo'), product('lamp-2', 'Amber Lamp Mini', 'Nord')];
      for (let i = 0; i < 6; i++) inputs.push(product(`steel-${i}`, `Steel Kettle ${i}`, 'Steelco'));
      const written = await projecting.services.products.upsertMany(tenantId, inputs.map((input) => ({ siteId, input, source: 'api' })));
      const keyOf = new Map(written.map((w, i) => [w.id, inputs[i].external_id]));
      const search = productSearch({ query: 'amber kettle', facets: ['brand'] });
      const first = await engine();
      const once = await first.searchProducts(tenantId, search);
      assert.equal(keyOf.get(once.hits[0]?.id), 'full', 'the full match first');
      assert.deepEqual(new Set(once.hits.map((h) => keyOf.get(h.id))), new Set(['full', 'lamp-1', 'lamp-2']), 'every word, then the partial tier');
      assert.equal(once.total, 3);
      assert.deepEqual(once.facets.brand?.map((f) => [f.value, f.count]).sort(), [['Brio', 1], ['Lumo', 1], ['Nord', 1]]);
      // Again: the tier is known ahead and runs beside every word's query, with the same answer.
      assert.deepEqual(await first.searchProducts(tenantId, search), once);

      // Another process writes 100 more full matches: the total it remembered (1) is stale, and the
      // tier it expects must not run now; its answer is a fresh engine's.
      const more = Array.from({ length: 100 }, (_, i) => product(`deluxe-${i}`, `Amber Kettle Deluxe ${i}`, 'Brio'));
      await projecting.services.products.upsertMany(tenantId, more.map((input) => ({ siteId, input, source: 'api' })));
      const after = await first.searchProducts(tenantId, search);
      assert.equal(after.total, 101, 'every word only: the partial tier does not run at 100 full matches');
      assert.ok(after.hits.every((h) => keyOf.get(h.id) === undefined || keyOf.get(h.id) === 'full'), 'no partial-tier hit');
      assert.deepEqual(after, await (await engine()).searchProducts(tenantId, search));
    });

    test('a search plans its words from the tenant\'s term dictionary: it holds what the index counts through updates and deletes, and once read no search asks the index', async () => {
      const tenantId = await tenant(projecting);
      const { id: siteId } = await projecting.services.sites.create(tenantId, { slug: 'shop', name: 'Shop', language: 'en' });
      const product = (key: string, title: string): ProductInput => ({
        language: 'en', external_id: key, title, description: `${title}, for the kitchen.`, brand: 'Brio', category: 'Kitchen', availability: 'InStock', price_current: '20.00',
      } as ProductInput);
      const inputs = [product('kettle', 'Amber Kettle'), product('lamp', 'Amber Lamp'), product('pot', 'Copper Pot'), product('mug', 'Steel Mug')];
      const written = await projecting.services.products.upsertMany(tenantId, inputs.map((input) => ({ siteId, input, source: 'api' })));
      const id = (key: string) => written[inputs.findIndex((p) => p.external_id === key)].id;
      const { index } = collectionOf('product', tenantId, { modelId: null, dimension: null });
      const matchesIndex = async () => {
        const dictionary = await redis.hgetall(keys.productTerms(tenantId));
        assert.ok(Object.keys(dictionary).length > 5);
        for (const [term, n] of Object.entries(dictionary)) {
          const { total } = parseSearchReply(await ft(tenantId, 'FT.SEARCH', index, term, 'NOCONTENT', 'LIMIT', '0', '0', 'DIALECT', '2'), { withScores: false, noContent: true });
          assert.equal(Number(n), total, `the products holding "${term}"`);
        }
        return dictionary;
      };
      assert.equal((await matchesIndex()).amber, '2');
      await projecting.services.products.upsert(tenantId, { siteId, input: product('pot', 'Brass Pot'), source: 'api' });
      await projecting.services.products.delete(tenantId, id('mug'));
      const dictionary = await matchesIndex();
      assert.equal(dictionary.copper, undefined, 'a term no product holds any more leaves');
      assert.equal(dictionary.mug, undefined);
      assert.equal(dictionary.brass, '1');

      // What the engine asks the index about this tenant, as the server sees it.
      const sent: string[][] = [];
      const monitors = await Promise.all(new IndexRouter(redis).masters().map((node) => (node as Redis).duplicate().monitor()));
      for (const monitor of monitors) {
        monitor.on('monitor', (_time: string, args: string[]) => {
          if (args[1]?.includes(tenantId)) sent.push(args);
        });
      }
      try {
        const e = await engine();
        const lookups = () => sent.filter(([command, , query, ...rest]) => /^FT\.SPELLCHECK$/i.test(command) || (/^FT\.SEARCH$/i.test(command) && rest.join(' ').includes('LIMIT 0 0') && query !== '*' && !query.includes('%')));
        // The first searches ask the index while the dictionary is read.
        let n = 0;
        await within(10_000, 'a search that asks the index nothing', async () => {
          sent.length = 0;
          await products(e, tenantId, `amber kettle zq${n++}x`);
          await new Promise((resolve) => setTimeout(resolve, 50));
          return lookups().length === 0;
        }, 50);
        sent.length = 0;
        const hits = await products(e, tenantId, 'ambar kettle');
        assert.equal(hits[0], id('kettle'), 'a typo of a word the dictionary lacks still finds it');
        assert.deepEqual(await products(e, tenantId, 'brass pot'), [id('pot')]);
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.deepEqual(lookups(), [], 'no FT.SPELLCHECK and no count of a term');
      } finally {
        for (const monitor of monitors) monitor.disconnect();
      }
    });

    test('filter values with punctuation, marks, emoji or control characters find their product; none makes a query fail', async () => {
      const e = await engine();
      const tenantId = await tenant(projecting);
      const site = await projecting.services.sites.create(tenantId, { slug: 'shop', name: 'Shop', language: 'en' });
      const brands = ['a{b}|c\\', 'x\u0301', 'a *', '😀', 'Läufer', ' padded '];
      const ids: string[] = [];
      for (const brand of brands) {
        ids.push((await projecting.services.products.upsert(tenantId, { siteId: site.id, input: { title: 'Thing', language: 'en', brand, external_id: brand } as ProductInput, source: 'api' })).id);
      }
      for (const [i, brand] of brands.entries()) {
        const found = await e.searchProducts(tenantId, productSearch({ filters: { brand: [brand] }, facets: ['brand'] }));
        assert.deepEqual(found.hits.map((h) => h.id), [ids[i]], JSON.stringify(brand));
      }
      for (const hostile of ['\u0000', 'a\u0000b', '\uffff', ' ', '{}', '||', '\\', '@x:{y}', '"', '-inf']) {
        const search = productSearch({ query: hostile, filters: { brand: [hostile], category: hostile, availability: [hostile], attributes: { [hostile]: [hostile] }, language: hostile }, facets: ['brand'] });
        assert.deepEqual((await e.searchProducts(tenantId, search)).hits, [], JSON.stringify(hostile));
      }
    });

    test("vectors of another model (another dimension) never keep a product out of the index", async () => {
      const e = await engine();
      const tenantId = await tenant(projecting);
      const site = await projecting.services.sites.create(tenantId, { slug: 'shop', name: 'Shop', language: 'en' });
      const { id, textHash } = await projecting.services.products.upsert(tenantId, { siteId: site.id, input: { title: 'Walking Stick', language: 'en' } as ProductInput, source: 'api' });
      assert.ok(await new VectorRepository(redis).store(tenantId, { kind: 'product', id }, { textHash, model: 'other-model', vectors: { description: new Float32Array(DIM * 2).fill(0.1) } }));
      assert.deepEqual(await products(e, tenantId, 'walking stick'), [id]);
      assert.deepEqual((await e.searchProducts(tenantId, productSearch({ mode: 'semantic', vector: axis(1) }))).hits, [], 'no vector of its model');
      assert.ok(await new VectorRepository(redis).store(tenantId, { kind: 'product', id }, { textHash, model: MODEL, vectors: { description: axis(1) } }));
      assert.deepEqual((await e.searchProducts(tenantId, productSearch({ mode: 'semantic', vector: axis(1) }))).hits.map((h) => h.id), [id]);
    });
  });

  describe('Redis Query Engine: a new index over stored documents', () => {
    let domain: Domain;
    let redis: Store;
    before(async () => {
      domain = await openDomain(url!, undefined, 'redis-query-engine');
      redis = connectRedis(url!);
      ftRedis = redis;
      await redis.connect();
    });
    after(() => {
      redis.disconnect();
      domain.close();
    });

    test('reads the tenant\'s own documents, written again, and owes nothing after; a read left owed by a process that died is taken up by the next', async () => {
      const tenantId = (await domain.services.tenants.create(uniqueSlug('rq'), 'rqe')).id;
      await writeCatalogue(domain, tenantId);
      // The products with vectors: a product's vector hash is made by its first vectors.
      const productIds = await redis.zrange(keys.products(tenantId), '0', '-1');
      const stored = (await Promise.all(productIds.map((id) => redis.exists(keys.productVectors(tenantId, id))))).filter(Boolean).length;
      assert.ok(stored > 0 && stored < productIds.length, 'some products have vectors, some not yet');
      // Another model: indexes the tenant does not have yet.
      const options = { modelId: `read-test-${tenantId.slice(0, 8)}`, dimension: DIM };
      const c = collectionOf('productVectors', tenantId, options);
      const indexed = async () => Number(parseInfoReply(await ft(tenantId, 'FT.INFO', c.index)).get('num_docs'));
      try {
        await new TenantIndexes(redis, new IndexRouter(redis), options).ensure(tenantId);
        await within(30_000, 'the new index has read the stored products', async () => (await indexed()) === stored, 50);
        await within(30_000, 'the read is no longer owed', async () => (await redis.exists(c.owed)) === 0, 50);

        // The index created, then the process gone before the read: the index exists, the read is owed.
        await ft(tenantId, 'FT.DROPINDEX', c.index);
        await redis.set(c.owed, '1');
        await new TenantIndexes(redis, new IndexRouter(redis), options).createEmpty(tenantId);
        assert.equal(await indexed(), 0, 'created without reading anything');
        await new TenantIndexes(redis, new IndexRouter(redis), options).ensure(tenantId);
        await within(30_000, 'the next process has read the stored products', async () => (await indexed()) === stored, 50);
        await within(30_000, 'the read is no longer owed', async () => (await redis.exists(c.owed)) === 0, 50);
        // A filled index is taken as it is: nothing is written again (a document indexed again gets a new internal id).
        const [first] = await redis.zrange(keys.products(tenantId), '0', '0');
        const internalId = () => ft(tenantId, 'FT.DEBUG', 'DOCIDTOID', c.index, c.prefix + first).then(String, () => null);
        const before = await internalId();
        await new TenantIndexes(redis, new IndexRouter(redis), options).ensure(tenantId);
        assert.equal(await redis.exists(c.owed), 0);
        if (before !== null) assert.equal(await internalId(), before);
      } finally {
        await dropOtherModelIndexes(new IndexRouter(redis), tenantId, [MODEL]);
      }
      assert.equal(await redis.exists(c.owed), 0, 'dropping an index drops its owed read too');
    });

    test('a store of the previous release (vector indexes of layout 4: M 16) is searched through new indexes built over its vectors, and the old ones go', async () => {
      const { createIndexArgs, INDEX_VERSIONS } = await import('../../src/search/redisQuery/schema.js');
      const tenantId = (await domain.services.tenants.create(uniqueSlug('rq'), 'rqe')).id;
      const options = { modelId: MODEL, dimension: DIM };
      const current = collectionOf('productVectors', tenantId, options);
      // As the previous release left the tenant: its vector index under the name and graph of layout 4
      // (and none of this layout: the tenant's creation here made one).
      await ft(tenantId, 'FT.DROPINDEX', current.index);
      const previous = { ...current, index: current.index.replace(`product-vectors:v${INDEX_VERSIONS['product-vectors']}:`, 'product-vectors:v4:') };
      assert.notEqual(previous.index, current.index);
      const args = createIndexArgs(previous, options, { scan: false }).map(String);
      const m = args.indexOf('M');
      args.splice(m, 2);
      args[args.indexOf('HNSW') + 1] = '8';
      await ft(tenantId, ...args);
      const catalogue = await writeCatalogue(domain, tenantId);
      const listed = async () => ((await ft(tenantId, 'FT._LIST')) as string[]).filter((n) => n.startsWith(keys.searchIndex(tenantId, '')));
      assert.ok((await listed()).includes(previous.index));
      assert.ok(!(await listed()).includes(current.index), 'no index of the new layout yet');
      const e = new RedisQueryEngine(redis, log, { models: new ServingModels(redis, { configured: options }) });
      try {
        await e.start();
        // Its first search builds the new layout's indexes over the stored vectors; the nearest to a product's own vector is that product.
        const spec = CATALOGUE.find((p) => p.vector && !p.anchor)!;
        const found = await e.searchProducts(tenantId, productSearch({ mode: 'semantic', vector: spec.vector!, limit: 1 }));
        assert.equal(found.hits[0]?.id, catalogue.id[spec.key]);
        assert.match(JSON.stringify(parseInfoReply(await ft(tenantId, 'FT.INFO', current.index)).get('attributes')), /"M",32\b/, 'the new graph has M 32');
        await within(30_000, 'the previous layout\'s vector index dropped', async () => !(await listed()).includes(previous.index), 100);
        assert.ok((await listed()).includes(current.index));
      } finally {
        await e.close();
      }
    });
  });

  describe('Redis Query Engine, through kcs serve and its workers', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack({ KCS_SEARCH_ENGINE: 'redis', KCS_EMBEDDER: 'none' }, { redis: url });
    });
    after(async () => {
      await stack?.close();
    });

    test('a tenant filled while the built-in engine served is projected by the maintenance job', async () => {
      // Tenant, key and product as a deployment on the built-in engine stored them: no search fields, no indexes.
      const plain = await openDomain(url!);
      try {
        const { services } = plain;
        const tenant = await services.tenants.create(uniqueSlug('legacy'), 'Legacy');
        const user = await services.users.create(tenant.id, { email: `admin@${tenant.slug}.test`, name: 'Admin' });
        const { key } = await services.apiKeys.create(tenant.id, { userId: user.id, name: 'test', scopes: ['catalog:read'] });
        const site = await services.sites.create(tenant.id, { slug: 'legacy', name: 'Legacy', language: 'en' });
        const { id } = await services.products.upsert(tenant.id, { siteId: site.id, input: { title: 'Legacy Lantern', language: 'en' } as ProductInput, source: 'api' });
        const search = () => stack.request('POST', SEARCH_PRODUCTS, { tenant: tenant.slug, key, body: { query: 'lantern', mode: 'keyword' } });
        await within(15_000, 'the projection job', async () => (await search()).body.hits?.some((h: { id: string }) => h.id === id) ?? false, 100);
        const res = await search();
        assert.equal(res.body.engine, 'redis-query-engine');
        assert.deepEqual(sorted(res.body.hits.map((h: { id: string }) => h.id)), [id]);
        assert.equal(await plain.redis.get(keys.searchProjection(tenant.id)), PROJECTION_VERSION, 'the tenant is marked as projected');
      } finally {
        plain.close();
      }
    });

    test('a tenant projected under an older field layout is projected again, and the old layout\'s indexes go', async () => {
      const plain = await openDomain(url!);
      try {
        const { services } = plain;
        const tenant = await services.tenants.create(uniqueSlug('layout'), 'Layout');
        const user = await services.users.create(tenant.id, { email: `admin@${tenant.slug}.test`, name: 'Admin' });
        const { key } = await services.apiKeys.create(tenant.id, { userId: user.id, name: 'test', scopes: ['catalog:read'] });
        const site = await services.sites.create(tenant.id, { slug: 'layout', name: 'Layout', language: 'de' });
        const { id } = await services.products.upsert(tenant.id, { siteId: site.id, input: { title: 'Mumienschlafsack Polar', language: 'de' } as ProductInput, source: 'api' });
        // As the previous layout left it: the tenant marked at version 1, with an index of that version.
        const old = keys.searchIndex(tenant.id, 'products:v1:none');
        await new IndexRouter(plain.redis).call(tenant.id, ['FT.CREATE', old, 'ON', 'HASH', 'PREFIX', '1', keys.product(tenant.id, ''), 'SKIPINITIALSCAN', 'SCHEMA', 'f:title', 'AS', 'title', 'TEXT']);
        await plain.redis.set(keys.searchProjection(tenant.id), '1');
        // "schlafsack" matches only through the compound's tail, which the current layout writes.
        const search = () => stack.request('POST', SEARCH_PRODUCTS, { tenant: tenant.slug, key, body: { query: 'schlafsack', mode: 'keyword' } });
        await within(15_000, 'the projection job', async () => (await search()).body.hits?.some((h: { id: string }) => h.id === id) ?? false, 100);
        await within(5_000, 'the tenant marked as projected', async () => (await plain.redis.get(keys.searchProjection(tenant.id))) === PROJECTION_VERSION, 100);
        await within(5_000, 'the old layout\'s index dropped', async () => !((await new IndexRouter(plain.redis).call(tenant.id, ['FT._LIST'])) as string[]).includes(old), 100);
      } finally {
        plain.close();
      }
    });
  });
}
