// The judged set in a kcs tenant: its two sites, its products through the bulk API, the wait for
// their vectors, and a search as a storefront sends it (the site, no language).
import { setTimeout as delay } from 'node:timers/promises';
import type { TenantFixture } from '../helpers/stack.js';
import { productBody, type JudgedProduct, type JudgedQuery } from './judged.js';

const SITES = { de: { slug: 'shop-de', name: 'Shop DE', language: 'de' }, en: { slug: 'shop-en', name: 'Shop EN', language: 'en' } } as const;

export interface JudgedTenant {
  /** A query's ranked product ids (the judged set's ids) in a mode, and what the answer said. */
  search(query: JudgedQuery, mode: 'keyword' | 'hybrid' | 'semantic'): Promise<{ ids: string[]; mode: string; fallback: string | null }>;
}

/** Writes the judged products into the tenant; with `embedded`, waits until every vector is stored. */
export async function loadJudged(t: TenantFixture, products: JudgedProduct[], { embedded }: { embedded: boolean }): Promise<JudgedTenant> {
  for (const [site, spec] of Object.entries(SITES)) {
    const created = await t.request('POST', '/api/knowledge/sites', { body: spec });
    if (created.status !== 201) throw new Error(`site ${spec.slug}: ${created.status} ${created.text}`);
    const items = products.filter((p) => p.site === site).map(productBody);
    const job = await t.request('POST', `/api/knowledge/products/bulk?site_id=${spec.slug}&wait=true`, { body: items });
    if (job.status !== 200 || job.body.counts.created !== items.length) throw new Error(`import into ${spec.slug}: ${job.status} ${job.text.slice(0, 500)}`);
  }
  while (embedded) {
    const status = await t.request('GET', '/api/knowledge/embedding');
    if (status.body.products.failed > 0) throw new Error(`embedding failed: ${status.text}`);
    if (status.body.products.pending === 0) break;
    await delay(500);
  }
  return {
    async search(query, mode) {
      const res = await t.request('POST', '/api/knowledge/search/products', { body: { query: query.query, site_id: SITES[query.site].slug, mode, limit: 10 } });
      if (res.status !== 200) throw new Error(`search ${JSON.stringify(query.query)}: ${res.status} ${res.text}`);
      // The judged set's ids are the products' external ids.
      const ids = (res.body.hits as { product: { external_id: string } }[]).map((h) => h.product.external_id);
      return { ids, mode: res.body.mode, fallback: res.body.semantic_fallback };
    },
  };
}
