// What the adapter suites share: a storefront catalogue, and a fetch for the adapter in Node that
// talks real HTTP to the stack on 127.0.0.1 with the tenant's Host (Node does not resolve *.localhost).
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { KcsSearchClientOptions } from '../../clients/instantsearch/index.js';
import type { Stack, TenantFixture } from '../helpers/stack.js';

export const K = '/api/knowledge';

export interface ShopProduct {
  title: string;
  brand: string;
  category: string;
  price: number;
  availability: string;
  description?: string;
  /** rating_average (0–5); absent: not rated. */
  rating?: number;
  attributes?: Record<string, string>;
}

/** Eight products of three brands, two categories, prices 10–80, in the order they are written. */
export const PRODUCTS: ShopProduct[] = [
  { title: 'Cordless Drill Compact', brand: 'Acme', category: 'Tools', price: 10, availability: 'InStock' },
  { title: 'Cordless Drill Pro', brand: 'Acme', category: 'Tools', price: 20, availability: 'InStock' },
  { title: 'Hammer Drill Heavy', brand: 'Bosch', category: 'Tools', price: 30, availability: 'OutOfStock' },
  { title: 'Garden Hose Reel', brand: 'Gardena', category: 'Garden', price: 40, availability: 'InStock' },
  { title: 'Drill Bit Set', brand: 'Bosch', category: 'Tools', price: 50, availability: 'InStock' },
  { title: 'Lawn Mower Größe XL', brand: 'Gardena', category: 'Garden', price: 60, availability: 'InStock' },
  { title: 'Impact Drill Café Edition', brand: 'Acme', category: 'Tools', price: 70, availability: 'OutOfStock' },
  { title: 'Angle Grinder', brand: 'Bosch', category: 'Tools', price: 80, availability: 'InStock' },
];

/** Writes products to a site (created when missing, in `language`); their ids in order. */
export async function writeProducts(t: TenantFixture, site: string, products: ShopProduct[], prefix = 'p', language = 'en'): Promise<string[]> {
  const exists = await t.request('GET', `${K}/sites/${site}`);
  if (exists.status === 404) assert.equal((await t.request('POST', `${K}/sites`, { body: { slug: site, name: site, language } })).status, 201);
  const ids: string[] = [];
  for (const [i, p] of products.entries()) {
    const res = await t.request('POST', `${K}/products?site_id=${site}`, {
      body: {
        external_id: `${prefix}-${i}`, title: p.title, brand: p.brand, category: p.category, price_current: p.price, availability: p.availability,
        ...(p.description !== undefined ? { description: p.description } : {}),
        ...(p.rating !== undefined ? { rating_average: p.rating, rating_count: 10 } : {}),
        ...(p.attributes !== undefined ? { attributes: p.attributes } : {}),
        language, sync_hash: `h${i}`,
      },
    });
    assert.equal(res.status, 201, res.text);
    ids.push(res.body.id);
  }
  return ids;
}

/**
 * A German outdoor shop (site `shop-de`): ten products of five brands under category paths three
 * levels deep, with `attributes: {farbe, groesse}`, prices 19.95–199 and ratings (one unrated).
 */
export const SHOP_DE: ShopProduct[] = [
  {
    title: 'Regenjacke Nordkap', brand: 'Vaude', category: 'Herren > Jacken > Regenjacken', price: 129.9, rating: 4.5, availability: 'InStock',
    attributes: { farbe: 'Blau', groesse: 'L' },
    description: 'Die leichte Regenjacke für lange Touren im Norden: wasserdicht und atmungsaktiv, mit verschweißten Nähten, einer verstellbaren Kapuze, ' +
      'zwei Brusttaschen mit Reißverschluss und Unterarmbelüftung. Sie lässt sich klein in die eigene Tasche packen und wiegt nur 380 Gramm.',
  },
  {
    title: 'Regenjacke Sturmböe', brand: 'Jack Wolfskin', category: 'Damen > Jacken > Regenjacken', price: 89, rating: 4.1, availability: 'InStock',
    attributes: { farbe: 'Rot', groesse: 'M' },
    description: 'Eine robuste Jacke für Damen, wasserdicht bis 10.000 mm Wassersäule, mit Kinnschutz und Kordelzug am Saum.',
  },
  {
    title: 'Softshelljacke Alpin', brand: 'Vaude', category: 'Herren > Jacken > Softshelljacken', price: 149, rating: 3.8, availability: 'InStock',
    attributes: { farbe: 'Schwarz', groesse: 'XL' },
    description: 'Winddichte Softshelljacke mit elastischem Material für Skitouren und Klettersteige.',
  },
  {
    title: 'Daunenjacke Polar', brand: 'Jack Wolfskin', category: 'Herren > Jacken > Daunenjacken', price: 199, rating: 4.8, availability: 'OutOfStock',
    attributes: { farbe: 'Schwarz', groesse: 'L' },
    description: 'Warme Daunenjacke mit 90/10 Daune für eisige Wintertage in der Stadt und am Berg.',
  },
  {
    title: 'Wanderhose Trail', brand: 'Schöffel', category: 'Herren > Hosen > Wanderhosen', price: 79.95, rating: 4.2, availability: 'InStock',
    attributes: { farbe: 'Grün', groesse: 'L' },
    description: 'Leichte Wanderhose mit abzippbaren Beinen und vielen Taschen.',
  },
  {
    title: 'Regenhose Basic', brand: 'Vaude', category: 'Herren > Hosen > Regenhosen', price: 49, rating: 3.5, availability: 'InStock',
    attributes: { farbe: 'Blau', groesse: 'M' },
    description: 'Wasserdicht verschweißte Überhose für Regentage auf dem Rad.',
  },
  {
    title: 'Fleecejacke Cosy', brand: 'Schöffel', category: 'Damen > Jacken > Fleecejacken', price: 69, rating: 4, availability: 'InStock',
    attributes: { farbe: 'Rot', groesse: 'S' },
    description: 'Kuschelige Fleecejacke für kühle Abende am Lagerfeuer.',
  },
  {
    title: 'Wanderschuh Gipfel', brand: 'Meindl', category: 'Schuhe > Wanderschuhe', price: 179, rating: 4.7, availability: 'InStock',
    attributes: { farbe: 'Braun', groesse: '43' },
    description: 'Wasserdichter Lederschuh mit Vibram-Sohle für alpine Touren.',
  },
  {
    title: 'Trinkflasche Berg & Tal', brand: 'Sigg', category: 'Zubehör > Flaschen', price: 24.9, availability: 'InStock',
    attributes: { farbe: 'Rot', groesse: '1 L' },
    description: 'Auslaufsichere Flasche aus Aluminium <mit> Schraubverschluss.',
  },
  {
    title: 'Mütze Flocke', brand: 'Schöffel', category: 'Zubehör > Mützen', price: 19.95, rating: 4.4, availability: 'InStock',
    attributes: { farbe: 'Blau', groesse: 'Einheitsgröße' },
    description: 'Warme Strickmütze aus Merinowolle.',
  },
];

/** The tenant's facet_attributes (`farbe`, `groesse`), set with the fixture's admin key, and SHOP_DE written to `site`. */
export async function writeShopDe(t: TenantFixture, site = 'shop-de'): Promise<string[]> {
  const settings = await t.request('PUT', `${K}/settings`, { body: { facet_attributes: ['farbe', 'groesse'] } });
  assert.equal(settings.status, 200, settings.text);
  return writeProducts(t, site, SHOP_DE, 'de', 'de');
}

/** A fetch for the adapter: the request goes to the stack's port with the tenant's Host. */
export function tenantFetch(stack: Stack, slug: string): NonNullable<KcsSearchClientOptions['fetch']> {
  return (url, init) =>
    new Promise((resolve, reject) => {
      const { pathname, search } = new URL(url);
      const req = httpRequest({
        host: '127.0.0.1', port: stack.port, method: init.method, path: pathname + search,
        headers: { ...init.headers, host: `${slug}.localhost:${stack.port}`, 'content-length': String(Buffer.byteLength(init.body)) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ ok: status >= 200 && status < 300, status, statusText: res.statusMessage ?? '', text: async () => text });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(init.body);
    });
}
