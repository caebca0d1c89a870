// Wire contract of search analytics (DESIGN §6 merchandising): the report, click and conversion
// events for a search's query_id, query suggestions and the queries a tenant blocks from them.
import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, Uuid } from './common.js';

export const MAX_EVENTS = 1000;
/** A click's position: 1-based over the whole list (a search answers at most offset 1000 + limit 100). */
export const MAX_POSITION = 10_000;

const SiteRef = Type.String({ minLength: 1, maxLength: 100, description: 'Site UUID or slug (absent: the whole tenant)' });
const Day = (description: string) => Type.String({ minLength: 1, maxLength: 40, description });

export const AnalyticsQuery = Type.Object({
  site_id: Type.Optional(SiteRef),
  from: Type.Optional(Day('First day, YYYY-MM-DD or a date-time (its UTC day); default 6 days before to')),
  to: Type.Optional(Day('Last day (inclusive), YYYY-MM-DD or a date-time (its UTC day); default today (UTC)')),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Entries of top_queries and no_result_queries' })),
});

const Rate = (description: string) => Nullable(Type.Number({ description: `${description}; null without searches` }));

export const AnalyticsReport = Type.Object(
  {
    from: Type.String({ description: 'YYYY-MM-DD' }),
    to: Type.String({ description: 'YYYY-MM-DD' }),
    site_id: Nullable(Uuid({ description: 'The site reported on (null: the whole tenant)' })),
    searches: Type.Integer({ description: 'Product searches counted (empty queries, i.e. browsing, included)' }),
    no_result_searches: Type.Integer(),
    no_result_rate: Rate('no_result_searches / searches'),
    clicks: Type.Integer(),
    conversions: Type.Integer(),
    click_through_rate: Rate('Searches with at least one click / searches'),
    conversion_rate: Rate('Searches with at least one conversion / searches'),
    average_click_position: Nullable(Type.Number({ description: 'Mean position of the clicks (1 = first hit); null without clicks' })),
    top_queries: Type.Array(Type.Object({
      query: Type.String({ description: 'Normalised: NFKC, lower case, whitespace collapsed, ≤ 100 characters' }),
      count: Type.Integer({ description: 'Searches' }),
      hits: Type.Integer({ description: 'Average hit count (rounded)' }),
    })),
    no_result_queries: Type.Array(Type.Object({ query: Type.String(), count: Type.Integer() })),
    per_day: Type.Array(Type.Object({ date: Type.String({ description: 'YYYY-MM-DD' }), searches: Type.Integer(), no_result_searches: Type.Integer() })),
    per_hour: Type.Array(Type.Object({ hour: Type.String({ description: 'Start of the UTC hour, ISO 8601' }), searches: Type.Integer() }), {
      description: 'Every hour of the range, zeros included',
    }),
  },
  { $id: 'SearchAnalyticsReport' },
);

export const SearchEvent = Type.Object({
  event_id: Type.String({
    minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$',
    description: 'The client\'s id of the event: sent again (a retry), it is counted once within 24 hours',
  }),
  type: StringEnum(['click', 'conversion'] as const),
  query_id: Type.String({ minLength: 1, maxLength: 200, description: 'The query_id of the product search answer the shopper acted on (at most 24 hours old)' }),
  product_id: Uuid({ description: 'The product clicked or bought: one of the tenant\'s (of the search\'s site when it named one)' }),
  position: Type.Optional(Type.Integer({
    minimum: 1, maximum: MAX_POSITION,
    description: 'Position of the product in the hit list, 1-based (offset + index + 1); required for a click, one its search\'s answer showed',
  })),
});

export const SearchEventsRequest = Type.Object(
  { events: Type.Array(SearchEvent, { minItems: 1, maxItems: MAX_EVENTS }) },
  { $id: 'SearchEventsRequest' },
);

export const SearchEventsResult = Type.Object(
  {
    accepted: Type.Integer({ description: 'Events counted now' }),
    duplicates: Type.Integer({ description: 'Events whose event_id was counted before (within 24 hours): not counted again' }),
  },
  { $id: 'SearchEventsResult' },
);

export const SuggestionsQuery = Type.Object({
  site_id: Type.Optional(SiteRef),
  q: Type.Optional(Type.String({ maxLength: 500, default: '', description: 'What the shopper typed so far (empty: the most popular queries)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5 })),
});

export const SuggestionsResult = Type.Object(
  { suggestions: Type.Array(Type.Object({ query: Type.String(), count: Type.Integer({ description: 'Searches in the last 30 days' }) })) },
  { $id: 'SuggestionsResult' },
);

const BlockedQuery = Type.String({
  minLength: 1, maxLength: 500, description: 'A query as typed: normalised as searches are (NFKC, lower case, whitespace collapsed, ≤ 100 characters)',
});

export const BlockSuggestionRequest = Type.Object({ query: BlockedQuery }, { $id: 'BlockSuggestionRequest', additionalProperties: false });
export const UnblockSuggestionQuery = Type.Object({ query: BlockedQuery });

export const BlockedSuggestion = Type.Object(
  { query: Type.String({ description: 'Normalised' }), blocked_at: DateTime() },
  { $id: 'BlockedSuggestion' },
);

export const BlockedSuggestions = Type.Object(
  { blocked: Type.Array(BlockedSuggestion, { description: 'Alphabetical' }) },
  { $id: 'BlockedSuggestions' },
);
