// Synonym sets (merchandising, DESIGN §6): multi-way (`{synonyms}`, every entry stands for every
// other) or one-way (`{root, synonyms}`, the root stands for its synonyms, not back), for the
// tenant, or for one site or language.
import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, Pagination, Uuid } from './common.js';

/** Entries of a set: 2–50 (a one-way set's root counts among them), each 1–100 characters. */
export const SYNONYM_ENTRIES = { min: 2, max: 50 };
export const SYNONYM_ENTRY_LENGTH = 100;

export const SYNONYM_ID_PATTERN = '^[A-Za-z0-9_-]{1,100}$';
const SynonymId = Type.String({ pattern: SYNONYM_ID_PATTERN, description: '1–100 letters, digits, _ and -' });

const Entry = Type.String({ minLength: 1, maxLength: SYNONYM_ENTRY_LENGTH, description: 'A word or words ("smart tv")' });
const Language = Type.String({ minLength: 2, maxLength: 5, description: 'Applies only to searches in this language (its first two letters compared)' });
const SiteRef = Type.String({ minLength: 1, maxLength: 100, description: 'Site UUID or slug: applies only to searches of this site' });

export const SynonymSetWrite = Type.Object(
  {
    root: Type.Optional(Type.String({ minLength: 1, maxLength: SYNONYM_ENTRY_LENGTH, description: 'One-way: a query holding the root also finds its synonyms' })),
    synonyms: Type.Array(Entry, { minItems: 1, maxItems: SYNONYM_ENTRIES.max, description: 'Multi-way without root: 2–50 entries that all stand for each other' }),
    site_id: Type.Optional(Nullable(SiteRef)),
    language: Type.Optional(Nullable(Language)),
  },
  { $id: 'SynonymSetWrite', additionalProperties: false },
);

export const SynonymSet = Type.Object(
  {
    id: SynonymId,
    type: Type.Union([Type.Literal('multi-way'), Type.Literal('one-way')]),
    root: Nullable(Type.String({ description: 'One-way sets only' })),
    synonyms: Type.Array(Type.String()),
    site_id: Nullable(Uuid({ description: 'The site it applies to (null: every site)' })),
    language: Nullable(Type.String({ description: 'The language it applies to (null: every language)' })),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { $id: 'SynonymSet' },
);

export const SynonymIdParams = Type.Object({ id: SynonymId });

export const SynonymListQuery = Type.Object({
  site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only sets of this site (UUID or slug)' })),
  language: Type.Optional(Type.String({ minLength: 2, maxLength: 5, description: 'Only sets of this language' })),
  limit: Type.Optional(Pagination.limit),
  offset: Type.Optional(Pagination.offset),
});

export const SynonymImportResult = Type.Object({ imported: Type.Integer() }, { $id: 'SynonymImportResult' });
