// The knowledge entries of one tenant's replica: indexed text, the facts the read rules need
// (visibility, owner, expiry), and keyword / vector / hybrid search under those rules.
import type { StoredEntry } from '../../store/knowledgeEntries.js';
import { baseLanguage } from '../analysis.js';
import { queryAnalysisOf, type EntryAccess, type EntryFilters, type KnowledgeSearch, type RelatedRequest, type SearchResult } from '../engine.js';
import { DocTable, type DocInput } from './docTable.js';
import type { TextField } from './textIndex.js';

export interface EntryFacts {
  type: string;
  categoryId: string;
  visibility: string;
  ownerId: string | null;
  projectIds: string[];
  layer: string | null;
  tags: string[];
  language: string;
  /** Epoch ms after which a memory entry is hidden; null when it never expires. */
  expiresMs: number | null;
  createdMs: number;
}

/** The text index's fields, in the order of DocInput.texts: the word being typed completes to names and tags only. */
const FIELDS: readonly TextField[] = [
  { weight: 3, completes: true }, // title
  { weight: 2.5, completes: true }, // search_keywords
  { weight: 1.5, completes: true }, // tags
  { weight: 1.5, completes: false }, // summary
  { weight: 1, completes: false }, // content
];

export function entryInput(doc: StoredEntry, vectors: DocInput<EntryFacts>['vectors']): DocInput<EntryFacts> {
  const expires = doc.type === 'memory' && typeof doc.metadata.expires_at === 'string' ? Date.parse(doc.metadata.expires_at) : null;
  return {
    id: doc.id,
    columns: undefined,
    meta: {
      type: doc.type,
      categoryId: doc.category_id,
      visibility: doc.visibility,
      ownerId: doc.created_by_user_id,
      projectIds: doc.project_ids ?? [],
      layer: doc.layer,
      tags: doc.tags,
      language: doc.language.toLowerCase(),
      expiresMs: Number.isNaN(expires) ? null : expires,
      createdMs: Date.parse(doc.created_at),
    },
    language: doc.language,
    texts: [doc.title, doc.search_keywords.join(' '), doc.tags.join(' '), doc.summary, doc.content],
    values: {
      visibility: [doc.visibility],
      owner: doc.created_by_user_id ? [doc.created_by_user_id] : [],
      type: [doc.type],
      baseLanguage: [baseLanguage(doc.language)],
      category: [doc.category_id],
      project: doc.project_ids ?? [],
    },
    vectors,
  };
}

/** The read rules of GET, as a predicate: ceiling, own personal entries, expiry. */
function readable(access: EntryAccess): (m: EntryFacts) => boolean {
  const shared = new Set(access.visibilities);
  return (m) => {
    if (m.visibility === 'personal' ? m.ownerId !== access.userId : !shared.has(m.visibility)) return false;
    return access.includeExpired || m.expiresMs === null || m.expiresMs > access.now;
  };
}

export class EntryCollection {
  readonly table = new DocTable<EntryFacts>({ fields: FIELDS });

  search(s: KnowledgeSearch): SearchResult {
    const found = this.table.search(s, {
      allows: this.filter(s.filters),
      candidates: () => this.candidates(s.filters),
      analysis: queryAnalysisOf(s, s.filters.language ?? null),
      createdMs: (doc) => this.table.meta[doc]!.createdMs,
    });
    return { hits: found.hits, total: found.total, facets: {} };
  }

  /** Readable entries nearest to one entry's similarity anchor (its content vector without one). */
  related(entryId: string, request: RelatedRequest & { access: EntryAccess }): SearchResult | null {
    const origin = this.table.docOf(entryId);
    const canRead = readable(request.access);
    if (origin === undefined || !canRead(this.table.meta[origin]!)) return null;
    const allows = (doc: number) => doc !== origin && canRead(this.table.meta[doc]!);
    return { ...this.table.related(origin, request, { allows, docs: this.candidates({ access: request.access }) }), facets: {} };
  }

  private filter(f: EntryFilters): (doc: number) => boolean {
    const canRead = readable(f.access);
    const tags = f.tags && f.tags.length > 0 ? new Set(f.tags) : null;
    const language = f.language?.toLowerCase();
    return (doc) => {
      const m = this.table.meta[doc];
      if (!m || !canRead(m)) return false;
      if (f.type && m.type !== f.type) return false;
      if (f.categoryId && m.categoryId !== f.categoryId) return false;
      if (f.projectId && !m.projectIds.includes(f.projectId)) return false;
      if (f.visibility && m.visibility !== f.visibility) return false;
      if (f.layer !== undefined && m.layer !== f.layer) return false;
      if (language && m.language !== language) return false;
      if (tags && !m.tags.some((t) => tags.has(t))) return false;
      return true;
    };
  }

  /** Candidates: the smallest exact-value list among the filters, else what the reader may see. */
  private candidates(f: Pick<EntryFilters, 'type' | 'categoryId' | 'projectId' | 'visibility' | 'access'>): number[] {
    const constraints: [string, string[]][] = [];
    if (f.type) constraints.push(['type', [f.type]]);
    if (f.categoryId) constraints.push(['category', [f.categoryId]]);
    if (f.projectId) constraints.push(['project', [f.projectId]]);
    if (f.visibility) constraints.push(['visibility', [f.visibility]]);
    const fromFilters = this.table.candidates(constraints);
    if (fromFilters) return fromFilters;
    const readableSets = [...this.table.withValues('visibility', f.access.visibilities), ...this.table.withValues('owner', [f.access.userId])];
    const out: number[] = [];
    for (const set of readableSets) for (const doc of set) out.push(doc);
    return [...new Set(out)];
  }
}
