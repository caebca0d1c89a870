// The Lua scripts of store/lua as typed commands: each named `<command>-<number of keys>.lua`,
// its keys and arguments named in the order the script reads them (its header comment tells what
// each is for), its return codes an enum; or `<command>.lua`, called with its key count first,
// its arguments laid out by its builder in store/scriptCalls.ts. Defined on every connection by
// connectRedis (store/redis.ts).
import type { AuditArgs, AuditKeys } from './audit.js';
import type { ScriptCall } from './scriptCalls.js';

type Key = string;
type Flag = '1' | '0';

/** createSite-8, updateSite-6, deleteSite-9, createCategory-9, updateCategory-9, deleteCategory-10, createUser-6, deleteAudited-5, deleteEntry, deleteProduct-16. */
export enum WriteResult {
  Done = 1,
  Missing = 0,
  /** A slug, e-mail address or parent that the write needs is taken or gone. */
  Refused = -1,
  /** The document changed since it was read: read again and retry. */
  Changed = -2,
  /** updateCategory: the move would put the category below itself. */
  Cycle = -3,
  /** deleteCategory: knowledge entries are filed under it. */
  HasEntries = -4,
}

/** oauthExchangeCode-7, oauthRotateRefresh-6, oauthIssueToken-4. */
export enum GrantResult {
  Issued = 1,
  /** Unknown, expired or revoked (the code's approving API key included). */
  Unknown = 0,
  /** Presented before: the grant issued from it is revoked. */
  Reused = -1,
  ClientGone = -2,
}

/** storeVectors-7, markEmbeddingFailed-2. */
export enum VectorsResult {
  Stored = 1,
  /** The texts changed since (or the document is gone): newer vectors are on their way. */
  Stale = 0,
}

/** Per product of writeProducts, each with a detail: the new rev, the owner id, '', the group. */
export enum ProductWriteResult {
  Written = 1,
  /** Another product of the site holds the external_id (detail: its id). */
  ExternalIdTaken = -1,
  /** Changed meanwhile, or exists on create. */
  Changed = -2,
  /** The external_id belongs to another translation group (detail: that group). */
  TranslationGroupDiffers = -3,
}

/** Per product of touchProducts. */
export enum TouchResult {
  Touched = 1,
  /** Its revision is not the expected one. */
  Changed = 0,
  /** Its bulk item has a result already. */
  Counted = 2,
}

/** Per item of settleItems, each with the id its external_id names, or (New) the external_id's translation group ('' = none). */
export enum SettleResult {
  /** Sent exactly as last applied: its sync time recorded, its job item counted. */
  Unchanged = 1,
  /** Left to the full upsert. */
  Unsettled = 0,
  /** Its bulk item has a result already. */
  Counted = 2,
  /** Its external_id names no product: left to the full upsert, which creates one. */
  New = 3,
}

export interface ScriptCommands {
  createSite(
    ...call: [site: Key, sites: Key, slugs: Key, defaultSite: Key, changes: Key, ...audit: AuditKeys,
      id: string, slug: string, json: string, createdMs: number, makeDefault: Flag, maxlen: number, ...event: AuditArgs]
  ): Promise<WriteResult.Done | WriteResult.Refused>;
  updateSite(
    ...call: [site: Key, defaultSite: Key, changes: Key, ...audit: AuditKeys,
      id: string, expectedJson: string, json: string, makeDefault: Flag, maxlen: number, ...event: AuditArgs]
  ): Promise<WriteResult.Done | WriteResult.Missing | WriteResult.Changed>;
  deleteSite(
    ...call: [site: Key, sites: Key, slugs: Key, defaultSite: Key, changes: Key, purging: Key, ...audit: AuditKeys,
      id: string, slug: string, maxlen: number, ...event: AuditArgs]
  ): Promise<WriteResult.Done | WriteResult.Missing>;
  createCategory(
    ...call: [category: Key, categories: Key, parents: Key, parent: Key, parentChildren: Key, changes: Key, ...audit: AuditKeys,
      id: string, json: string, createdMs: number, parentId: string, maxlen: number, ...event: AuditArgs]
  ): Promise<WriteResult.Done | WriteResult.Refused>;
  updateCategory(
    ...call: [category: Key, parents: Key, oldParentChildren: Key, newParentChildren: Key, newParent: Key, changes: Key, ...audit: AuditKeys,
      id: string, expectedJson: string, json: string, parentId: string, maxlen: number, ...event: AuditArgs]
  ): Promise<WriteResult>;
  deleteCategory(
    ...call: [category: Key, categories: Key, parents: Key, children: Key, parentChildren: Key, entries: Key, changes: Key, ...audit: AuditKeys,
      id: string, expectedJson: string, maxlen: number, ...event: AuditArgs]
  ): Promise<WriteResult>;
  createUser(
    ...call: [user: Key, users: Key, emails: Key, ...audit: AuditKeys, id: string, email: string, json: string, createdMs: number, ...event: AuditArgs]
  ): Promise<WriteResult.Done | WriteResult.Refused>;
  deleteAudited(...call: [doc: Key, index: Key, ...audit: AuditKeys, id: string, ...event: AuditArgs]): Promise<WriteResult.Done | WriteResult.Missing>;
  appendAudit(...call: [...audit: AuditKeys, ...event: AuditArgs]): Promise<string>;
  /** 1 created, 2 replaced, -1 too many documents, -2 too much weight. */
  putVersionedDoc(
    ...call: [docs: Key, version: Key, weights: Key, ...audit: AuditKeys, id: string, json: string, maxDocs: number, weight: number | '', maxWeight: number | '',
      ...event: AuditArgs]
  ): Promise<1 | 2 | -1 | -2>;
  /** 1 added, -1 too many documents, -2 too much weight. */
  addVersionedDocs(
    ...call: [docs: Key, version: Key, weights: Key, ...audit: AuditKeys, maxDocs: number, maxWeight: number | '', n: number, ...rows: (string | number)[]]
  ): Promise<1 | -1 | -2>;
  /** 1 swapped, 0 changed meanwhile, -1 too many documents, -2 too much weight. */
  swapVersionedDocs(
    ...call: [docs: Key, version: Key, weights: Key, stagedDocs: Key, stagedWeights: Key, ...audit: AuditKeys, expectedVersion: number, maxDocs: number,
      weight: number | '', maxWeight: number | '', ...event: AuditArgs]
  ): Promise<1 | 0 | -1 | -2>;
  deleteVersionedDoc(...call: [docs: Key, version: Key, weights: Key, ...audit: AuditKeys, id: string, ...event: AuditArgs]): Promise<WriteResult.Done | WriteResult.Missing>;
  /** 1 forgotten, 0 another id is recorded. */
  forgetConsoleClient(key: Key, expected: string): Promise<0 | 1>;
  /** 0: a token was taken; else the milliseconds until one is. */
  takeToken(bucket: Key, ratePerSecond: number): Promise<number>;
  /** Per product two values: a ProductWriteResult and its detail. */
  writeProducts(...call: ScriptCall): Promise<string[]>;
  touchProducts(...call: ScriptCall): Promise<TouchResult[]>;
  /** Per item two values: a SettleResult and the id its external_id names (New: its translation group). */
  settleItems(
    ...call: [externalIds: Key, synced: Key, itemDigests: Key, jobResults: Key, jobCounts: Key, translationGroups: Key, syncedAt: string,
      ...items: (string | number)[]]
  ): Promise<string[]>;
  deleteProduct(
    ...call: [product: Key, externalIds: Key, products: Key, siteProducts: Key, language: Key, category: Key, changes: Key,
      synced: Key, itemDigests: Key, ...audit: AuditKeys, embeddingCounts: Key, search: Key, vectors: Key, terms: Key, id: string, externalId: string, hasCategory: Flag,
      maxlen: number, audited: Flag, ...event: AuditArgs]
  ): Promise<WriteResult.Done | WriteResult.Missing>;
  storeVectors(
    ...call: [doc: Key, changes: Key, embeddingCounts: Key, embeddingRate: Key, tenantModel: Key, vectors: Key, search: Key, textHash: string, model: string, kind: 'product' | 'entry',
      id: string, maxlen: number, rateBucket: number, expiredBucket: number, ...fieldValues: (string | Buffer)[]]
  ): Promise<VectorsResult>;
  markEmbeddingFailed(doc: Key, embeddingCounts: Key, textHash: string, kind: 'product' | 'entry'): Promise<VectorsResult>;
  /** 1: moved; 0: the document has another status now (or is gone). */
  moveEmbeddingStatus(doc: Key, embeddingCounts: Key, kind: 'product' | 'entry', from: string, to: string): Promise<0 | 1>;
  /** 1: counted as failed; 0: the item has a result already. */
  failJobItem(results: Key, counts: Key, errors: Key, index: number, errorJson: string): Promise<0 | 1>;
  /** 0: another model's re-embed runs now; 1: counted; 2: counted and finished. */
  reembedProgress(reembed: Key, model: Key, changes: Key, modelId: string, done: number, maxlen: number, nowIso: string): Promise<0 | 1 | 2>;
  /** [Done, version] written, [Refused] category missing, [Changed] changed meanwhile (or exists on create). */
  writeEntry(...call: ScriptCall): Promise<[WriteResult.Done, number] | [WriteResult.Refused | WriteResult.Changed]>;
  deleteEntry(...call: ScriptCall): Promise<WriteResult.Done | WriteResult.Missing | WriteResult.Changed>;
  /** [total, ...ids]. */
  pageEntries(...call: ScriptCall): Promise<(number | string)[]>;
  /** The number of documents projected. */
  projectDocuments(...call: ScriptCall): Promise<number>;
  /** The number of products whose search fields were written. */
  projectProducts(...call: ScriptCall): Promise<number>;
  /** The number of products whose vectors moved. */
  moveVectors(...call: ScriptCall): Promise<number>;
  /** The number of vectors replaced and of hashes dropped. */
  replaceVectors(...call: ScriptCall): Promise<number>;
  /** The number of hashes changed. */
  renameFields(...call: ScriptCall): Promise<number>;
  /** The number of hashes written again. */
  reindexDocuments(...call: ScriptCall): Promise<number>;
  /** The number of hashes changed; -1: not now (another model is the tenant's, or a re-embed runs). */
  dropStaleVectors(...call: ScriptCall): Promise<number>;
  readHashes(...call: ScriptCall): Promise<(string | null)[]>;
  /** Per product 4 values: doc (null: missing), parent_external_id, embedding_status, synced (lua/productTexts.lua). */
  productTexts(...call: ScriptCall): Promise<(string | null)[]>;
  readHashesBuffer(...call: ScriptCall): Promise<(Buffer | null)[]>;
  oauthExchangeCode(
    ...call: [code: Key, client: Key, grant: Key, access: Key, refresh: Key, clientGrants: Key, approvingKey: Key,
      grantId: string, grantJson: string, accessJson: string, refreshJson: string, accessTtlMs: number, grantTtlMs: number,
      usedCodeTtlMs: number, nowMs: number]
  ): Promise<GrantResult>;
  oauthRotateRefresh(
    ...call: [presented: Key, grant: Key, refresh: Key, access: Key, client: Key, clientGrants: Key,
      grantId: string, refreshJson: string, accessJson: string, accessTtlMs: number, refreshTtlMs: number, nowMs: number]
  ): Promise<GrantResult>;
  oauthIssueToken(
    ...call: [client: Key, grant: Key, access: Key, clientGrants: Key, grantId: string, grantJson: string, accessJson: string,
      accessTtlMs: number, nowMs: number]
  ): Promise<GrantResult.Issued | GrantResult.ClientGone>;
  /** The number of queries trimmed away. */
  countSearches(
    ...call: [stats: Key, queries: Key, noResults: Key, hitSums: Key, searchers: Key, searcherTags: Key, expireAt: number, searches: number,
      noResultSearches: number, keep: number, trimAt: number, searcherTagsExpireAt: number, maxSearchers: number, ...tally: (string | number | Buffer)[]]
  ): Promise<number>;
  /** [accepted, duplicates], or [-1, ...the 0-based indexes of the events whose product is unknown] (nothing counted). */
  searchEvents(...call: ScriptCall): Promise<number[]>;
  /** Per query its searches (and hit sum, when asked), as text. */
  topQueries(...call: ScriptCall): Promise<string[]>;
  /** Per query its searches and hit sum, as text. */
  suggestionCandidates(...call: ScriptCall): Promise<string[]>;
  /** 1 blocked now, 2 blocked before, -1 the tenant's list is full. */
  blockSuggestion(...call: [blocked: Key, ...audit: AuditKeys, query: string, nowMs: number, max: number, ...event: AuditArgs]): Promise<1 | 2 | -1>;
  /** 1 unblocked, 0 not blocked. */
  unblockSuggestion(...call: [blocked: Key, ...audit: AuditKeys, query: string, ...event: AuditArgs]): Promise<0 | 1>;
}
