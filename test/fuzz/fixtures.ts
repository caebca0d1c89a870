// The data the fuzz test runs against, made over the API: the fuzz tenant's fixtures (and the
// "victims" that deletes consume, re-created after each successful delete), and the other
// tenant's data with the snapshot that must come out of the run unchanged.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TenantFixture } from '../helpers/stack.js';

const K = '/api/knowledge';

async function created(t: TenantFixture, path: string, body: unknown, expected = 201): Promise<any> {
  const res = await t.request('POST', path, { body });
  assert.equal(res.status, expected, `${path}: ${res.text}`);
  return res.body;
}

const productBody = (externalId: string) => ({ external_id: externalId, title: `Produkt ${externalId}`, language: 'de', brand: 'Bosch', price_current: 10 });

/** A fresh victim of one kind; its ids by fixture name. */
export async function makeVictim(t: TenantFixture, kind: string, ids: Record<string, string>): Promise<Record<string, string>> {
  const tag = randomUUID().slice(0, 8);
  switch (kind) {
    case 'site': {
      const site = await created(t, `${K}/sites`, { slug: `victim-${tag}`, name: 'Victim', language: 'de' });
      return { victimSiteSlug: site.slug };
    }
    case 'category':
      return { victimCategoryId: (await created(t, `${K}/categories`, { name: `victim-${tag}` })).id };
    case 'product': {
      const product = await created(t, `${K}/products?site_id=${ids.siteSlug}`, productBody(`victim-${tag}`));
      const second = await created(t, `${K}/products?site_id=${ids.siteSlug}`, productBody(`victim2-${tag}`));
      return { victimProductId: product.id, victimExternalId: second.external_id };
    }
    case 'entry': {
      const entry = await created(t, `${K}/knowledge-entries`, { title: 'Victim', content: 'x', category_id: ids.categoryId, visibility: 'internal' });
      return { victimEntryId: entry.id };
    }
    case 'key':
      return { victimKeyId: (await created(t, `${K}/api-keys`, { name: 'victim', scopes: ['catalog:read'] })).id };
    case 'client': {
      const res = await t.request('POST', '/oauth/register', { body: { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post' } });
      assert.equal(res.status, 201, res.text);
      return { victimClientId: res.body.client_id };
    }
    case 'settings':
      return {};
    default:
      throw new Error(`no victim of kind ${kind}`);
  }
}

export const VICTIM_KINDS = ['site', 'category', 'product', 'entry', 'key', 'client'];

/** The fuzz tenant's fixtures: the ids the templates' `Ref`s name. */
export async function fuzzFixtures(t: TenantFixture): Promise<Record<string, string>> {
  const site = await created(t, `${K}/sites`, { slug: 'fz-main', name: 'Main', language: 'de', is_default: true });
  const category = await created(t, `${K}/categories`, { name: 'Main' });
  const product = await created(t, `${K}/products?site_id=${site.slug}`, { ...productBody('fz-main'), search_keywords: ['bohr'] });
  const entry = await created(t, `${K}/knowledge-entries`, {
    title: 'Rückgabe', content: 'Rückgabe binnen 30 Tagen', category_id: category.id, visibility: 'internal', tags: ['policy'],
  });
  const job = await created(t, `${K}/products/bulk?site_id=${site.slug}`, [productBody('fz-bulk-1')], 202);
  const confidential = await created(t, '/oauth/register', { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post' });
  const publicClient = await created(t, '/oauth/register', {
    redirect_uris: ['http://127.0.0.1:9/cb'], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none',
  });
  const ids: Record<string, string> = {
    siteId: site.id, siteSlug: site.slug, categoryId: category.id, productId: product.id, entryId: entry.id, jobId: job.job_id,
    projectId: randomUUID(), userId: t.user.id, clientId: confidential.client_id, clientSecret: confidential.client_secret,
    publicClientId: publicClient.client_id,
  };
  for (const kind of VICTIM_KINDS) Object.assign(ids, await makeVictim(t, kind, ids));
  return ids;
}

/** Gives the other tenant a site, products, a category, entries, a client: data the run must leave alone. */
export async function otherTenantData(t: TenantFixture): Promise<void> {
  const site = await created(t, `${K}/sites`, { slug: 'fz-main', name: 'Other', language: 'de' });
  const category = await created(t, `${K}/categories`, { name: 'Other' });
  for (const id of ['fz-main', 'fz-new', 'other-1']) await created(t, `${K}/products?site_id=${site.slug}`, productBody(id));
  for (const visibility of ['public', 'internal', 'restricted']) {
    await created(t, `${K}/knowledge-entries`, { title: `Other ${visibility}`, content: 'x', category_id: category.id, visibility, tags: ['policy'] });
  }
  await created(t, '/oauth/register', { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post' });
}

const SNAPSHOT_PATHS = [
  `${K}/sites`, `${K}/categories?tree=true`, `${K}/products?site_id=fz-main&limit=200`, `${K}/knowledge-entries?include_expired=true&limit=200`,
  `${K}/users?limit=200`, `${K}/api-keys`, `${K}/settings`, `${K}/oauth/clients`, `${K}/audit?limit=200`,
];

/** Everything of the tenant that its API shows (key use times aside: they move on every request). */
export async function snapshot(t: TenantFixture): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const path of SNAPSHOT_PATHS) {
    const res = await t.request('GET', path);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    out[path] = path.endsWith('/api-keys') ? (res.body as Array<Record<string, unknown>>).map(({ last_used_at: _, ...key }) => key) : res.body;
  }
  return out;
}
