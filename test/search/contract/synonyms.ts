// The SearchEngine contract, synonym sets (search/synonyms.ts): applied when the query is analysed,
// as readings of its words, so both engines match them as they match a compound's parts. Multi-way
// and one-way sets, a multi-word entry, a compound whose part has synonyms, and the sets of one
// site or language applying only to its searches (the table SynonymService.tableFor builds).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { ProductInput } from '../../../src/domain/products.js';
import type { SynonymTable } from '../../../src/search/synonyms.js';
import { keysOf, productSearch, sorted, uniqueSlug } from '../fixtures.js';
import { domain, engine, other, OTHER_PROCESS_MS } from './fixtures.js';
import { within } from '../fixtures.js';

const SHOP: { key: string; title: string; site?: 'outlet' }[] = [
  { key: 'smartphone', title: 'Smartphone Galaxy S' },
  { key: 'huelle', title: 'Smartphone-Hülle Leder' },
  { key: 'handy', title: 'Handy Senior Plus' },
  { key: 'jeans', title: 'Jeans Slim Fit' },
  { key: 'chino', title: 'Chino Classic' },
  { key: 'hose', title: 'Hose Regular' },
  { key: 'fernseher', title: 'Fernseher 55 Zoll' },
  { key: 'smarttv', title: 'Smart TV 43 Zoll' },
  { key: 'sneaker', title: 'Sneaker Urban' },
  { key: 'sneaker-outlet', title: 'Sneaker Run', site: 'outlet' },
];

export function synonymCases(): void {
  describe('synonym sets: multi-way, one-way, multi-word, compound parts, site and language', () => {
    let tenantId = '';
    const sites: Record<string, string> = {};
    const names: Record<string, string> = {};
    const table = (site: 'shop' | 'outlet' | null = null, language = 'de') =>
      domain.services.synonyms.tableFor(tenantId, { siteId: site ? sites[site] : undefined, language });
    const keys = async (query: string, synonyms: SynonymTable | null, over: { site?: 'shop' | 'outlet'; language?: string } = {}) => {
      const search = productSearch({ query, language: over.language ?? 'de', synonyms, filters: over.site ? { siteId: sites[over.site] } : {} });
      return sorted(keysOf((await engine.searchProducts(tenantId, search)).hits, names));
    };

    before(async () => {
      const tenant = await domain.services.tenants.create(uniqueSlug('cy'), 'synonyms');
      tenantId = tenant.id;
      sites.shop = (await domain.services.sites.create(tenant.id, { slug: 'shop', name: 'Shop', language: 'de' })).id;
      sites.outlet = (await domain.services.sites.create(tenant.id, { slug: 'outlet', name: 'Outlet', language: 'de' })).id;
      for (const p of SHOP) {
        const input = { title: p.title, language: 'de', external_id: p.key } as ProductInput;
        const written = await domain.services.products.upsert(tenant.id, { siteId: sites[p.site ?? 'shop'], input, source: 'api' });
        names[written.id] = p.key;
      }
      const s = domain.services.synonyms;
      await s.put(tenant.id, 'phone', { synonyms: ['handy', 'smartphone', 'mobiltelefon'] });
      await s.put(tenant.id, 'hose', { root: 'hose', synonyms: ['jeans', 'chino'] });
      await s.put(tenant.id, 'tv', { synonyms: ['fernseher', 'smart tv'] });
      await s.put(tenant.id, 'sneaker', { synonyms: ['turnschuh', 'sneaker'], site_id: 'outlet' });
      await s.put(tenant.id, 'pants', { synonyms: ['pants', 'jeans'], language: 'en' });
    });

    test('multi-way: every entry finds the others; without the table only itself', async () => {
      const synonyms = await table();
      assert.deepEqual(await keys('handy', null), ['handy']);
      assert.deepEqual(await keys('handy', synonyms), ['handy', 'huelle', 'smartphone']);
      assert.deepEqual(await keys('smartphone', synonyms), ['handy', 'huelle', 'smartphone']);
      assert.deepEqual(await keys('mobiltelefon', synonyms), ['handy', 'huelle', 'smartphone']);
    });

    test('one-way: the root finds its synonyms (inflected too), a synonym does not find the root', async () => {
      const synonyms = await table();
      assert.deepEqual(await keys('hose', synonyms), ['chino', 'hose', 'jeans']);
      assert.deepEqual(await keys('hosen', synonyms), ['chino', 'hose', 'jeans']);
      assert.deepEqual(await keys('jeans', synonyms), ['jeans']);
      assert.deepEqual(await keys('chino', synonyms), ['chino']);
    });

    test('multi-word: "smart tv" finds the Fernseher and back; "tv" alone is no entry', async () => {
      const synonyms = await table();
      assert.deepEqual(await keys('smart tv', null), ['smarttv']);
      assert.deepEqual(await keys('smart tv', synonyms), ['fernseher', 'smarttv']);
      assert.deepEqual(await keys('fernseher', synonyms), ['fernseher', 'smarttv']);
      assert.deepEqual(await keys('tv', synonyms), ['smarttv']);
      // With a word after the run, every word still counts.
      assert.deepEqual(await keys('smart tv zoll', synonyms), ['fernseher', 'smarttv']);
    });

    test('a compound\'s part gets its synonyms: "handyhülle" finds the Smartphone-Hülle', async () => {
      assert.deepEqual(await keys('handyhülle', null), []);
      const hits = await keys('handyhülle', await table());
      assert.deepEqual(hits, ['huelle']);
      assert.deepEqual(await keys('handy hülle', await table()), ['huelle']);
    });

    test("a site's set applies to that site's searches only; a language's set to that language's", async () => {
      assert.deepEqual(await keys('turnschuh', await table('shop'), { site: 'shop' }), []);
      assert.deepEqual(await keys('turnschuh', await table('outlet'), { site: 'outlet' }), ['sneaker-outlet']);
      assert.deepEqual(await keys('turnschuh', await table(null)), []);
      assert.deepEqual(await keys('pants', await table(null, 'de')), []);
      assert.deepEqual(await keys('pants', await table(null, 'en'), { language: 'en' }), ['jeans']);
    });

    test('a set written through another process applies here within a second', async () => {
      assert.deepEqual(await keys('beinkleid', await table()), []);
      await other.services.synonyms.put(tenantId, 'beinkleid', { root: 'beinkleid', synonyms: ['hose'] });
      await within(OTHER_PROCESS_MS, 'the other process\'s set', async () => (await keys('beinkleid', await table())).includes('hose'));
    });
  });
}
