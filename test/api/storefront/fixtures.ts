// What the storefront suites share: a catalogue of one site, storefront keys, and CORS header reads.
import assert from 'node:assert/strict';
import type { HttpResult, TenantFixture } from '../../helpers/stack.js';

export const K = '/api/knowledge';
export const SEARCH = `${K}/search/products`;
export const SHOP = 'https://shop.example';
export const LOCAL_SHOP = 'http://localhost:3000';

export interface Catalogue {
  siteSlug: string;
  productIds: string[];
}

/** A site with three drills of two brands, each carrying the fields a search key never sees. */
export async function catalogue(t: TenantFixture): Promise<Catalogue> {
  const site = await t.request('POST', `${K}/sites`, { body: { slug: 'shop', name: 'Shop', language: 'en' } });
  assert.equal(site.status, 201, site.text);
  const productIds: string[] = [];
  for (const [i, brand] of ['Acme', 'Acme', 'Bosch'].entries()) {
    const res = await t.request('POST', `${K}/products?site_id=shop`, {
      body: {
        external_id: `drill-${i}`, title: `Cordless drill ${i}`, brand, category: 'Tools', language: 'en', price_current: 50 + i * 10,
        availability: 'InStock', sync_hash: `hash-${i}`, search_keywords: ['secret synonym'], similarity_text: 'anchor text',
        embedding_text_description: 'embedding text', attributes: { color: 'blue' },
      },
      headers: { 'X-Audit-Source': 'shopware-connector' },
    });
    assert.equal(res.status, 201, res.text);
    productIds.push(res.body.id);
  }
  return { siteSlug: 'shop', productIds };
}

/** A key of the tenant's user minted over the API (so the admin-created key rule applies). */
export async function mintKey(t: TenantFixture, body: Record<string, unknown>, key = t.key): Promise<HttpResult> {
  return t.request('POST', `${K}/api-keys`, { key, body: { name: 'storefront', ...body } });
}

/** A key that must be minted: its secret. */
export async function keyWith(t: TenantFixture, scopes: string[], allowedOrigins?: string[]): Promise<string> {
  const res = await mintKey(t, { scopes, ...(allowedOrigins ? { allowed_origins: allowedOrigins } : {}) });
  assert.equal(res.status, 201, res.text);
  return res.body.key;
}

/** The Access-Control-* headers of an answer. */
export function corsHeaders(res: HttpResult): Record<string, string> {
  return Object.fromEntries(Object.entries(res.headers).filter(([name]) => name.startsWith('access-control-')).map(([n, v]) => [n, String(v)]));
}

/** The answer is readable from `origin` (and says it varies by Origin). */
export function assertReadableFrom(res: HttpResult, origin: string): void {
  assert.equal(res.headers['access-control-allow-origin'], origin, `${res.status} ${res.text}`);
  assert.equal(res.headers.vary, 'Origin');
  const exposed = String(res.headers['access-control-expose-headers']).split(/,\s*/);
  for (const name of ['Retry-After', 'X-Request-Id']) assert.ok(exposed.includes(name), `exposes ${name}: ${exposed.join(', ')}`);
}

/** No CORS header at all: a browser cannot read the answer cross-origin. */
export function assertNoCors(res: HttpResult): void {
  assert.deepEqual(corsHeaders(res), {}, `${res.status} ${res.text}`);
}
