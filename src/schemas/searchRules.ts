// Search rules (merchandising, DESIGN §6): for a query on a site, pin products at positions, hide
// products, add filters, optionally only between two dates.
import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, Pagination, StringEnum, Uuid } from './common.js';
import { ProductSearchFilters } from './search.js';

export const RULE_MATCHES = ['exact', 'contains'] as const;
export const RULE_LIMITS = { pins: 50, hides: 250, position: 1000, query: 200 };

export const SEARCH_RULE_ID_PATTERN = '^[A-Za-z0-9_-]{1,100}$';
const RuleId = Type.String({ pattern: SEARCH_RULE_ID_PATTERN, description: '1–100 letters, digits, _ and -' });

/** A day (from its start, or to its end) or an instant. */
const DateOrTime = Type.Union([Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }), DateTime()], {
  description: 'YYYY-MM-DD (UTC; active_from from the start of that day, active_until to its end) or a date-time',
});

const Pin = Type.Object(
  {
    product_id: Uuid(),
    position: Type.Integer({ minimum: 1, maximum: RULE_LIMITS.position, description: '1 is the first hit' }),
  },
  { additionalProperties: false },
);

export const SearchRuleWrite = Type.Object(
  {
    site_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'Site UUID or slug: the rule applies to that site\'s searches (null: every search)' }))),
    query: Type.String({ minLength: 1, maxLength: RULE_LIMITS.query, description: 'The query the rule is for, compared word by word, case ignored' }),
    match: Type.Optional(StringEnum(RULE_MATCHES, { default: 'exact', description: 'exact: the query is these words; contains: the query holds these words in a row' })),
    pin: Type.Optional(Type.Array(Pin, { maxItems: RULE_LIMITS.pins, description: 'Products shown at these positions whatever the mode, sort and filters' })),
    hide: Type.Optional(Type.Array(Uuid(), { maxItems: RULE_LIMITS.hides, description: 'Products never shown for the query' })),
    filters: Type.Optional(Nullable(ProductSearchFilters)),
    active_from: Type.Optional(Nullable(DateOrTime)),
    active_until: Type.Optional(Nullable(DateOrTime)),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { $id: 'SearchRuleWrite', additionalProperties: false },
);

export const SearchRule = Type.Object(
  {
    id: RuleId,
    site_id: Nullable(Uuid({ description: 'The site it applies to (null: every site)' })),
    query: Type.String(),
    match: StringEnum(RULE_MATCHES),
    pin: Type.Array(Type.Object({ product_id: Uuid(), position: Type.Integer() })),
    hide: Type.Array(Uuid()),
    filters: Nullable(ProductSearchFilters),
    active_from: Nullable(DateTime({ description: 'As written, a day as its first instant (UTC)' })),
    active_until: Nullable(DateTime({ description: 'As written, a day as its last millisecond (UTC)' })),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { $id: 'SearchRule' },
);

export const SearchRuleIdParams = Type.Object({ id: RuleId });

export const SearchRuleListQuery = Type.Object({
  site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only the rules of this site (UUID or slug)' })),
  query: Type.Optional(Type.String({ minLength: 1, maxLength: RULE_LIMITS.query, description: 'Only the rules a search with this query would apply (dates and enabled aside)' })),
  limit: Type.Optional(Pagination.limit),
  offset: Type.Optional(Pagination.offset),
});
