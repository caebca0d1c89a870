// The SearchEngine contract, search rules (domain/searchRules.ts): the engine leaves out the
// products a rule hides or pins (filters.excludeIds) in every kind of search, and a SearchService
// over the engine under test places pins at their positions whatever the sort and page, hides,
// adds a rule's filters, and applies only the rules of the query, site and dates.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { SearchService } from '../../../src/domain/search.js';
import type { ProductInput } from '../../../src/domain/products.js';
import type { Tenant } from '../../../src/schemas/records.js';
import { keysOf, productSearch, uniqueSlug, type ProductSearchOver } from '../fixtures.js';
import { domain, engine } from './fixtures.js';

const SHOP: { key: string; title: string; price: string; brand: string; site?: 'outlet' }[] = [
  { key: 'regen', title: 'Regenjacke Sturm', price: '89.90', brand: 'Nordkap' },
  { key: 'leicht', title: 'Leichte Jacke', price: '49.00', brand: 'Nordkap' },
  { key: 'winter', title: 'Winterjacke Polar', price: '149.00', brand: 'Fjell' },
  { key: 'basic', title: 'Jacke Basic', price: '19.99', brand: 'Fjell' },
  { key: 'weste', title: 'Weste Daune', price: '79.00', brand: 'Adler' },
  { key: 'schirm', title: 'Schirm Sturm', price: '5.00', brand: 'Adler' },
  { key: 'outlet', title: 'Jacke Outlet', price: '9.00', brand: 'Adler', site: 'outlet' },
];

export function ruleCases(): void {
  describe('search rules: hidden and pinned products left out by the engine, pins placed, filters added', () => {
    let tenant: Tenant;
    const ids: Record<string, string> = {};
    const names: Record<string, string> = {};
    const sites: Record<string, string> = {};
    let service: SearchService;
    const engineKeys = async (over: ProductSearchOver) => keysOf((await engine.searchProducts(tenant.id, productSearch({ language: 'de', ...over }))).hits, names);
    const find = (body: Record<string, unknown>) =>
      service.searchProducts(tenant, { mode: 'keyword', site_id: 'shop', ...body } as Parameters<SearchService['searchProducts']>[1]);
    const keys = async (body: Record<string, unknown>) => (await find(body)).hits.map((h) => names[h.id]);
    const rules = () => domain.services.searchRules;

    before(async () => {
      const created = await domain.services.tenants.create(uniqueSlug('cr'), 'rules');
      tenant = { ...created, settings: { ...created.settings, facet_attributes: [] } };
      sites.shop = (await domain.services.sites.create(tenant.id, { slug: 'shop', name: 'Shop', language: 'de' })).id;
      sites.outlet = (await domain.services.sites.create(tenant.id, { slug: 'outlet', name: 'Outlet', language: 'de' })).id;
      for (const p of SHOP) {
        const input = { title: p.title, language: 'de', external_id: p.key, price_current: p.price, brand: p.brand } as unknown as ProductInput;
        const written = await domain.services.products.upsert(tenant.id, { siteId: sites[p.site ?? 'shop'], input, source: 'api' });
        ids[p.key] = written.id;
        names[written.id] = p.key;
      }
      service = new SearchService({
        engine, embedders: null, products: domain.services.products, knowledgeEntries: domain.services.knowledgeEntries, sites: domain.services.sites,
        rules: domain.services.searchRules,
      });
    });

    test('excludeIds: left out of keyword, browsing, sorted searches, their totals and facets', async () => {
      const excludeIds = [ids.regen, ids.basic];
      const site = { siteId: sites.shop };
      assert.deepEqual((await engineKeys({ query: 'jacke', filters: site })).sort(), ['basic', 'leicht', 'regen', 'winter']);
      assert.deepEqual((await engineKeys({ query: 'jacke', filters: { ...site, excludeIds } })).sort(), ['leicht', 'winter']);
      assert.deepEqual(await engineKeys({ filters: { ...site, excludeIds }, sort: [{ field: 'price_current', direction: 'asc' }] }), ['schirm', 'leicht', 'weste', 'winter']);
      const faceted = await engine.searchProducts(tenant.id, productSearch({ language: 'de', query: 'jacke', filters: { ...site, excludeIds }, facets: ['brand'] }));
      assert.equal(faceted.total, 2);
      assert.deepEqual(faceted.facets.brand?.map((f) => [f.value, f.count]).sort(), [['Fjell', 1], ['Nordkap', 1]]);
    });

    test('pins at their positions on every page and in every sort; hidden never; the answer lists the rule', async () => {
      await rules().put(tenant.id, 'jacken', { site_id: 'shop', query: 'Jacke', pin: [{ product_id: ids.weste, position: 1 }, { product_id: ids.basic, position: 3 }], hide: [ids.regen] });
      const answer = await find({ query: 'jacke' });
      const organic = (await engineKeys({ query: 'jacke', filters: { siteId: sites.shop, excludeIds: [ids.regen, ids.weste, ids.basic] } }));
      assert.deepEqual(answer.hits.map((h) => names[h.id]), ['weste', organic[0], 'basic', ...organic.slice(1)]);
      assert.equal(answer.total, organic.length + 2);
      assert.equal(answer.hits[0].pinned, true);
      assert.equal(answer.hits[1].pinned, undefined);
      assert.deepEqual(answer.applied_rules, [{ id: 'jacken', pinned: [ids.weste, ids.basic], hidden: 1, filtered: false }]);
      const whole = answer.hits.map((h) => names[h.id]);
      const pages = [...(await keys({ query: 'jacke', limit: 2 })), ...(await keys({ query: 'jacke', limit: 2, offset: 2 })), ...(await keys({ query: 'jacke', limit: 2, offset: 4 }))];
      assert.deepEqual(pages, whole);
      const byPrice = await keys({ query: 'jacke', sort: [{ price_current: 'desc' }] });
      assert.deepEqual(byPrice, ['weste', 'winter', 'basic', 'leicht']);
      // Case, punctuation and diacritics do not matter; other words do (exact).
      assert.equal((await keys({ query: '  JACKE! ' }))[0], 'weste');
      assert.deepEqual((await find({ query: 'jacke polar' })).applied_rules, []);
      // Another site's search, and a facet-only search, have no pins.
      assert.deepEqual((await find({ query: 'jacke', site_id: 'outlet' })).applied_rules, []);
      const facetOnly = await find({ query: 'jacke', limit: 0, facets: ['brand'] });
      assert.deepEqual(facetOnly.hits, []);
      assert.ok(!facetOnly.facets.brand?.some((f) => f.value === 'Nordkap' && f.count > 1), 'the hidden product is not counted');
    });

    test('pins past the end of the matches follow them; a contains rule adds filters', async () => {
      await rules().put(tenant.id, 'sturm', { site_id: 'shop', query: 'sturm', match: 'contains', pin: [{ product_id: ids.winter, position: 40 }], filters: { brand: ['Adler', 'Fjell'] } });
      const answer = await find({ query: 'schirm sturm' });
      assert.deepEqual(answer.hits.map((h) => names[h.id]), ['schirm', 'winter']);
      assert.equal(answer.total, 2);
      assert.deepEqual(answer.applied_rules?.map((r) => [r.id, r.filtered]), [['sturm', true]]);
      // The search's own filter and the rule's both hold: no brand both accept leaves the pin alone.
      assert.deepEqual(await keys({ query: 'sturm', filters: { brand: ['Nordkap'] } }), ['winter']);
      assert.deepEqual(await keys({ query: 'sturm', filters: { brand: ['adler'] } }), ['schirm', 'winter']);
      await rules().delete(tenant.id, 'sturm');
      assert.deepEqual((await keys({ query: 'sturm' })).sort(), ['regen', 'schirm']);
    });

    test('only between active_from and active_until; disabled rules and other sites apply nothing; list by query', async () => {
      await rules().put(tenant.id, 'later', { query: 'weste', hide: [ids.weste], active_from: '2999-01-01' });
      await rules().put(tenant.id, 'ended', { query: 'weste', hide: [ids.weste], active_until: '2000-01-31' });
      await rules().put(tenant.id, 'off', { query: 'weste', hide: [ids.weste], enabled: false });
      await rules().put(tenant.id, 'outlet', { site_id: 'outlet', query: 'weste', hide: [ids.weste] });
      assert.deepEqual(await keys({ query: 'weste' }), ['weste']);
      const listed = await rules().list(tenant.id, { query: 'Weste' }, { offset: 0, limit: 10 });
      assert.deepEqual(listed.items.map((r) => r.id).sort(), ['ended', 'later', 'off', 'outlet']);
      assert.equal(listed.items.find((r) => r.id === 'ended')?.active_until, '2000-01-31T23:59:59.999Z');
      await rules().put(tenant.id, 'now', { query: 'weste', hide: [ids.weste], active_from: '2000-01-01T00:00:00Z' });
      assert.deepEqual(await keys({ query: 'weste' }), []);
      assert.equal((await find({ query: 'weste' })).total, 0);
    });
  });
}
