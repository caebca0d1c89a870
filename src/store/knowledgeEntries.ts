// Knowledge entries in Redis: a hash per entry, list indexes per filter dimension, an expiry
// index, with an audit event per write (store/audit.ts); pages for any filter combination come from one MULTI.
import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { EmbeddingStatus } from '../schemas/common.js';
import type { Entry } from '../schemas/knowledgeEntries.js';
import { auditArgs, auditKeys, type AuditActor } from './audit.js';
import { CHANGE_STREAM_MAXLEN, keys } from './keys.js';
import { embeddingStatusOf } from './docs.js';
import { readHashes, scanKeys, type Store } from './redis.js';
import { deleteEntryCall, pageEntriesCall, writeEntryCall } from './scriptCalls.js';
import { WriteResult } from './scripts.js';

/** An entry's stored fields: the response less what is kept beside the document (version, embedding). */
export type StoredEntry = Omit<Static<typeof Entry>, 'version' | 'embedding_model' | 'embedding_status'>;

/** What an entry write needs of the search projection (store/projection.ts): the fields written with the document. */
export interface EntryProjection {
  entry(doc: StoredEntry): string[];
}

export interface EntryRecord {
  doc: StoredEntry;
  version: number;
  embeddingStatus: EmbeddingStatus;
  embeddingModel: string | null;
  textHash: string;
}

export interface EntryTexts {
  content: string;
  anchor: string | null;
}

/** One write of an entry (EntryRepository.write). */
export interface EntryWrite {
  tenantId: string;
  doc: StoredEntry;
  /** The version the write replaces; null: a create. */
  previous: EntryRecord | null;
  texts: EntryTexts;
  /** Hash of the texts: a new one stores the texts and `embeddingStatus` with the document. */
  textHash: string;
  embeddingStatus: EmbeddingStatus;
  actor: AuditActor;
}

/** Ceiling levels in order; workspace entries rank as internal. */
const CEILINGS = ['public', 'community', 'internal', 'restricted'] as const;
const ceilingRank = (visibility: string) => CEILINGS.indexOf((visibility === 'workspace' ? 'internal' : visibility) as (typeof CEILINGS)[number]);

/**
 * The list indexes an entry belongs to. A shared entry is in its visibility's set and in the set
 * of every ceiling that may read it, so a list reads one set per caller ceiling.
 */
function indexKeys(t: string, doc: StoredEntry): string[] {
  const visibility =
    doc.visibility === 'personal'
      ? [keys.entriesByOwner(t, doc.created_by_user_id ?? 'none')]
      : [keys.entriesByVisibility(t, doc.visibility), ...CEILINGS.slice(ceilingRank(doc.visibility)).map((c) => keys.entriesByCeiling(t, c))];
  return [
    ...visibility,
    keys.entriesByType(t, doc.type),
    keys.categoryEntries(t, doc.category_id),
    ...(doc.layer !== null ? [keys.entriesByLayer(t, doc.layer)] : []),
    ...(doc.project_ids ?? []).map((p) => keys.entriesByProject(t, p)),
  ];
}

export const expiresAtMs = (doc: StoredEntry): number | null => {
  const at = doc.type === 'memory' ? doc.metadata.expires_at : null;
  return typeof at === 'string' ? Date.parse(at) : null;
};

const RECORD_FIELDS = ['doc', 'rev', 'embedding_status', 'embedding_model', 'text_hash'] as const;
function toRecord(values: (string | null)[]): EntryRecord | null {
  const [doc, rev, embeddingStatus, embeddingModel, textHash] = values;
  if (doc === null || rev === null) return null;
  return { doc: JSON.parse(doc) as StoredEntry, version: Number(rev), embeddingStatus: embeddingStatusOf(embeddingStatus), embeddingModel: embeddingModel || null, textHash: textHash ?? '' };
}

/** Every entry of a tenant: the shared ones (all sit in the restricted ceiling set) and each owner's personal ones. */
export async function allEntryIds(redis: Store, tenantId: string): Promise<string[]> {
  const ids = new Set(await redis.zrange(keys.entriesByCeiling(tenantId, 'restricted'), '0', '-1'));
  for (const key of await scanKeys(redis, keys.entriesByOwner(tenantId, '*'))) {
    for (const id of await redis.zrange(key, '0', '-1')) ids.add(id);
  }
  return [...ids];
}

/** What a list may contain: one visibility set (a ceiling, or a single visibility), the caller's
 * own personal entries, filters, expiry. */
export interface EntryPageQuery {
  /** 'ceiling': everything up to that level; 'visibility': that one visibility; null: none shared. */
  shared: { kind: 'ceiling' | 'visibility'; name: string } | null;
  /** Include the personal entries of this user. */
  ownerId: string | null;
  type?: string;
  categoryId?: string;
  projectId?: string;
  layer?: string;
  includeExpired: boolean;
  offset: number;
  limit: number;
}

export type { AuditActor };

export class EntryRepository {
  constructor(
    private readonly redis: Store,
    /** Search fields written with each entry (the Redis Query Engine's); null: none. */
    private readonly projection: EntryProjection | null = null,
  ) {}

  async get(tenantId: string, id: string): Promise<EntryRecord | null> {
    return toRecord(await this.redis.hmget(keys.entry(tenantId, id), ...RECORD_FIELDS));
  }

  async getMany(tenantId: string, ids: string[]): Promise<(EntryRecord | null)[]> {
    return (await readHashes(this.redis, ids.map((id) => keys.entry(tenantId, id)), RECORD_FIELDS)).map(toRecord);
  }

  /** Writes when the entry is still at `previous` (null: create). 'stale' means retry; 'no_category' a 422. */
  async write(write: EntryWrite): Promise<{ kind: 'ok'; version: number } | { kind: 'stale' | 'no_category' }> {
    const { tenantId: t, doc, previous, texts, textHash, embeddingStatus, actor } = write;
    const leave = previous ? indexKeys(t, previous.doc) : [];
    const join = indexKeys(t, doc);
    const expires = expiresAtMs(doc);
    const textFields = !previous || previous.textHash !== textHash ? ['texts', JSON.stringify(texts), 'text_hash', textHash, 'embedding_status', embeddingStatus] : [];
    const [code, version] = await this.redis.writeEntry(...writeEntryCall({
      entry: keys.entry(t, doc.id), changes: keys.changes(t), audit: auditKeys(t, 'knowledge_entry', doc.id),
      expiring: keys.entriesExpiring(t), category: keys.category(t, doc.category_id), embeddingCounts: keys.embeddingCounts(t), leave, join,
      id: doc.id, expectedRev: previous ? String(previous.version) : '', createdMs: Date.parse(doc.created_at),
      expiresMs: expires ?? '', maxlen: CHANGE_STREAM_MAXLEN,
      event: auditArgs(actor, { action: previous ? 'update' : 'create', entityType: 'knowledge_entry', entityId: doc.id }),
      fields: ['doc', JSON.stringify(doc), ...textFields, ...(this.projection?.entry(doc) ?? [])],
    }));
    if (code === WriteResult.Done) return { kind: 'ok', version: version! };
    return { kind: code === WriteResult.Refused ? 'no_category' : 'stale' };
  }

  async delete(tenantId: string, record: EntryRecord, actor: AuditActor): Promise<'ok' | 'missing' | 'stale'> {
    const t = tenantId;
    const result = await this.redis.deleteEntry(...deleteEntryCall({
      entry: keys.entry(t, record.doc.id), changes: keys.changes(t), audit: auditKeys(t, 'knowledge_entry', record.doc.id),
      embeddingCounts: keys.embeddingCounts(t), expiring: keys.entriesExpiring(t), indexes: indexKeys(t, record.doc),
      id: record.doc.id, expectedRev: String(record.version), maxlen: CHANGE_STREAM_MAXLEN,
      event: auditArgs(actor, { action: 'delete', entityType: 'knowledge_entry', entityId: record.doc.id }),
    }));
    return result === WriteResult.Done ? 'ok' : result === WriteResult.Missing ? 'missing' : 'stale';
  }

  /** A page of entry ids in (created_at, id) order and the total (store/lua/pageEntries.lua). */
  async page(tenantId: string, q: EntryPageQuery): Promise<{ ids: string[]; total: number }> {
    const t = tenantId;
    const own = q.ownerId ? keys.entriesByOwner(t, q.ownerId) : null;
    const base = q.shared ? (q.shared.kind === 'ceiling' ? keys.entriesByCeiling(t, q.shared.name) : keys.entriesByVisibility(t, q.shared.name)) : own;
    if (!base) return { ids: [], total: 0 };
    const filters = [
      ...(q.type ? [keys.entriesByType(t, q.type)] : []),
      ...(q.categoryId ? [keys.categoryEntries(t, q.categoryId)] : []),
      ...(q.projectId ? [keys.entriesByProject(t, q.projectId)] : []),
      ...(q.layer !== undefined ? [keys.entriesByLayer(t, q.layer)] : []),
    ];
    const scratch = keys.entriesTmp(t, randomUUID());
    const [total, ...ids] = await this.redis.pageEntries(...pageEntriesCall({
      base, personal: own ?? base, expiring: keys.entriesExpiring(t), scratch, filters,
      nowMs: Date.now(), includeExpired: q.includeExpired ? '1' : '0', offset: q.offset, limit: q.limit, addPersonal: own && own !== base ? '1' : '0',
    }));
    return { ids: ids as string[], total: total as number };
  }
}
