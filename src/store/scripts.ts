// The Lua scripts of store/lua as typed commands: each named `<command>-<number of keys>.lua`
// (or `<command>.lua`, called with its key count first), its keys and arguments named in the
// order the script reads them (its header comment tells what each is for), its return codes an
// enum. Defined on every connection by connectRedis (store/redis.ts).
import type { AuditArgs, AuditKeys } from './audit.js';

type Key = string;
type Flag = '1' | '0';

/** createSite-8, updateSite-6, deleteSite-9, createCategory-9, updateCategory-9, deleteCategory-10, createUser-6, deleteAudited-5, deleteEntry, deleteProduct-12. */
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

/** storeVectors-2. */
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
  /** Its revision or item digest is not the expected one. */
  Changed = 0,
  /** Its bulk item has a result already. */
  Counted = 2,
}

/**
 * One product of a writeProducts call, named; `writeProductsRow` lays it out in the order the
 * script reads its 17 values, then the search projection's field/value pairs. A `…Ref` is the
 * 1-based position of a key in the call's KEYS (0: none).
 */
export interface WriteProductsRow {
  productRef: number;
  id: string;
  /** '' = create. */
  expectedRev: string;
  externalId: string;
  previousExternalId: string;
  /** The translation group a new product claims for its external_id ('' = none). */
  claimGroup: string;
  createdMs: number;
  joinLanguageRef: number;
  joinCategoryRef: number;
  leaveRefs: number[];
  /** Its item index in the bulk job ('' = no job). */
  jobIndex: number | '';
  docJson: string;
  parentExternalId: string;
  embeddingStatus: string;
  /** '' = the texts did not change (text hash and sources stay as stored). */
  textHash: string;
  textSourcesJson: string;
  /** Digest of the bulk item applied ('' = none). */
  itemDigest: string;
  /** Search projection field/value pairs (an empty value removes the field). */
  projection: string[];
}

export const writeProductsRow = (r: WriteProductsRow): (string | number)[] => [
  r.productRef, r.id, r.expectedRev, r.externalId, r.previousExternalId, r.claimGroup, r.createdMs, r.joinLanguageRef,
  r.joinCategoryRef, r.leaveRefs.join(','), r.jobIndex, r.docJson, r.parentExternalId, r.embeddingStatus, r.textHash,
  r.textSourcesJson, r.itemDigest, r.projection.length / 2, ...r.projection,
];

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
  /** 0: a token was taken; else the milliseconds until one is. */
  takeToken(bucket: Key, ratePerSecond: number): Promise<number>;
  /** Per product two values: a ProductWriteResult and its detail. */
  writeProducts(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<(ProductWriteResult | string)[]>;
  touchProducts(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<TouchResult[]>;
  deleteProduct(
    ...call: [product: Key, externalIds: Key, products: Key, siteProducts: Key, language: Key, category: Key, changes: Key,
      synced: Key, itemDigests: Key, ...audit: AuditKeys, id: string, externalId: string, hasCategory: Flag, maxlen: number,
      audited: Flag, ...event: AuditArgs]
  ): Promise<WriteResult.Done | WriteResult.Missing>;
  storeVectors(
    ...call: [doc: Key, changes: Key, thash: string, model: string, kind: 'product' | 'entry', id: string, maxlen: number,
      ...fieldValues: (string | Buffer)[]]
  ): Promise<VectorsResult>;
  /** [Done, version] written, [Refused] category missing, [Changed] changed meanwhile (or exists on create). */
  writeEntry(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<[WriteResult.Done, number] | [WriteResult.Refused | WriteResult.Changed]>;
  deleteEntry(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<WriteResult.Done | WriteResult.Missing | WriteResult.Changed>;
  /** [total, ...ids]. */
  pageEntries(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<(number | string)[]>;
  /** The number of documents projected. */
  projectDocuments(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<number>;
  readHashes(numberOfKeys: number, ...keysThenFields: string[]): Promise<(string | null)[]>;
  readHashesBuffer(numberOfKeys: number, ...keysThenFields: string[]): Promise<(Buffer | null)[]>;
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
}
