// Every Redis key of the service. A tenant's keys carry the hash tag {t:<tenant id>} so they share
// one Cluster slot and multi-key Lua scripts stay atomic there (DESIGN §1).
const tenantPrefix = (tenantId: string) => `kcs:{t:${tenantId}}`;

export const keys = {
  /** Global: tenant slug → tenant id. */
  tenantSlugs: 'kcs:tenants:by-slug',

  tenant: (t: string) => `${tenantPrefix(t)}:tenant`,
  /** Tenant change stream: one entry per document write, read by search replicas. */
  changes: (t: string) => `${tenantPrefix(t)}:changes`,

  users: (t: string) => `${tenantPrefix(t)}:users`,
  user: (t: string, id: string) => `${tenantPrefix(t)}:user:${id}`,
  userEmails: (t: string) => `${tenantPrefix(t)}:users:by-email`,

  apiKeys: (t: string) => `${tenantPrefix(t)}:api-keys`,
  apiKey: (t: string, id: string) => `${tenantPrefix(t)}:api-key:${id}`,
  rateBucket: (t: string, credentialId: string) => `${tenantPrefix(t)}:rate:${credentialId}`,

  sites: (t: string) => `${tenantPrefix(t)}:sites`,
  site: (t: string, id: string) => `${tenantPrefix(t)}:site:${id}`,
  siteSlugs: (t: string) => `${tenantPrefix(t)}:sites:by-slug`,
  defaultSite: (t: string) => `${tenantPrefix(t)}:sites:default`,
  /** Products of one site (list index); filled by the products capability. */
  siteProducts: (t: string, siteId: string) => `${tenantPrefix(t)}:site:${siteId}:products`,
  product: (t: string, id: string) => `${tenantPrefix(t)}:product:${id}`,

  categories: (t: string) => `${tenantPrefix(t)}:categories`,
  category: (t: string, id: string) => `${tenantPrefix(t)}:category:${id}`,
  categoryParents: (t: string) => `${tenantPrefix(t)}:categories:parent`,
  /** Children of a category; `root` holds the top-level ones. */
  categoryChildren: (t: string, parentId: string | null) => `${tenantPrefix(t)}:category:${parentId ?? 'root'}:children`,
  /** Knowledge entries filed under a category; filled by the knowledge capability. */
  categoryEntries: (t: string, id: string) => `${tenantPrefix(t)}:category:${id}:entries`,
};

/** Upper bound of a change stream (approximate trimming). */
export const CHANGE_STREAM_MAXLEN = 100_000;
