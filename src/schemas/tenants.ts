import { Type } from '@sinclair/typebox';
import { DateTime, Patch, StringEnum, Uuid } from './common.js';

export const VARIANT_STRATEGIES = ['all', 'children_only', 'parents_only'] as const;

const FacetAttributes = Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }), {
  maxItems: 50, default: [], description: 'Attributes product search can facet on (facets: ["attributes.<name>"]), case-insensitive; filters work on every attribute',
});

// Search analytics (api/searchAnalytics.ts).
const SearchAnalytics = Type.Boolean({
  default: true, description: 'Count product searches per site and day (analytics, query_id, suggestions); false counts nothing and suggests nothing',
});
const RetentionDays = Type.Integer({ minimum: 1, maximum: 730, default: 90, description: 'Days the daily search counts are kept' });
const SuggestionMinSearches = Type.Integer({
  minimum: 1, maximum: 1000, default: 3,
  description: 'Distinct searchers of a query (last 30 days, each counted once a day) before it is suggested: one shopper\'s query is never shown publicly',
});
const SearchEventsRate = Type.Integer({
  minimum: 0, maximum: 100_000, default: 10, description: 'Event requests per second per search-only key and address; 0 = no limit',
});
const SearchEventsKeyRate = Type.Integer({
  minimum: 0, maximum: 100_000, default: 100, description: 'Event requests per second per search-only key, all addresses together; 0 = no limit',
});

export const TenantSettings = Type.Object(
  {
    variant_strategy: StringEnum(VARIANT_STRATEGIES, {
      default: 'all',
      description: 'children_only hides is_parent products from search; parents_only hides is_variant products',
    }),
    oauth_open_registration: Type.Boolean({ default: false, description: 'Allow /oauth/register without an admin key' }),
    rate_limit_per_s: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Requests per second per key; 0 = no limit' }),
    facet_attributes: FacetAttributes,
    search_analytics: SearchAnalytics,
    understand_queries: Type.Boolean({
      default: false, description: 'Product searches read price phrases of the query as a price filter (a search\'s understand overrides it)',
    }),
    analytics_retention_days: RetentionDays,
    suggestion_min_searches: SuggestionMinSearches,
    search_events_rate_per_s: SearchEventsRate,
    search_events_key_rate_per_s: SearchEventsKeyRate,
  },
  { $id: 'TenantSettings' },
);

/** Partial: only the settings sent change (no default filled in for one left out); every setting is patchable. */
export const TenantSettingsUpdate = Patch(TenantSettings.properties, { $id: 'TenantSettingsUpdate' });

export const TenantSlug = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$' });

export const Tenant = Type.Object(
  { id: Uuid(), slug: TenantSlug, name: Type.String(), settings: TenantSettings, created_at: DateTime() },
  { $id: 'Tenant' },
);
