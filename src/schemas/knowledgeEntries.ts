import { Type, type TSchema } from '@sinclair/typebox';
import { DateTime, EMBEDDING_STATUSES, MAX_INT, Nullable, Pagination, StringEnum, Uuid } from './common.js';

export const VISIBILITIES = ['public', 'internal', 'personal', 'restricted', 'community', 'workspace'] as const;
export const ENTRY_TYPES = ['knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap', 'skill_index'] as const;
export const ENTRY_SOURCES = ['manual', 'import', 'conversational', 'learning_loop', 'system'] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];
export type Visibility = (typeof VISIBILITIES)[number];

/** 100 years: now + ttl stays a valid date (JS dates end in the year 275760). */
const MAX_TTL_SECONDS = 3_153_600_000;

const Strings = (description?: string) => Type.Array(Type.String({ maxLength: 200 }), { default: [], maxItems: 100, ...(description ? { description } : {}) });

/**
 * Metadata of each entry type: checked and normalised on every write (defaults filled, unknown
 * keys dropped); no type has a required field.
 */
export const ENTRY_METADATA: Record<EntryType, TSchema> = {
  knowledge: Type.Object({
    audience: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    references: Type.Optional(Strings('URLs or citations backing the entry')),
    reviewed_at: Type.Optional(Nullable(DateTime())),
  }, { $id: 'KnowledgeMetadata' }),
  skill: Type.Object({
    level: Type.Optional(StringEnum(['beginner', 'intermediate', 'expert'] as const, { default: 'intermediate' })),
    prerequisites: Type.Optional(Strings()),
    tools: Type.Optional(Strings()),
  }, { $id: 'SkillMetadata' }),
  process: Type.Object({
    steps: Type.Optional(Type.Array(Type.String({ maxLength: 2000 }), { default: [], maxItems: 200 })),
    owner: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    frequency: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  }, { $id: 'ProcessMetadata' }),
  glossary: Type.Object({
    term: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    synonyms: Type.Optional(Strings()),
    abbreviation: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
  }, { $id: 'GlossaryMetadata' }),
  memory: Type.Object({
    expires_at: Type.Optional(Nullable(DateTime({ description: 'When the memory expires (a past value is allowed)' }))),
    ttl_seconds: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: MAX_TTL_SECONDS, description: 'Sets expires_at to now + ttl_seconds (at most 100 years); not stored' }))),
    importance: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 3 })),
    subject: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  }, { $id: 'MemoryMetadata' }),
  bootstrap: Type.Object({
    priority: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_INT, default: 0 })),
    applies_to: Type.Optional(Strings('Agents or channels this bootstrap text applies to')),
  }, { $id: 'BootstrapMetadata' }),
  skill_index: Type.Object({
    skill_ids: Type.Optional(Type.Array(Uuid(), { default: [], maxItems: 1000 })),
    domain: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  }, { $id: 'SkillIndexMetadata' }),
};

const MetadataIn = Type.Record(Type.String(), Type.Unknown(), { description: 'Checked against the schema of the entry type' });

const common = {
  summary: Type.Optional(Nullable(Type.String())),
  layer: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
  source_reference: Type.Optional(Nullable(Type.String())),
  similarity_text: Type.Optional(Nullable(Type.String({ description: 'Anchor text for related themes' }))),
  project_ids: Type.Optional(Nullable(Type.Array(Uuid(), { maxItems: 100 }))),
};

export const EntryCreate = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 500 }),
    content: Type.String({ minLength: 1 }),
    category_id: Uuid(),
    visibility: StringEnum(VISIBILITIES),
    ...common,
    tags: Type.Optional(Strings()),
    type: Type.Optional(StringEnum(ENTRY_TYPES, { default: 'knowledge' })),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 5, default: 'de' })),
    metadata: Type.Optional(MetadataIn),
    source: Type.Optional(StringEnum(ENTRY_SOURCES, { default: 'manual' })),
    search_keywords: Type.Optional(Strings('Alternative spellings and synonyms')),
  },
  { $id: 'KnowledgeEntryCreate' },
);

/** POST /personal: the same body; visibility is forced to personal and may be left out. */
export const PersonalEntryCreate = Type.Object(
  { ...EntryCreate.properties, visibility: Type.Optional(StringEnum(VISIBILITIES)) },
  { $id: 'PersonalKnowledgeEntryCreate' },
);

/**
 * Every field optional; only provided ones change. null for title, content, category_id,
 * visibility or metadata means no change; null for summary, layer, source_reference,
 * similarity_text or project_ids clears it. `type` is immutable (its key is a 422).
 */
export const EntryUpdate = Type.Object(
  {
    title: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 500 }))),
    content: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
    category_id: Type.Optional(Nullable(Uuid())),
    visibility: Type.Optional(Nullable(StringEnum(VISIBILITIES))),
    metadata: Type.Optional(Nullable(MetadataIn)),
    ...common,
    tags: Type.Optional(Nullable(Strings())),
    search_keywords: Type.Optional(Nullable(Strings())),
    // Kept through validation only so that the domain can refuse it with a precise 422.
    type: Type.Optional(Type.Unknown({ description: 'Not allowed: type is immutable (422 at ["body","type"])' })),
  },
  { $id: 'KnowledgeEntryUpdate' },
);

export const Entry = Type.Object(
  {
    id: Uuid(),
    tenant_id: Uuid(),
    title: Type.String(),
    content: Type.String(),
    category_id: Uuid(),
    visibility: StringEnum(VISIBILITIES),
    summary: Nullable(Type.String()),
    layer: Nullable(Type.String()),
    tags: Type.Array(Type.String()),
    type: StringEnum(ENTRY_TYPES),
    language: Type.String(),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    source: StringEnum(ENTRY_SOURCES),
    source_reference: Nullable(Type.String()),
    similarity_text: Nullable(Type.String()),
    search_keywords: Type.Array(Type.String()),
    project_ids: Nullable(Type.Array(Uuid())),
    version: Type.Integer({ minimum: 1 }),
    translation_group_id: Uuid(),
    embedding_model: Nullable(Type.String()),
    embedding_status: StringEnum(EMBEDDING_STATUSES),
    workspace_id: Nullable(Uuid()),
    created_by_user_id: Nullable(Uuid()),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { $id: 'KnowledgeEntry' },
);

export const EntryListQuery = Type.Object({
  category_id: Type.Optional(Uuid()),
  type: Type.Optional(StringEnum(ENTRY_TYPES)),
  project_id: Type.Optional(Uuid()),
  visibility: Type.Optional(StringEnum(VISIBILITIES)),
  layer: Type.Optional(Type.String({ maxLength: 50 })),
  include_expired: Type.Optional(Type.Boolean({ default: false })),
  limit: Type.Optional(Pagination.limit),
  offset: Type.Optional(Pagination.offset),
});

export const EntryIdParams = Type.Object({ entry_id: Uuid() });
export const EntryGetQuery = Type.Object({ include_expired: Type.Optional(Type.Boolean({ default: false })) });

/** What an audit event may be about: every kind of write (store/audit.ts). */
export const AUDIT_ENTITY_TYPES = [
  'site', 'category', 'product', 'bulk_job', 'settings', 'user', 'api_key', 'oauth_client', 'knowledge_entry', 'synonym_set', 'search_rule',
  'blocked_suggestion',
] as const;

export const AuditEvent = Type.Object(
  {
    id: Type.String({ description: 'Stream id; pass as `before` for the next page' }),
    at: DateTime(),
    action: StringEnum(['create', 'update', 'delete'] as const),
    entity_type: Type.String(),
    entity_id: Type.String({ description: "The entity's UUID (a synonym set, a search rule: its id; a blocked_suggestion: a UUID made from its query)" }),
    version: Nullable(Type.Integer()),
    user_id: Nullable(Uuid()),
    credential_id: Nullable(Type.String()),
    client_id: Nullable(Type.String()),
    audit_source: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'A bulk_job: site_id and item counts at acceptance; a blocked_suggestion: its query' })),
  },
  { $id: 'AuditEvent' },
);

export const AuditQuery = Type.Object({
  entity_type: Type.Optional(StringEnum(AUDIT_ENTITY_TYPES)),
  entity_id: Type.Optional(Uuid()),
  // A stream id Redis can hold (each part 1–15 digits, within 64 bits) with an event before it (not 0-0).
  before: Type.Optional(Type.String({ pattern: '^(?!0+-0+$)\\d{1,15}-\\d{1,15}$', description: 'Only events older than this event id' })),
  limit: Type.Optional(Pagination.limit),
});
