// Knowledge entries (spec §2.4, §4.4; DESIGN §2 ceiling, §4): typed records with per-type
// metadata, a visibility ceiling from scopes, owner-only personal entries, versions, expiry.
import { createHash, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Static } from '@sinclair/typebox';
import { ENTRY_METADATA, VISIBILITIES, type Entry, type EntryCreate, type EntryListQuery, type EntryType, type EntryUpdate } from '../schemas/knowledgeEntries.js';
import { validate } from '../schemas/validate.js';
import type { AuditActor, EntryRecord, EntryRepository, EntryTexts, StoredEntry } from '../store/knowledgeEntries.js';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError, PreconditionFailedError } from './errors.js';
import { VISIBILITY_LEVELS, visibilityCeiling, type VisibilityLevel } from '../schemas/scopes.js';
import { noSearchRefresh, type SearchRefresh } from './searchRefresh.js';
import type { EmbeddingStatus } from '../schemas/common.js';

export type EntryView = Static<typeof Entry>;
type CreateInput = Static<typeof EntryCreate>;
type UpdateInput = Static<typeof EntryUpdate>;
type ListInput = Static<typeof EntryListQuery>;

/** Who reads or writes: the user, the credential, its effective scopes, and the audit channel. */
export interface Caller extends AuditActor {
  /** The tenant the request is for. */
  tenantId: string;
  userId: string;
  scopes: Set<string>;
}

/** Hands entries whose texts changed to the embedding workers. */
export interface EntryEmbeddingScheduler {
  readonly initialStatus: Extract<EmbeddingStatus, 'pending' | 'skipped'>;
  schedule(tenantId: string, items: { entryId: string; textHash: string }[]): Promise<void>;
}

const MAX_ATTEMPTS = 50;

/** The ceiling level of a visibility; workspace counts as internal; personal is owner-gated instead. */
function levelOf(visibility: string): number {
  if (visibility === 'workspace') return VISIBILITY_LEVELS.indexOf('internal');
  return VISIBILITY_LEVELS.indexOf(visibility as VisibilityLevel);
}

export function canRead(caller: Caller, doc: StoredEntry): boolean {
  if (doc.visibility === 'personal') return doc.created_by_user_id === caller.userId;
  return levelOf(doc.visibility) <= levelOf(visibilityCeiling(caller.scopes));
}

/** The non-personal visibilities a caller may read (its own personal entries come on top). */
export function readableVisibilities(caller: Pick<Caller, 'scopes'>): string[] {
  const ceiling = levelOf(visibilityCeiling(caller.scopes));
  return VISIBILITIES.filter((v) => v !== 'personal' && levelOf(v) <= ceiling);
}

export const isExpired = (doc: StoredEntry, now = Date.now()): boolean =>
  doc.type === 'memory' && typeof doc.metadata.expires_at === 'string' && Date.parse(doc.metadata.expires_at) <= now;

/** A write may not place an entry above the caller's own ceiling (it could not read it back). */
function assertWritableVisibility(caller: Caller, visibility: string): void {
  if (visibility === 'personal') return;
  const ceiling = visibilityCeiling(caller.scopes);
  if (levelOf(visibility) > levelOf(ceiling)) {
    const needed = visibility === 'workspace' ? 'internal' : visibility;
    throw new ForbiddenError(`Writing a ${visibility} entry needs the scope visibility:${needed}`, `visibility:${needed}`);
  }
}

/** Metadata checked and normalised against the type's schema; ttl_seconds becomes expires_at. */
function normaliseMetadata(type: EntryType, metadata: Record<string, unknown>): Record<string, unknown> {
  const result = validate<Record<string, unknown>>(ENTRY_METADATA[type], metadata, { root: 'metadata' });
  if (!result.ok) throw new InvalidError(result.errors);
  const value = { ...result.value };
  if (type === 'memory') {
    if (typeof value.ttl_seconds === 'number') value.expires_at = new Date(Date.now() + value.ttl_seconds * 1000).toISOString();
    else if (typeof value.expires_at === 'string') value.expires_at = new Date(value.expires_at).toISOString();
    delete value.ttl_seconds;
  }
  return value;
}

export function entryTexts(doc: StoredEntry): EntryTexts {
  return {
    content: [doc.title, doc.summary, doc.content].filter(Boolean).join('\n\n'),
    anchor: doc.similarity_text?.trim() ? doc.similarity_text : null,
  };
}
const hashTexts = (texts: EntryTexts, language: string) =>
  createHash('sha256').update(JSON.stringify([language, texts.content, texts.anchor])).digest('hex');

function toView(record: EntryRecord): EntryView {
  const { doc } = record;
  return {
    ...doc,
    version: record.version,
    embedding_model: record.embeddingStatus === 'ready' ? record.embeddingModel : null,
    embedding_status: record.embeddingStatus,
  };
}

/** `If-Match: 3`, `"3"` or `W/"3"` → 3; `*` or absent → null (no precondition). */
export function parseIfMatch(header: string | undefined): number | null {
  if (!header || header.trim() === '*') return null;
  const match = /^(?:W\/)?"?(\d+)"?$/.exec(header.trim());
  if (!match) throw new PreconditionFailedError(`If-Match must be an entry version, got ${JSON.stringify(header)}`);
  return Number(match[1]);
}

export class KnowledgeEntryService {
  constructor(
    private readonly repo: EntryRepository,
    private readonly embedding: EntryEmbeddingScheduler,
    private readonly refreshSearch: SearchRefresh = noSearchRefresh,
  ) {}

  /** The main create path (personal = false refuses visibility personal) and POST /personal. */
  async create(caller: Caller, input: CreateInput, personal: boolean): Promise<EntryView> {
    const { tenantId } = caller;
    const visibility = personal ? 'personal' : input.visibility!;
    if (!personal && visibility === 'personal') {
      throw InvalidError.at(['visibility'], 'Personal entries are created through POST /api/knowledge/knowledge-entries/personal');
    }
    assertWritableVisibility(caller, visibility);
    const type = (input.type ?? 'knowledge') as EntryType;
    const now = new Date().toISOString();
    const doc: StoredEntry = {
      id: randomUUID(),
      tenant_id: tenantId,
      title: input.title,
      content: input.content,
      category_id: input.category_id.toLowerCase(),
      visibility,
      summary: input.summary ?? null,
      layer: input.layer ?? null,
      tags: input.tags ?? [],
      type,
      language: input.language ?? 'de',
      metadata: normaliseMetadata(type, input.metadata ?? {}),
      source: input.source ?? 'manual',
      source_reference: input.source_reference ?? null,
      similarity_text: input.similarity_text ?? null,
      search_keywords: input.search_keywords ?? [],
      project_ids: input.project_ids?.map((p) => p.toLowerCase()) ?? null,
      translation_group_id: randomUUID(),
      workspace_id: null,
      created_by_user_id: caller.userId,
      created_at: now,
      updated_at: now,
    };
    return this.save(caller, doc, null);
  }

  async get(caller: Caller, id: string, includeExpired = false): Promise<EntryView> {
    return toView(await this.readable(caller, id, includeExpired));
  }

  async list(caller: Caller, q: ListInput): Promise<{ items: EntryView[]; total: number }> {
    const { tenantId } = caller;
    const ceiling = visibilityCeiling(caller.scopes);
    // A visibility filter narrows to that one set: personal → the caller's own, else a shared one it may see.
    let shared: { kind: 'ceiling' | 'visibility'; name: string } | null = { kind: 'ceiling', name: ceiling };
    if (q.visibility === 'personal') shared = null;
    else if (q.visibility) shared = levelOf(q.visibility) <= levelOf(ceiling) ? { kind: 'visibility', name: q.visibility } : null;
    const ownerId = q.visibility === undefined || q.visibility === 'personal' ? caller.userId : null;
    if (!shared && !ownerId) return { items: [], total: 0 };
    const { ids, total } = await this.repo.page(tenantId, {
      shared,
      ownerId,
      type: q.type,
      categoryId: q.category_id?.toLowerCase(),
      projectId: q.project_id?.toLowerCase(),
      layer: q.layer,
      includeExpired: q.include_expired ?? false,
      offset: q.offset ?? 0,
      limit: q.limit ?? 50,
    });
    const records = await this.repo.getMany(tenantId, ids);
    return { items: records.filter((r): r is EntryRecord => r !== null).map(toView), total };
  }

  async update(caller: Caller, id: string, { changes, ifMatch }: { changes: UpdateInput; ifMatch: number | null }): Promise<EntryView> {
    if (changes.type !== undefined) {
      throw InvalidError.at(['type'], 'type is immutable; delete and re-create the entry to change it', 'extra_forbidden');
    }
    if (changes.visibility === 'personal') {
      throw InvalidError.at(['visibility'], 'Personal entries are created through POST /api/knowledge/knowledge-entries/personal');
    }
    if (changes.visibility) assertWritableVisibility(caller, changes.visibility);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const record = await this.readable(caller, id, true);
      if (ifMatch !== null && ifMatch !== record.version) {
        throw new PreconditionFailedError(`The entry is at version ${record.version}, not ${ifMatch}`);
      }
      const prev = record.doc;
      const clearable = <K extends 'summary' | 'layer' | 'source_reference' | 'similarity_text'>(key: K) =>
        changes[key] !== undefined ? (changes[key] as StoredEntry[K]) : prev[key];
      const next: StoredEntry = {
        ...prev,
        title: changes.title ?? prev.title,
        content: changes.content ?? prev.content,
        category_id: changes.category_id?.toLowerCase() ?? prev.category_id,
        visibility: changes.visibility ?? prev.visibility,
        summary: clearable('summary'),
        layer: clearable('layer'),
        source_reference: clearable('source_reference'),
        similarity_text: clearable('similarity_text'),
        project_ids: changes.project_ids !== undefined ? (changes.project_ids?.map((p) => p.toLowerCase()) ?? null) : prev.project_ids,
        tags: changes.tags ?? prev.tags,
        search_keywords: changes.search_keywords ?? prev.search_keywords,
        metadata: changes.metadata ? normaliseMetadata(prev.type as EntryType, changes.metadata) : prev.metadata,
      };
      // An update that changes nothing keeps the version (and writes nothing).
      if (isDeepStrictEqual(next, prev)) return toView(record);
      next.updated_at = new Date().toISOString();
      const saved = await this.save(caller, next, record).catch((error: unknown) => {
        if (error instanceof StaleWrite) return null;
        throw error;
      });
      if (saved) return saved;
    }
    throw new ConflictError('The entry is being changed concurrently; retry');
  }

  async delete(caller: Caller, id: string, ifMatch: number | null): Promise<void> {
    const { tenantId } = caller;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const record = await this.readable(caller, id, true);
      if (ifMatch !== null && ifMatch !== record.version) {
        throw new PreconditionFailedError(`The entry is at version ${record.version}, not ${ifMatch}`);
      }
      const result = await this.repo.delete(tenantId, record, caller);
      if (result === 'ok') return this.refreshSearch(tenantId, [{ kind: 'entry', id: record.doc.id }]);
      if (result === 'missing') throw new NotFoundError('Knowledge entry not found');
    }
    throw new ConflictError('The entry is being changed concurrently; retry');
  }

  /** Views of the entries (in order) the caller may read; null for the others. */
  async readableViews(caller: Caller, ids: string[], includeExpired: boolean): Promise<(EntryView | null)[]> {
    const { tenantId } = caller;
    const records = await this.repo.getMany(tenantId, ids);
    return records.map((r) => (r && canRead(caller, r.doc) && (includeExpired || !isExpired(r.doc)) ? toView(r) : null));
  }

  /** The entry if this caller may see it; otherwise it does not exist for them (404, never 403). */
  private async readable(caller: Caller, id: string, includeExpired: boolean): Promise<EntryRecord> {
    const { tenantId } = caller;
    const record = await this.repo.get(tenantId, id.toLowerCase());
    if (!record || !canRead(caller, record.doc) || (!includeExpired && isExpired(record.doc))) {
      throw new NotFoundError('Knowledge entry not found');
    }
    return record;
  }

  private async save(caller: Caller, doc: StoredEntry, previous: EntryRecord | null): Promise<EntryView> {
    const { tenantId } = caller;
    const texts = entryTexts(doc);
    const textHash = hashTexts(texts, doc.language);
    const embed = !previous || previous.textHash !== textHash;
    const embeddingStatus = embed ? this.embedding.initialStatus : previous!.embeddingStatus;
    const result = await this.repo.write({ tenantId, doc, previous, texts, textHash, embeddingStatus, actor: caller });
    if (result.kind !== 'ok') {
      if (result.kind === 'no_category') throw InvalidError.at(['category_id'], 'Category not found');
      if (!previous) throw new ConflictError('The entry id is taken; retry');
      throw new StaleWrite();
    }
    if (embed && this.embedding.initialStatus === 'pending') await this.embedding.schedule(tenantId, [{ entryId: doc.id, textHash }]);
    await this.refreshSearch(tenantId, [{ kind: 'entry', id: doc.id }]);
    // The entry as this write left it (a read now could see a later write's version).
    return toView({ doc, version: result.version, embeddingStatus, embeddingModel: previous?.embeddingModel ?? null, textHash });
  }
}

class StaleWrite extends Error {}
