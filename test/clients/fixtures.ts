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

/** Writes products to a site (created when missing); their ids in order. */
export async function writeProducts(t: TenantFixture, site: string, products: ShopProduct[], prefix = 'p'): Promise<string[]> {
  const exists = await t.request('GET', `${K}/sites/${site}`);
  if (exists.status === 404) assert.equal((await t.request('POST', `${K}/sites`, { body: { slug: site, name: site, language: 'en' } })).status, 201);
  const ids: string[] = [];
  for (const [i, p] of products.entries()) {
    const res = await t.request('POST', `${K}/products?site_id=${site}`, {
      body: {
        external_id: `${prefix}-${i}`, title: p.title, brand: p.brand, category: p.category, price_current: p.price, availability: p.availability,
        language: 'en', sync_hash: `h${i}`,
      },
    });
    assert.equal(res.status, 201, res.text);
    ids.push(res.body.id);
  }
  return ids;
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
