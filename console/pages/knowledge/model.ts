// What the knowledge pages know of the entry contract: the types, visibilities and sources, and
// the metadata fields of each type (copied from src/schemas/knowledgeEntries.ts: the console
// bundles no server code; the Record over the entry type makes a new type a compile error here).
import type { Scope } from '../../context.js';
import type { KnowledgeEntry } from '../../types.js';

export type EntryType = KnowledgeEntry['type'];
export type Visibility = KnowledgeEntry['visibility'];
export type Source = KnowledgeEntry['source'];

export const ENTRY_TYPES: readonly EntryType[] = ['knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap', 'skill_index'];
export const TYPE_LABELS: Record<EntryType, string> = {
  knowledge: 'Knowledge', skill: 'Skill', process: 'Process', glossary: 'Glossary term', memory: 'Memory',
  bootstrap: 'Bootstrap text', skill_index: 'Skill index',
};
export const VISIBILITIES: readonly Visibility[] = ['public', 'community', 'internal', 'workspace', 'restricted', 'personal'];
export const SOURCES: readonly Source[] = ['manual', 'import', 'conversational', 'learning_loop', 'system'];

/** Read levels (docs/API.md, Visibility): workspace counts as internal; personal is the owner's alone. */
const LEVEL: Record<Visibility, number> = { public: 0, community: 1, internal: 2, workspace: 2, restricted: 3, personal: 0 };

/** Whether the caller may write an entry of this visibility (above its ceiling is a 403). */
export function mayWrite(visibility: Visibility, can: (s: Scope) => boolean): boolean {
  const ceiling = can('visibility:restricted') ? 3 : can('visibility:internal') ? 2 : can('visibility:community') ? 1 : 0;
  return LEVEL[visibility] <= ceiling;
}

/** How a metadata field is edited: text (null when empty), one item per line, date and time, whole number, choice. */
export type MetaKind = 'text' | 'list' | 'datetime' | 'integer' | 'select';

export interface MetaField {
  key: string;
  label: string;
  kind: MetaKind;
  options?: readonly string[];
  min?: number;
  max?: number;
  hint?: string;
  /** What a choice shows when the entry holds none (the server's default). */
  initial?: string;
  /** Accepted on write but never stored (memory ttl_seconds): the form starts it empty. */
  writeOnly?: boolean;
}

export const METADATA_FIELDS: Record<EntryType, MetaField[]> = {
  knowledge: [
    { key: 'audience', label: 'Audience', kind: 'text' },
    { key: 'references', label: 'References', kind: 'list', hint: 'URLs or citations backing the entry, one per line' },
    { key: 'reviewed_at', label: 'Reviewed at', kind: 'datetime' },
  ],
  skill: [
    { key: 'level', label: 'Level', kind: 'select', options: ['beginner', 'intermediate', 'expert'], initial: 'intermediate' },
    { key: 'prerequisites', label: 'Prerequisites', kind: 'list', hint: 'One per line' },
    { key: 'tools', label: 'Tools', kind: 'list', hint: 'One per line' },
  ],
  process: [
    { key: 'steps', label: 'Steps', kind: 'list', hint: 'One step per line, in order' },
    { key: 'owner', label: 'Owner', kind: 'text' },
    { key: 'frequency', label: 'Frequency', kind: 'text', hint: 'e.g. weekly' },
  ],
  glossary: [
    { key: 'term', label: 'Term', kind: 'text' },
    { key: 'synonyms', label: 'Synonyms', kind: 'list', hint: 'One per line' },
    { key: 'abbreviation', label: 'Abbreviation', kind: 'text' },
  ],
  memory: [
    { key: 'subject', label: 'Subject', kind: 'text' },
    { key: 'importance', label: 'Importance', kind: 'integer', min: 1, max: 5, hint: '1–5 (default 3)' },
    { key: 'expires_at', label: 'Expires at', kind: 'datetime', hint: 'A past time hides the entry unless expired entries are included' },
    { key: 'ttl_seconds', label: 'Expires in (seconds)', kind: 'integer', min: 1, max: 3_153_600_000, writeOnly: true, hint: 'Sets “expires at” to now + this; not stored' },
  ],
  bootstrap: [
    { key: 'priority', label: 'Priority', kind: 'integer', min: 0, max: 2_147_483_647, hint: '0 or more (default 0)' },
    { key: 'applies_to', label: 'Applies to', kind: 'list', hint: 'Agents or channels, one per line' },
  ],
  skill_index: [
    { key: 'domain', label: 'Domain', kind: 'text' },
    { key: 'skill_ids', label: 'Skill entry ids', kind: 'list', hint: 'UUIDs of skill entries, one per line' },
  ],
};

const pad = (n: number) => String(n).padStart(2, '0');

/** An ISO instant as a `datetime-local` value (local time, minutes). */
export function toLocalInput(iso: unknown): string {
  if (typeof iso !== 'string' || !iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export const splitLines = (text: string) => text.split('\n').map((s) => s.trim()).filter(Boolean);
export const splitCommas = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean);

/** The form's text for each metadata field of a type. */
export function metadataToForm(type: EntryType, metadata: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of METADATA_FIELDS[type]) {
    const value = field.writeOnly ? undefined : metadata[field.key];
    if (field.kind === 'list') values[field.key] = Array.isArray(value) ? value.map(String).join('\n') : '';
    else if (field.kind === 'datetime') values[field.key] = toLocalInput(value);
    else values[field.key] = value === undefined || value === null ? (field.initial ?? '') : String(value);
  }
  return values;
}

/**
 * The metadata object to send. An empty field is left out (the server fills its default), except
 * a text or date the entry held, which it clears (null); a date and time left as it was keeps
 * the stored instant (the input shows minutes only), so an untouched form changes nothing.
 */
export function formToMetadata(type: EntryType, values: Record<string, string>, stored: Record<string, unknown> = {}): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  for (const field of METADATA_FIELDS[type]) {
    const text = (values[field.key] ?? '').trim();
    const had = !field.writeOnly && stored[field.key] !== undefined;
    if (field.kind === 'list') {
      metadata[field.key] = splitLines(text);
    } else if (!text) {
      // Numbers and choices have defaults and no null; text and dates are cleared.
      if (had && (field.kind === 'text' || field.kind === 'datetime')) metadata[field.key] = null;
    } else if (field.kind === 'integer') {
      metadata[field.key] = Number(text);
    } else if (field.kind === 'datetime') {
      metadata[field.key] = had && text === toLocalInput(stored[field.key]) ? stored[field.key] : new Date(text).toISOString();
    } else {
      metadata[field.key] = text;
    }
  }
  return metadata;
}

/** Equal as JSON, whatever the order of object keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sorted)
      : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => x.localeCompare(y)).map(([k, x]) => [k, sorted(x)]))
        : v;
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}
