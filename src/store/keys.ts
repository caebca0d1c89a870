// Every Redis key of the service. A tenant's keys carry the hash tag {t:<tenant id>} so they share
// one Cluster slot and multi-key Lua scripts stay atomic there (DESIGN §1).
const tenantPrefix = (tenantId: string) => `kcs:{t:${tenantId}}`;

export const keys = {
  /** Global: tenant slug → tenant id. */
  tenantSlugs: 'kcs:tenants:by-slug',
  /** Global: embedding model id → how to build it (store/embeddingModels.ts), for searches over a tenant's older vectors. */
  embeddingModels: 'kcs:embedding:models',
  /** Global: the key query_ids are signed with (domain/queryIds.ts), made once by the first process that needs it. */
  analyticsSecret: 'kcs:analytics:secret',
  /** One serve process's stream that a tenant joining its change-stream tail writes to, waking the tail's blocking read (search/builtin/follower.ts; expires). */
  followerWake: (process: string) => `kcs:follower-wake:${process}`,

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
  /** Products of one site (list index, score = created ms). */
  siteProducts: (t: string, siteId: string) => `${tenantPrefix(t)}:site:${siteId}:products`,
  /** external_id → product id within one site. */
  siteExternalIds: (t: string, siteId: string) => `${tenantPrefix(t)}:site:${siteId}:external-ids`,
  /**
   * A product: hash of doc (JSON), rev, parent_external_id, embedding_status, text_hash (hash of
   * the embedding texts), text_sources (the explicit ones, JSON), embedding_model (model of the
   * last vectors stored). Its vectors and search fields have hashes of their own (below). A sync
   * that changes nothing writes none of it.
   */
  product: (t: string, id: string) => `${tenantPrefix(t)}:product:${id}`,
  /**
   * A product's vectors, v:<model>:<name> (store/vectors.ts), in a hash of their own, and with the
   * Redis Query Engine the search fields a vector search filters on (f:*, the stable ones): a
   * change of price or stock never makes the server index a vector again. Made by the product's
   * first vectors (lua/storeVectors-7.lua): a product without vectors has none.
   */
  productVectors: (t: string, id: string) => `${tenantPrefix(t)}:product-vectors:${id}`,
  /**
   * With the Redis Query Engine: a product's search fields (f:*: analysed text, filter and facet
   * values; store/projection.ts), apart from the document, so that a change the index does not read
   * (a rating, an image) leaves the index alone.
   */
  productSearch: (t: string, id: string) => `${tenantPrefix(t)}:product-search:${id}`,
  /**
   * With the Redis Query Engine: the term dictionary of the tenant's products, term → how many
   * products hold it in their search text, kept by every write of a search hash
   * (lua/lib/searchTerms.lua), so that a search plans its words without asking the index
   * (search/redisQuery/termDictionary.ts).
   */
  productTerms: (t: string) => `${tenantPrefix(t)}:product-terms`,
  /**
   * Sync bookkeeping of the tenant's products, kept out of their hashes so that a sync that
   * changes nothing never makes a search index over the hashes re-index them: product id → last
   * sync time, and product id → digest of the bulk item last applied (itemDigest).
   */
  productsSynced: (t: string) => `${tenantPrefix(t)}:products:synced`,
  productsItemDigests: (t: string) => `${tenantPrefix(t)}:products:item-digests`,
  products: (t: string) => `${tenantPrefix(t)}:products`,
  productsByLanguage: (t: string, language: string) => `${tenantPrefix(t)}:products:language:${language}`,
  productsByCategory: (t: string, category: string) => `${tenantPrefix(t)}:products:category:${encodeURIComponent(category)}`,
  /** external_id → translation_group_id across the tenant's sites. */
  translationGroups: (t: string) => `${tenantPrefix(t)}:products:translation-groups`,
  /** Bulk ingest jobs: status hash, per-item results (first write wins), counts, accepted items. */
  job: (t: string, id: string) => `${tenantPrefix(t)}:job:${id}`,
  /** The tenant's bulk jobs by creation time (ms), for the list of recent ones; trimmed at the jobs' TTL. */
  jobs: (t: string) => `${tenantPrefix(t)}:jobs`,
  /** A byte per item index of the request, its result (store/lua/lib/jobResults.lua); `:results`, a hash, before layout 4. */
  jobResults: (t: string, id: string) => `${tenantPrefix(t)}:job:${id}:result-codes`,
  /** The hash of item index → result of layout 3 and before (store/layoutMigration.ts). */
  jobResultsHash: (t: string, id: string) => `${tenantPrefix(t)}:job:${id}:results`,
  jobCounts: (t: string, id: string) => `${tenantPrefix(t)}:job:${id}:counts`,
  jobItems: (t: string, id: string) => `${tenantPrefix(t)}:job:${id}:items`,
  jobErrors: (t: string, id: string) => `${tenantPrefix(t)}:job:${id}:errors`,

  categories: (t: string) => `${tenantPrefix(t)}:categories`,
  category: (t: string, id: string) => `${tenantPrefix(t)}:category:${id}`,
  categoryParents: (t: string) => `${tenantPrefix(t)}:categories:parent`,
  /** Children of a category; `root` holds the top-level ones. */
  categoryChildren: (t: string, parentId: string | null) => `${tenantPrefix(t)}:category:${parentId ?? 'root'}:children`,
  /** Knowledge entries filed under a category (zset, score = created ms). */
  categoryEntries: (t: string, id: string) => `${tenantPrefix(t)}:category:${id}:entries`,

  /** A knowledge entry: hash of doc (JSON), rev (= version), texts, text_hash, embedding_status, embedding_model, v:<model>:<name>. */
  entry: (t: string, id: string) => `${tenantPrefix(t)}:entry:${id}`,
  /** Non-personal entries by visibility; personal ones by owner. Scores are created ms. */
  entriesByVisibility: (t: string, visibility: string) => `${tenantPrefix(t)}:entries:visibility:${visibility}`,
  entriesByOwner: (t: string, userId: string) => `${tenantPrefix(t)}:entries:owner:${userId}`,
  /** Non-personal entries a caller with this ceiling may read (public ⊂ community ⊂ internal ⊂ restricted). */
  entriesByCeiling: (t: string, ceiling: string) => `${tenantPrefix(t)}:entries:ceiling:${ceiling}`,
  entriesByType: (t: string, type: string) => `${tenantPrefix(t)}:entries:type:${type}`,
  entriesByProject: (t: string, projectId: string) => `${tenantPrefix(t)}:entries:project:${projectId}`,
  entriesByLayer: (t: string, layer: string) => `${tenantPrefix(t)}:entries:layer:${encodeURIComponent(layer)}`,
  /** Entries with an expiry (memory), score = expires ms. */
  entriesExpiring: (t: string) => `${tenantPrefix(t)}:entries:expiring`,
  entriesTmp: (t: string, id: string) => `${tenantPrefix(t)}:entries:tmp:${id}`,

  /** OAuth clients (zset, score = created ms) and their documents. */
  oauthClients: (t: string) => `${tenantPrefix(t)}:oauth:clients`,
  oauthClient: (t: string, clientId: string) => `${tenantPrefix(t)}:oauth:client:${clientId}`,
  /** The client_id of the console's own public OAuth client (domain/oauth/service.ts consoleClient). */
  oauthConsoleClient: (t: string) => `${tenantPrefix(t)}:oauth:console-client`,
  /** The grants (token families) of one client, score = the family's expiry ms. */
  oauthClientGrants: (t: string, clientId: string) => `${tenantPrefix(t)}:oauth:client:${clientId}:grants`,
  /** A pending authorization request, waiting for the consent page's answer (JSON, short TTL). */
  oauthRequest: (t: string, id: string) => `${tenantPrefix(t)}:oauth:request:${id}`,
  /** An authorization code by the SHA-256 of the code: hash of doc (JSON) and state (fresh|used). */
  oauthCode: (t: string, digest: string) => `${tenantPrefix(t)}:oauth:code:${digest}`,
  /** A grant (token family): JSON; its tokens are valid only while it exists. */
  oauthGrant: (t: string, id: string) => `${tenantPrefix(t)}:oauth:grant:${id}`,
  /** An access token by the SHA-256 of the token: JSON with a TTL. */
  oauthAccessToken: (t: string, digest: string) => `${tenantPrefix(t)}:oauth:at:${digest}`,
  /** A refresh token by the SHA-256 of the token: hash of doc (JSON) and state (active|rotated). */
  oauthRefreshToken: (t: string, digest: string) => `${tenantPrefix(t)}:oauth:rt:${digest}`,

  /** The tenant's documents by embedding status: `<kind>:<status>` → count (lua/lib/embeddingCounts.lua). */
  embeddingCounts: (t: string) => `${tenantPrefix(t)}:embedding:counts`,
  /** The model every embedded document of the tenant has vectors of (store/reembed.ts; absent: not known yet). */
  embeddingModel: (t: string) => `${tenantPrefix(t)}:embedding:model`,
  /** A re-embed with another model under way or finished: model, total, done, started_at, finished_at. */
  reembed: (t: string) => `${tenantPrefix(t)}:embedding:reembed`,
  /** Documents embedded per 10-second bucket, the last few minutes: the current rate (store/embeddingProgress.ts). */
  embeddingRate: (t: string) => `${tenantPrefix(t)}:embedding:rate`,

  /** Sites deleted whose products are still being purged: search leaves them out meanwhile. */
  sitesPurging: (t: string) => `${tenantPrefix(t)}:sites:purging`,
  /** A Redis Query Engine index of the tenant (`products` or `entries`, with layout version and model). */
  searchIndex: (t: string, name: string) => `${tenantPrefix(t)}:ft:${name}`,
  /** Present while a Query Engine index still owes a read of the documents stored before it (search/redisQuery/schema.ts). */
  searchIndexOwed: (t: string, name: string) => `${tenantPrefix(t)}:ft:owed:${name}`,
  /** The layout the tenant's stored data has been migrated to (store/layoutMigration.ts). */
  storedLayout: (t: string) => `${tenantPrefix(t)}:layout`,
  /** The search projection version every document of the tenant carries (absent: not projected yet). */
  searchProjection: (t: string) => `${tenantPrefix(t)}:ft:projection`,

  /** The tenant's synonym sets: hash of set id → JSON (store/synonyms.ts), and a counter bumped by every change (serve processes poll it). */
  synonyms: (t: string) => `${tenantPrefix(t)}:synonyms`,
  synonymsVersion: (t: string) => `${tenantPrefix(t)}:synonyms:version`,
  /** Entries per synonym set and their sum (store/versionedDocs.ts: the entries cap). */
  synonymWeights: (t: string) => `${tenantPrefix(t)}:synonyms:weights`,
  /** The tenant's search rules (store/searchRules.ts), kept as the synonym sets are. */
  searchRules: (t: string) => `${tenantPrefix(t)}:search-rules`,
  searchRulesVersion: (t: string) => `${tenantPrefix(t)}:search-rules:version`,
  searchRuleWeights: (t: string) => `${tenantPrefix(t)}:search-rules:weights`,

  /**
   * Search analytics of one UTC day (YYYY-MM-DD) and bucket (a site id, `_` for searches without a
   * site, `*` for every search of the tenant), expiring after the tenant's retention
   * (store/searchAnalytics.ts): counts (hash), the queries by searches, their hit sums, and the
   * queries without results by searches (zsets trimmed to the most searched).
   */
  searchStats: (t: string, bucket: string, day: string) => `${tenantPrefix(t)}:search-analytics:${day}:${bucket}:stats`,
  searchQueries: (t: string, bucket: string, day: string) => `${tenantPrefix(t)}:search-analytics:${day}:${bucket}:queries`,
  searchHitSums: (t: string, bucket: string, day: string) => `${tenantPrefix(t)}:search-analytics:${day}:${bucket}:hit-sums`,
  searchNoResults: (t: string, bucket: string, day: string) => `${tenantPrefix(t)}:search-analytics:${day}:${bucket}:no-results`,
  /**
   * Per day and bucket, for suggestions: the distinct searchers of each query (zset, at most the
   * tenant's suggestion_min_searches a day), and query → the 8-byte records (two 4-byte keyed tags:
   * key and address, user_token) of the searchers counted (hash; lua/countSearches-6.lua).
   */
  searchSearchers: (t: string, bucket: string, day: string) => `${tenantPrefix(t)}:search-analytics:${day}:${bucket}:searchers`,
  searchSearcherTags: (t: string, bucket: string, day: string) => `${tenantPrefix(t)}:search-analytics:${day}:${bucket}:searcher-tags`,
  /**
   * An event id counted in the last 24 h; and per search (query_id) a hash of what its events
   * counted (48 h): `click`, `conversion` (the search clicked, converted) and `click:<product id>`,
   * `conversion:<product id>` (each product once).
   */
  searchEvent: (t: string, eventId: string) => `${tenantPrefix(t)}:search-analytics:event:${eventId}`,
  searchQueryEvents: (t: string, queryId: string) => `${tenantPrefix(t)}:search-analytics:query:${queryId}`,
  /** Queries never suggested (zset, score = blocked at ms; store/searchAnalytics.ts). */
  suggestionsBlocked: (t: string) => `${tenantPrefix(t)}:search-analytics:blocked`,
  /** Scratch space of one report (a union of days), deleted by the script that made it. */
  searchAnalyticsTmp: (t: string, id: string) => `${tenantPrefix(t)}:search-analytics:tmp:${id}`,

  /** The tenant's audit log, the events of one entity type, and the recent events of one entity (store/audit.ts). */
  audit: (t: string) => `${tenantPrefix(t)}:audit`,
  auditOfType: (t: string, entityType: string) => `${tenantPrefix(t)}:audit:type:${entityType}`,
  auditOf: (t: string, id: string) => `${tenantPrefix(t)}:audit:entity:${id}`,
};

/** Content-addressed embedding cache: model + text → vector (shared by tenants: same text, same vector). */
export const embeddingCacheKey = (model: string, textHash: string) => `kcs:emb:${model}:${textHash}`;

/**
 * The marker written before each WAIT (store/replicaAck.ts), in the slot of `key` (its `{…}` hash
 * tag): it only moves the master's replication offset, and expires.
 */
export const replicaAckMarkerKey = (key: string) => `kcs:${/\{[^}]+\}/.exec(key)?.[0] ?? `{${key}}`}:replica-ack`;

/** Upper bound of a change stream (approximate trimming). */
export const CHANGE_STREAM_MAXLEN = 100_000;
