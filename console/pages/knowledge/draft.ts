// The entry form's state as text (what the inputs hold), and the request bodies made from it: the
// whole entry for a create, only what changed for an update (PUT is partial).
import type { KnowledgeEntry, KnowledgeEntryCreate, KnowledgeEntryUpdate } from '../../types.js';
import { formToMetadata, metadataToForm, sameJson, splitCommas, splitLines, type EntryType, type Source, type Visibility } from './model.js';

export interface Draft {
  type: EntryType;
  title: string;
  content: string;
  category_id: string;
  visibility: Visibility;
  summary: string;
  layer: string;
  /** Comma-separated. */
  tags: string;
  language: string;
  /** Comma-separated. */
  search_keywords: string;
  source: Source;
  source_reference: string;
  similarity_text: string;
  /** One UUID per line. */
  project_ids: string;
  metadata: Record<string, string>;
}

export function newDraft(type: EntryType, language: string, visibility: Visibility): Draft {
  return {
    type, title: '', content: '', category_id: '', visibility, summary: '', layer: '', tags: '', language,
    search_keywords: '', source: 'manual', source_reference: '', similarity_text: '', project_ids: '', metadata: metadataToForm(type, {}),
  };
}

export function draftOf(e: KnowledgeEntry): Draft {
  return {
    type: e.type, title: e.title, content: e.content, category_id: e.category_id, visibility: e.visibility,
    summary: e.summary ?? '', layer: e.layer ?? '', tags: e.tags.join(', '), language: e.language,
    search_keywords: e.search_keywords.join(', '), source: e.source, source_reference: e.source_reference ?? '',
    similarity_text: e.similarity_text ?? '', project_ids: (e.project_ids ?? []).join('\n'), metadata: metadataToForm(e.type, e.metadata),
  };
}

const orNull = (text: string) => (text.trim() ? text.trim() : null);

export function createBody(d: Draft): KnowledgeEntryCreate {
  const body: KnowledgeEntryCreate = {
    type: d.type, title: d.title.trim(), content: d.content, category_id: d.category_id, visibility: d.visibility,
    tags: splitCommas(d.tags), language: d.language.trim() || 'de', source: d.source, search_keywords: splitCommas(d.search_keywords),
    metadata: formToMetadata(d.type, d.metadata),
  };
  const summary = orNull(d.summary), layer = orNull(d.layer), reference = orNull(d.source_reference), anchor = orNull(d.similarity_text);
  if (summary) body.summary = summary;
  if (layer) body.layer = layer;
  if (reference) body.source_reference = reference;
  if (anchor) body.similarity_text = anchor;
  if (splitLines(d.project_ids).length) body.project_ids = splitLines(d.project_ids);
  return body;
}

/** The fields that differ from the entry as read (type, language and source cannot change). */
export function updateBody(d: Draft, e: KnowledgeEntry): KnowledgeEntryUpdate {
  const body: KnowledgeEntryUpdate = {};
  if (d.title.trim() !== e.title) body.title = d.title.trim();
  if (d.content !== e.content) body.content = d.content;
  if (d.category_id !== e.category_id) body.category_id = d.category_id;
  // A personal entry stays personal: its visibility is never sent (personal is refused on PUT).
  if (d.visibility !== e.visibility) body.visibility = d.visibility;
  if (orNull(d.summary) !== e.summary) body.summary = orNull(d.summary);
  if (orNull(d.layer) !== e.layer) body.layer = orNull(d.layer);
  if (orNull(d.source_reference) !== e.source_reference) body.source_reference = orNull(d.source_reference);
  if (orNull(d.similarity_text) !== e.similarity_text) body.similarity_text = orNull(d.similarity_text);
  if (!sameJson(splitCommas(d.tags), e.tags)) body.tags = splitCommas(d.tags);
  if (!sameJson(splitCommas(d.search_keywords), e.search_keywords)) body.search_keywords = splitCommas(d.search_keywords);
  const projects = splitLines(d.project_ids);
  if (!sameJson(projects, e.project_ids ?? [])) body.project_ids = projects.length ? projects : null;
  const metadata = formToMetadata(e.type, d.metadata, e.metadata);
  if (!sameJson(metadata, e.metadata)) body.metadata = metadata;
  return body;
}
