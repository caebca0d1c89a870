// The built-in replica's write path, without Redis: what a re-applied product changes in the text
// index, the value sets behind filters, the facet and price columns, and what it leaves alone.
// (The engines' shared contract, test/search/contract, covers search over stored documents.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ProductCollection, productInput } from '../../src/search/builtin/products.js';
import type { ProductFilters, ProductSearch } from '../../src/search/engine.js';
import { attributeValues } from '../../src/search/productValues.js';
import type { StoredProduct } from '../../src/store/products.js';

const SITE_A = '00000000-0000-4000-8000-00000000000a';
const SITE_B = '00000000-0000-4000-8000-00000000000b';

function stored(id: string, fields: Partial<StoredProduct> = {}): StoredProduct {
  return {
    id, tenant_id: '00000000-0000-4000-8000-000000000001', site_id: SITE_A, external_id: id, title: 'Plain thing', description: null,
    short_description: null, sku: null, gtin: null, brand: null, category: null, attributes: {}, properties: {}, price_current: null,
    price_msrp: null, price_special: null, price_on_request: false, currency: 'EUR', image_url: null, product_url: null, availability: null,
    additional_images: [], rating_average: null, rating_count: 0, language: 'en', translation_group_id: id, is_variant: false, is_parent: false,
    search_keywords: [], has_similarity_anchor: false, source: 'test', sync_hash: null, created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z', ...fields,
  } as StoredProduct;
}

const apply = (collection: ProductCollection, ...docs: StoredProduct[]) => collection.table.setMany(docs.map((d) => productInput(d, null, {})));

function search(collection: ProductCollection, query: string, filters: Partial<ProductFilters> = {}, facets: ProductSearch['facets'] = []) {
  return collection.search({
    query, mode: 'keyword', vector: null, model: null, semanticLanguages: [], language: 'en', minSimilarity: 0, limit: 50, offset: 0,
    filters: { variantStrategy: 'all', ...filters }, facets,
  });
}
const ids = (result: { hits: { id: string }[] }) => result.hits.map((h) => h.id).sort();

describe('re-applying a product', () => {
  test('changed texts are indexed again: the old words find nothing, the new ones find it', () => {
    const c = new ProductCollection();
    apply(c, stored('p1', { title: 'Trail running shoe', description: 'Grippy sole' }), stored('p2', { title: 'Rain jacket' }));
    apply(c, stored('p1', { title: 'Wool sock', description: 'Grippy sole' }));
    assert.deepEqual(ids(search(c, 'trail')), []);
    assert.deepEqual(ids(search(c, 'wool')), ['p1']);
    assert.deepEqual(ids(search(c, 'grippy')), ['p1']);
    assert.deepEqual(ids(search(c, 'jacket')), ['p2']);
  });

  test('the same texts in another language are analysed again (German stems)', () => {
    const c = new ProductCollection();
    apply(c, stored('p1', { title: 'Häuser', language: 'en' }));
    assert.deepEqual(ids(search(c, 'haus', { language: 'de' })), []);
    apply(c, stored('p1', { title: 'Häuser', language: 'de' }));
    assert.deepEqual(ids(search(c, 'haus', { language: 'de' })), ['p1']);
  });

  test('words moved to another field are indexed again with that field\'s weight', () => {
    const c = new ProductCollection();
    apply(c, stored('p1', { title: 'Kettle steel', description: null }), stored('p2', { title: 'Kettle', description: 'steel' }));
    const score = (id: string) => search(c, 'steel').hits.find((h) => h.id === id)!.score;
    assert.ok(score('p1') > score('p2'), 'a title match beats a description match');
    apply(c, stored('p1', { title: 'Kettle', description: 'steel' }));
    assert.equal(score('p1'), score('p2'));
  });

  test('filters and facets follow changed values; unchanged texts still match', () => {
    const c = new ProductCollection();
    apply(c, stored('p1', { title: 'Lamp', brand: 'Lumen', category: 'Home > Lighting', availability: 'in_stock', price_current: '10.00' }));
    apply(c, stored('p1', { title: 'Lamp', brand: 'Velora', category: 'Office', availability: 'out_of_stock', price_current: '99.00', site_id: SITE_B }));
    assert.deepEqual(ids(search(c, 'lamp', { brand: ['lumen'] })), []);
    assert.deepEqual(ids(search(c, 'lamp', { brand: ['velora'] })), ['p1']);
    assert.deepEqual(ids(search(c, 'lamp', { category: 'home > lighting' })), []);
    assert.deepEqual(ids(search(c, 'lamp', { category: 'office' })), ['p1']);
    assert.deepEqual(ids(search(c, 'lamp', { siteId: SITE_A })), []);
    assert.deepEqual(ids(search(c, 'lamp', { siteId: SITE_B })), ['p1']);
    assert.deepEqual(ids(search(c, 'lamp', { inStock: true })), []);
    assert.deepEqual(ids(search(c, 'lamp', { priceMax: 50 })), []);
    assert.deepEqual(ids(search(c, 'lamp', { priceMin: 50 })), ['p1']);
    const { facets } = search(c, 'lamp', {}, ['brand', 'category', 'availability']);
    assert.deepEqual(facets, {
      brand: [{ value: 'Velora', count: 1 }],
      category: [{ value: 'Office', count: 1 }],
      availability: [{ value: 'out_of_stock', count: 1 }],
    });
  });

  test('a sku that changed is no longer a code of the product', () => {
    const c = new ProductCollection();
    apply(c, stored('p1', { title: 'Drill', sku: 'DR-100' }), stored('p2', { title: 'Drill' }));
    apply(c, stored('p1', { title: 'Drill', sku: 'DR-200' }));
    assert.equal(search(c, 'dr100').hits.length, 0, 'the old sku boosts nothing and matches no word');
    assert.equal(search(c, 'DR-200').hits[0]?.id, 'p1');
  });

  test('a delete leaves no trace in texts, filters or facets; the number is reused', () => {
    const c = new ProductCollection();
    apply(c, stored('p1', { title: 'Kettle', brand: 'Ostara' }), stored('p2', { title: 'Kettle', brand: 'Sorrel' }));
    c.table.delete('p1');
    assert.deepEqual(ids(search(c, 'kettle')), ['p2']);
    assert.deepEqual(ids(search(c, 'kettle', { brand: ['ostara'] })), []);
    assert.deepEqual(search(c, 'kettle', {}, ['brand']).facets.brand, [{ value: 'Sorrel', count: 1 }]);
    apply(c, stored('p3', { title: 'Teapot', brand: 'Ostara' }));
    assert.deepEqual(ids(search(c, 'kettle')), ['p2']);
    assert.deepEqual(ids(search(c, '', { brand: ['ostara'] })), ['p3']);
  });
});

describe('attributes', () => {
  test('any listed value of each attribute, list values each, nested values ignored', () => {
    const c = new ProductCollection();
    apply(
      c,
      stored('p1', { title: 'Shirt', attributes: { Color: ['Red', 'Blue'], size: 'M', fit: { cut: 'slim' } } }),
      stored('p2', { title: 'Shirt', attributes: { color: 'green', size: 'L' } }),
    );
    assert.deepEqual(ids(search(c, 'shirt', { attributes: { color: ['BLUE'] } })), ['p1']);
    assert.deepEqual(ids(search(c, 'shirt', { attributes: { color: ['blue', 'green'], size: ['l'] } })), ['p2']);
    assert.deepEqual(ids(search(c, 'shirt', { attributes: { fit: ['slim'] } })), []);
  });

  test('a name given twice in other case keeps the last spelling that has values, as both engines read it', () => {
    const attributes = { Color: 'red', color: 'blue', Size: 'M', size: { nested: true }, weight_g: 1200 };
    assert.deepEqual(Object.fromEntries(attributeValues(attributes)), { color: ['blue'], size: ['m'], weight_g: ['1200'] });
    const c = new ProductCollection();
    apply(c, stored('p1', { title: 'Cap', attributes }));
    assert.deepEqual(ids(search(c, 'cap', { attributes: { color: ['red'] } })), []);
    assert.deepEqual(ids(search(c, 'cap', { attributes: { color: ['blue'], size: ['m'], weight_g: ['1200'] } })), ['p1']);
  });
});
