// The SearchEngine contract, last cases: refresh and the change streams (writes of this process and
// of another), tenant isolation, paging (also through ties).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ProductInput } from '../../../src/domain/products.js';
import type { SearchResult } from '../../../src/search/engine.js';
import {
  ALL_VISIBILITY, EN_KEYS, VISIBLE_UNDER,
  access, axis, caller, keysOf, knowledgeSearch, productSearch, sorted, storeVectors, uniqueSlug, within,
  type ProductSearchOver,
} from '../fixtures.js';
import {
  A, B, C, domain, engine, other, OTHER_PROCESS_MS, unitTail, assertKeywordRanks, products, entries,
} from './fixtures.js';

export function refreshCases(): void {
  // ---- read-your-writes --------------------------------------------------------------------

  describe('refresh and the change streams', () => {
    const enSite = () => A.cat.sites.en;
    const findsProduct = async (query: string, id: string) => (await products(A, { query })).hits.some((h) => h.id === id);

    test('a write refreshed through the hook is found at once; an update and a delete too', async () => {
      const { id } = await domain.services.products.upsert(A.tenantId, { siteId: enSite(), input: { title: 'Kayak Paddle', language: 'en', external_id: 'paddle' } as ProductInput, source: 'api' });
      assert.ok(await findsProduct('kayak', id), 'found right after the write');
      await domain.services.products.upsert(A.tenantId, { siteId: enSite(), input: { title: 'Canoe Oar', language: 'en', external_id: 'paddle' } as ProductInput, source: 'api' });
      assert.ok(!(await findsProduct('kayak', id)), 'the old title is gone');
      assert.ok(await findsProduct('canoe', id), 'the new title is found');
      await domain.services.products.delete(A.tenantId, id);
      assert.ok(!(await findsProduct('canoe', id)), 'gone right after the delete');
      assert.equal(await engine.relatedProducts(A.tenantId, id, { limit: 5, offset: 0, variantStrategy: 'all' }), null);
    });

    test('refresh() makes a write of this process visible before it returns', async () => {
      const { id } = await other.services.products.upsert(A.tenantId, { siteId: enSite(), input: { title: 'Snorkel Mask', language: 'en' } as ProductInput, source: 'api' });
      await engine.refresh(A.tenantId, [{ kind: 'product', id }]);
      assert.ok(await findsProduct('snorkel', id));
      await storeVectors(other.redis, A.tenantId, 'product', id, { description: axis(5) });
      await engine.refresh(A.tenantId, [{ kind: 'product', id }]);
      assert.equal((await products(A, { mode: 'semantic', vector: axis(5), limit: 1 })).hits[0]?.id, id, 'its new vector is searched');
      await other.services.products.delete(A.tenantId, id);
      await engine.refresh(A.tenantId, [{ kind: 'product', id }]);
      assert.ok(!(await findsProduct('snorkel', id)));
      assert.ok(!(await products(A, { mode: 'semantic', vector: axis(5) })).hits.some((h) => h.id === id), 'its vector is gone too');
      await engine.refresh(A.tenantId, [{ kind: 'product', id: randomUUID() }, { kind: 'entry', id: randomUUID() }]);
    });

    test('knowledge writes: create, update and delete are visible at once', async () => {
      const who = caller(A.tenantId, A.kb.owner, ALL_VISIBILITY);
      const reader = access(A.kb.owner, VISIBLE_UNDER.restricted);
      const find = async (query: string) => keysOf((await entries(A, { query, filters: { access: reader } })).hits, {});
      const created = await domain.services.knowledgeEntries.create(who, { title: 'Warranty claims', content: 'Send the receipt.', category_id: A.kb.categories.main, visibility: 'internal', language: 'en' } as never, false);
      assert.deepEqual(await find('warranty'), [created.id]);
      await domain.services.knowledgeEntries.update(who, created.id, { changes: { content: 'Attach a photograph.' } as never, ifMatch: null });
      assert.deepEqual(await find('photograph'), [created.id]);
      assert.deepEqual(await find('receipt'), []);
      await domain.services.knowledgeEntries.update(who, created.id, { changes: { visibility: 'restricted' } as never, ifMatch: null });
      assert.deepEqual(keysOf((await entries(A, { query: 'warranty', filters: { access: access(A.kb.owner, VISIBLE_UNDER.internal) } })).hits, {}), [], 'a raised visibility hides it at once');
      await domain.services.knowledgeEntries.delete(who, created.id, null);
      assert.deepEqual(await find('warranty'), []);
    });

    test(`writes of another process (no refresh) are found within ${OTHER_PROCESS_MS} ms, deletes gone as fast`, async (t) => {
      const { id } = await other.services.products.upsert(A.tenantId, { siteId: enSite(), input: { title: 'Trekking Poles', language: 'en' } as ProductInput, source: 'api' });
      const seen = await within(OTHER_PROCESS_MS, 'the other process\'s write', () => findsProduct('trekking', id));
      await storeVectors(other.redis, A.tenantId, 'product', id, { description: unitTail() });
      const embedded = await within(OTHER_PROCESS_MS, 'the worker\'s vectors', async () => (await products(A, { mode: 'semantic', vector: unitTail(), limit: 1 })).hits[0]?.id === id);
      await other.services.products.delete(A.tenantId, id);
      const gone = await within(OTHER_PROCESS_MS, 'the other process\'s delete', async () => !(await findsProduct('trekking', id)));
      t.diagnostic(`visible after ${seen.toFixed(0)} ms, vectors after ${embedded.toFixed(0)} ms, gone after ${gone.toFixed(0)} ms`);
    });

    test('a tenant created after start is searchable, and follows its writes', async () => {
      const tenant = await domain.services.tenants.create(uniqueSlug('cd'), 'late');
      const site = await domain.services.sites.create(tenant.id, { slug: 'late', name: 'Late', language: 'en' });
      const first = await domain.services.products.upsert(tenant.id, { siteId: site.id, input: { title: 'Late Lantern', language: 'en' } as ProductInput, source: 'api' });
      const search = async () => (await engine.searchProducts(tenant.id, productSearch({ query: 'lantern' }))).hits.map((h) => h.id);
      assert.deepEqual(await search(), [first.id]);
      const second = await domain.services.products.upsert(tenant.id, { siteId: site.id, input: { title: 'Later Lantern', language: 'en' } as ProductInput, source: 'api' });
      assert.deepEqual(sorted(await search()), sorted([first.id, second.id]));
      const third = await other.services.products.upsert(tenant.id, { siteId: site.id, input: { title: 'Latest Lantern', language: 'en' } as ProductInput, source: 'api' });
      await within(OTHER_PROCESS_MS, 'a write of another process to the new tenant', async () => (await search()).includes(third.id));
    });
  });

  // ---- tenants and paging ------------------------------------------------------------------

  describe('tenant isolation', () => {
    test("no search of tenant A ever returns one of tenant B's documents, and back", async () => {
      for (const [self, peer] of [[A, B], [B, A]] as const) {
        const own = new Set([...Object.values(self.cat.id), ...Object.values(self.kb.id)]);
        const foreign = new Set([...Object.values(peer.cat.id), ...Object.values(peer.kb.id)]);
        const results: SearchResult[] = [
          await products(self, {}),
          await products(self, { query: 'lantern' }),
          await products(self, { query: 'ACME-TR-001' }),
          await products(self, { mode: 'semantic', vector: axis(0) }),
          await products(self, { query: 'fleece', mode: 'hybrid', vector: axis(6) }),
          (await engine.relatedProducts(self.tenantId, self.cat.id.vest, { limit: 100, offset: 0, variantStrategy: 'all' }))!,
          await entries(self, { filters: { access: access(self.kb.owner, VISIBLE_UNDER.restricted, true) } }),
          await entries(self, { query: 'policy', mode: 'hybrid', vector: axis(8), filters: { access: access(self.kb.owner, VISIBLE_UNDER.restricted, true) } }),
          (await engine.relatedEntries(self.tenantId, self.kb.id.public, { limit: 100, offset: 0, access: access(self.kb.owner, VISIBLE_UNDER.restricted, true) }))!,
        ];
        for (const result of results) {
          assert.ok(result.hits.length > 0);
          for (const hit of result.hits) {
            assert.ok(!foreign.has(hit.id), `a hit of the other tenant: ${hit.id}`);
            assert.ok(own.has(hit.id), `an unknown id: ${hit.id}`);
          }
        }
        assert.equal(await engine.relatedProducts(self.tenantId, peer.cat.id.vest, { limit: 10, offset: 0, variantStrategy: 'all' }), null);
        assert.equal(await engine.relatedEntries(self.tenantId, peer.kb.id.public, { limit: 10, offset: 0, access: access(peer.kb.owner, VISIBLE_UNDER.restricted) }), null);
      }
    });

    test('a tenant without documents finds nothing', async () => {
      const empty = randomUUID();
      const result = await engine.searchProducts(empty, productSearch({ query: 'lantern', facets: ['brand'] }));
      assert.deepEqual(result.hits, []);
      assert.equal(result.total, 0);
      assert.deepEqual((await engine.searchKnowledge(empty, knowledgeSearch({ filters: { access: access(A.kb.owner, VISIBLE_UNDER.restricted) } }))).hits, []);
    });
  });

  describe('paging', () => {
    test('offset and limit page through the same order; total stays', async () => {
      const full = await products(A, { filters: { siteId: A.cat.sites.en } });
      assert.equal(full.total, EN_KEYS.length);
      const pages: string[] = [];
      for (let offset = 0; offset < EN_KEYS.length; offset += 3) {
        const page = await products(A, { filters: { siteId: A.cat.sites.en }, limit: 3, offset });
        assert.equal(page.total, EN_KEYS.length);
        assertKeywordRanks(page.hits, offset);
        pages.push(...page.hits.map((h) => h.id));
      }
      assert.deepEqual(pages, full.hits.map((h) => h.id));
      const fleece = await products(A, { query: 'fleece' });
      const fleecePage = await products(A, { query: 'fleece', limit: 2, offset: 2 });
      assert.deepEqual(fleecePage.hits.map((h) => h.id), fleece.hits.slice(2, 4).map((h) => h.id));
      assert.equal(fleecePage.total, 4);
      const semantic = await products(A, { mode: 'semantic', vector: axis(0), limit: 5 });
      const semanticPage = await products(A, { mode: 'semantic', vector: axis(0), limit: 2, offset: 3 });
      assert.deepEqual(semanticPage.hits.map((h) => h.id), semantic.hits.slice(3, 5).map((h) => h.id));
      assert.deepEqual(semanticPage.hits.map((h) => h.ranks.semantic), [4, 5]);
      const beyond = await products(A, { query: 'fleece', offset: 50, limit: 10 });
      assert.deepEqual(beyond.hits, []);
      assert.equal(beyond.total, 4);
    });

    test('pages stay consistent when documents tie (same created_at, equal keyword scores)', async () => {
      // The selectivity tenant's products were written 250 at a time: each batch shares one created_at.
      // An update (same created_at, a title of the same length) moves a product to the end of the
      // engine's internal lists, so ties are no longer offered in document order.
      await other.services.products.upsert(C.tenantId, {
        siteId: C.small, source: 'api',
        input: { title: 'Item number renewed', language: 'en', external_id: 'item-1000', attributes: { edition: 'common' }, price_current: '1.00' } as ProductInput,
      });
      await engine.refresh(C.tenantId, [{ kind: 'product', id: C.smallIds[0] }]);
      const pageThrough = async (search: ProductSearchOver, size: number, count: number) => {
        const full = (await engine.searchProducts(C.tenantId, productSearch({ ...search, limit: count }))).hits.map((h) => h.id);
        const pages: string[] = [];
        for (let offset = 0; offset < count; offset += size) {
          pages.push(...(await engine.searchProducts(C.tenantId, productSearch({ ...search, limit: size, offset }))).hits.map((h) => h.id));
        }
        assert.equal(new Set(pages).size, pages.length, 'no document on two pages');
        assert.deepEqual(pages, full);
      };
      await pageThrough({ filters: { siteId: C.small } }, 3, 10);
      await pageThrough({ query: 'item number' }, 7, 35);
    });
  });
}
