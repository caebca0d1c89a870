// The scripts called with a key count (their keys vary per call): one builder each, taking the
// keys and arguments by name and laying them out in the order the script reads them (its header
// comment in store/lua tells what each is for). Their commands in ScriptCommands take only what
// these builders return.
import { createHash } from 'node:crypto';
import type { AuditArgs, AuditKeys } from './audit.js';
import { packRows, utf8Slices, type PackedValue } from './packedRows.js';
import type { ProductSearchFields } from './searchFields.js';

type Key = string;
type Flag = '1' | '0';
type Value = PackedValue;

/** The arguments of one script called with a key count, as its builder laid them out. */
export type ScriptCall = [numberOfKeys: number, ...keysThenArgs: Value[]];

const call = (callKeys: Key[], args: Value[]): ScriptCall => [callKeys.length, ...callKeys, ...args];

/**
 * One product of a writeProducts call. A `…Ref` is the 1-based position of a key in the call's
 * key table (0: none).
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
  /** The search fields of its search hash and vector hash, and the term dictionary they count in (null: none, the built-in engine serves). */
  searchFields: { searchRef: number; vectorsRef: number; termsRef: number; fields: ProductSearchFields } | null;
}

export interface WriteProductsCall {
  /** changes, translation groups, products, site products, site external ids, synced, item digests, embedding counts[, job results, job counts], then what rows refer to. */
  keyTable: Key[];
  maxlen: number;
  syncedAt: string;
  hasJob: boolean;
  /** The event of a single write (a call of one product): the position of its three keys in keyTable. */
  audit: { ref: number; event: AuditArgs } | null;
  rows: WriteProductsRow[];
}

// The rows of the calls below are appended with push, not flatMap: V8's flatMap (and flat) copy
// through a generic path, ~100 ns an element. They travel as one argument (store/packedRows.ts).
export function writeProductsCall(c: WriteProductsCall): ScriptCall {
  const values: PackedValue[] = [];
  const docs: string[] = [];
  for (const r of c.rows) {
    values.push(
      r.productRef, r.id, r.expectedRev, r.externalId, r.previousExternalId, r.claimGroup, r.createdMs, r.joinLanguageRef,
      r.joinCategoryRef, r.leaveRefs.join(','), r.jobIndex, r.parentExternalId, r.embeddingStatus, r.textHash,
      r.textSourcesJson, r.itemDigest,
    );
    const f = r.searchFields;
    if (f) {
      values.push(f.searchRef, f.vectorsRef, fieldsDigest(f.fields.search), fieldsDigest(f.fields.vectors), f.fields.search.length / 2, f.fields.vectors.length / 2, f.termsRef);
      for (const value of f.fields.search) values.push(value);
      for (const value of f.fields.vectors) values.push(value);
    } else {
      values.push(0, 0, '', '', 0, 0, 0);
    }
    docs.push(r.docJson);
  }
  // Each doc an argument of its own, after the rows (lua/writeProducts.lua says why).
  const args: Value[] = [c.maxlen, c.syncedAt, c.hasJob ? '1' : '0', c.audit?.ref ?? 0, ...(c.audit?.event ?? []), packRows(values)];
  for (const doc of utf8Slices(docs)) args.push(doc);
  return call(c.keyTable, args);
}

/** One product of a touchProducts call: touched only while its revision still is `expectedRev`. */
export interface TouchProductsRow {
  productRef: number;
  id: string;
  expectedRev: string;
  /** The item digest to store ('' = leave as is). */
  itemDigest: string;
  jobIndex: number | '';
}

export interface TouchProductsCall {
  /** synced, item digests[, job results, job counts], then the product hashes rows refer to. */
  keyTable: Key[];
  syncedAt: string;
  hasJob: boolean;
  rows: TouchProductsRow[];
}

export function touchProductsCall(c: TouchProductsCall): ScriptCall {
  const values: PackedValue[] = [];
  for (const r of c.rows) values.push(r.productRef, r.id, r.expectedRev, r.itemDigest, r.jobIndex);
  return call(c.keyTable, [c.syncedAt, c.hasJob ? '1' : '0', packRows(values)]);
}

export interface WriteEntryCall {
  entry: Key;
  changes: Key;
  audit: AuditKeys;
  expiring: Key;
  category: Key;
  embeddingCounts: Key;
  /** Index sets the entry leaves, then those it joins. */
  leave: Key[];
  join: Key[];
  id: string;
  /** '' = create. */
  expectedRev: string;
  createdMs: number;
  /** '' = never. */
  expiresMs: number | '';
  maxlen: number;
  event: AuditArgs;
  /** Field/value pairs (an empty value removes the field). */
  fields: string[];
}

export const writeEntryCall = (c: WriteEntryCall): ScriptCall =>
  call([c.entry, c.changes, ...c.audit, c.expiring, c.category, c.embeddingCounts, ...c.leave, ...c.join], [
    c.id, c.expectedRev, c.createdMs, c.leave.length, c.expiresMs, c.maxlen, ...c.event, ...c.fields,
  ]);

export interface DeleteEntryCall {
  entry: Key;
  changes: Key;
  audit: AuditKeys;
  embeddingCounts: Key;
  expiring: Key;
  /** Every index set holding the entry. */
  indexes: Key[];
  id: string;
  expectedRev: string;
  maxlen: number;
  event: AuditArgs;
}

export const deleteEntryCall = (c: DeleteEntryCall): ScriptCall =>
  call([c.entry, c.changes, ...c.audit, c.embeddingCounts, c.expiring, ...c.indexes], [c.id, c.expectedRev, c.maxlen, ...c.event]);

export interface PageEntriesCall {
  /** The caller's shared set: a ceiling's, or one visibility's. */
  base: Key;
  /** The caller's personal set (or base again: none). */
  personal: Key;
  expiring: Key;
  scratch: Key;
  /** Sets every entry of the page must be in. */
  filters: Key[];
  nowMs: number;
  includeExpired: Flag;
  offset: number;
  limit: number;
  /** '1': the page holds the personal set's entries too. */
  addPersonal: Flag;
}

export const pageEntriesCall = (c: PageEntriesCall): ScriptCall =>
  call([c.base, c.personal, c.expiring, c.scratch, ...c.filters], [c.nowMs, c.includeExpired, c.offset, c.limit, c.addPersonal]);

export interface ProjectDocumentsCall {
  /** The hash field holding the projection version, and the version. */
  versionField: string;
  version: string;
  documents: { hash: Key; expectedRev: string; fields: string[] }[];
}

/** What a hash of search fields keeps of the values written last (lua/lib/searchFields.lua). */
export const fieldsDigest = (pairs: readonly string[]): string => createHash('sha1').update(pairs.join('\u0000')).digest('base64url').slice(0, 16);

export interface ProjectProductsCall {
  /** Each product with the term dictionary its search text counts in (keys.productTerms). */
  products: { hash: Key; search: Key; vectors: Key; terms: Key; expectedRev: string; fields: ProductSearchFields }[];
}

export function projectProductsCall(c: ProjectProductsCall): ScriptCall {
  const args: Value[] = [];
  for (const p of c.products) {
    args.push(p.expectedRev, fieldsDigest(p.fields.search), fieldsDigest(p.fields.vectors), p.fields.search.length / 2, p.fields.vectors.length / 2);
    for (const value of p.fields.search) args.push(value);
    for (const value of p.fields.vectors) args.push(value);
  }
  return call(c.products.flatMap((p) => [p.hash, p.search, p.vectors, p.terms]), args);
}

export const projectDocumentsCall = (c: ProjectDocumentsCall): ScriptCall =>
  call(c.documents.map((d) => d.hash), [c.versionField, c.version, ...c.documents.flatMap((d) => [d.expectedRev, d.fields.length / 2, ...d.fields])]);

export const readHashesCall = (hashes: Key[], fields: readonly string[]): ScriptCall => call(hashes, [...fields]);

/** productTexts: the tenant's sync times, then each product's hash; its ids as arguments. */
export const productTextsCall = (synced: Key, products: Key[], ids: string[]): ScriptCall => call([synced, ...products], ids);

/** `field`: the one written again (an indexed one: a server with FILTER_COMMANDS on re-indexes only for those). */
export const reindexDocumentsCall = (hashes: Key[], field: string): ScriptCall => call(hashes, [field]);

/** Pairs of a product hash and its vector hash. */
export const moveVectorsCall = (pairs: { product: Key; vectors: Key }[]): ScriptCall => call(pairs.flatMap((p) => [p.product, p.vectors]), []);

/** Per hash, its vectors: the field, the value read, the value to write where it is still the one read; `dropEmpty`: the hash goes if it holds none. */
export const replaceVectorsCall = (hashes: { hash: Key; dropEmpty: boolean; vectors: { field: string; read: Buffer; value: Buffer }[] }[]): ScriptCall =>
  call(hashes.map((h) => h.hash), hashes.flatMap((h) => [h.dropEmpty ? '1' : '0', h.vectors.length, ...h.vectors.flatMap((v) => [v.field, v.read, v.value])]));

export const renameFieldsCall = (hashes: Key[], renames: readonly (readonly [from: string, to: string])[]): ScriptCall =>
  call(hashes, renames.flat());

export interface DropStaleVectorsCall {
  embeddingModel: Key;
  reembed: Key;
  hashes: Key[];
  model: string;
  keepFields: readonly string[];
}

export const dropStaleVectorsCall = (c: DropStaleVectorsCall): ScriptCall => call([c.embeddingModel, c.reembed, ...c.hashes], [c.model, ...c.keepFields]);

/** One event of a searchEvents call: positions (1-based) of its keys in the call's key table. */
export interface SearchEventRow {
  eventRef: number;
  siteStatsRef: number;
  allStatsRef: number;
  /** The hash of what its search's events counted. */
  searchRef: number;
  /** The zset of product ids its product must be in (the search's site's, or the tenant's). */
  productsRef: number;
  type: 'click' | 'conversion';
  productId: string;
  position: number | '';
}

export interface SearchEventsCall {
  /** The stats hashes, the event id keys, the searches' hashes and the product zsets the rows refer to. */
  keyTable: Key[];
  eventTtlS: number;
  searchTtlS: number;
  /** The stats hashes among the keys, with their expiry (unix seconds). */
  stats: { ref: number; expireAt: number }[];
  rows: SearchEventRow[];
}

export function searchEventsCall(c: SearchEventsCall): ScriptCall {
  const args: Value[] = [c.eventTtlS, c.searchTtlS, c.stats.length];
  for (const s of c.stats) args.push(s.ref, s.expireAt);
  for (const r of c.rows) args.push(r.eventRef, r.siteStatsRef, r.allStatsRef, r.searchRef, r.productsRef, r.type, r.productId, r.position);
  return call(c.keyTable, args);
}

/** topQueries: the union of the days' zsets (and of their hit sums, when given) in two scratch keys. */
export const topQueriesCall = (
  c: { scratch: [Key, Key]; counts: Key[]; hitSums: Key[] | null; limit: number; minCount: number },
): ScriptCall => call([...c.scratch, ...c.counts, ...(c.hitSums ?? [])], [c.counts.length, c.limit, c.minCount, c.hitSums ? '1' : '0']);

/** suggestionCandidates: per day (the same days in each list) its distinct searchers, searches and hit sums, unions in two scratch keys. */
export const suggestionCandidatesCall = (
  c: { scratch: [Key, Key]; blocked: Key; searchers: Key[]; counts: Key[]; hitSums: Key[]; limit: number; minSearchers: number },
): ScriptCall => call([...c.scratch, c.blocked, ...c.searchers, ...c.counts, ...c.hitSums], [c.counts.length, c.limit, c.minSearchers]);
