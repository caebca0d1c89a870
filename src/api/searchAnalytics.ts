// Search analytics over HTTP (DESIGN §6 merchandising): the report (catalog:read or admin), click
// and conversion events and query suggestions (storefront: a search-only key from the origins it
// lists, events rate limited per key and address and per key), and the queries blocked from the
// suggestions (admin).
import type { ApiKeyService } from '../domain/apiKeys.js';
import { InvalidError } from '../domain/errors.js';
import type { SearchAnalyticsService } from '../domain/searchAnalytics.js';
import type { Principal } from '../domain/types.js';
import { HttpError } from '../http/errors.js';
import { defineRoute, json, noContent, type IncomingRequest, type Route } from '../http/route.js';
import type { Tenant } from '../schemas/records.js';
import {
  AnalyticsQuery, AnalyticsReport, BlockedSuggestion, BlockedSuggestions, BlockSuggestionRequest, MAX_EVENTS, SearchEventsRequest, SearchEventsResult,
  SuggestionsQuery, SuggestionsResult, UnblockSuggestionQuery,
} from '../schemas/searchAnalytics.js';
import { MAX_BLOCKED_SUGGESTIONS } from '../store/searchAnalytics.js';
import { actorOf } from './actor.js';

const tags = ['search analytics'];
const PATH = '/api/knowledge/search';
const storefront = { anyOf: ['catalog:read', 'search'] } as const;
const admin = { scopes: ['admin' as const] };
const CORS_NOTE = ' Readable cross-origin from the origins the API key lists in allowed_origins (CORS).';

export interface SearchAnalyticsDeps {
  analytics: SearchAnalyticsService;
  /** The token buckets of the events' rate limit (store/lua/takeToken-1.lua). */
  apiKeys: ApiKeyService;
}

export function searchAnalyticsRoutes({ analytics, apiKeys }: SearchAnalyticsDeps): Route[] {
  return [
    defineRoute({
      method: 'GET', path: `${PATH}/analytics`, tags, summary: 'Search analytics of a site or the tenant',
      description: 'Product searches of the days from–to (inclusive, UTC; default the last 7 days up to today; at most 92 days): searches, ' +
        'those without results, clicks and conversions sent for their query_id, click-through and conversion rate (searches with at ' +
        'least one click / conversion over searches; null without searches), the average click position, the most searched queries ' +
        'with their average hit count and those without results (limit each), and searches per day and per hour (every hour, zeros included). ' +
        'site_id (UUID or slug; unknown → 404) narrows it to that site. Searches reach the counts within about a second.',
      auth: { anyOf: ['admin', 'catalog:read'] },
      query: AnalyticsQuery,
      responses: { 200: { description: 'The report', schema: AnalyticsReport } },
      errors: [404],
      handler: async ({ tenant, query }) =>
        json(200, await inQuery(() => analytics.report(tenant, { siteId: query.site_id, from: query.from, to: query.to, limit: query.limit }))),
    }),
    defineRoute({
      method: 'POST', path: `${PATH}/events`, tags, summary: 'Send click and conversion events for searches',
      description: `1–${MAX_EVENTS} events, each {event_id, type: click | conversion, query_id, product_id, position}: query_id from a ` +
        'product search answer of the last 24 hours, product_id a product of the tenant (of the search\'s site when it named one), ' +
        'position the 1-based place of the product in its hits, one the answer showed (required for a click). All or nothing: any ' +
        'bad event is a 422 at its place and none is counted. A search counts one click and one conversion per product; an ' +
        'event_id counted in the last 24 hours is counted once; further ones are duplicates, so a request may be retried safely. ' +
        'A caller without catalog:read (a search-only key) is limited to the tenant\'s search_events_rate_per_s per key and ' +
        'address and search_events_key_rate_per_s per key (429 with Retry-After).' + CORS_NOTE,
      auth: storefront,
      cors: 'key',
      body: SearchEventsRequest,
      responses: { 200: { description: 'Events counted now and those counted before', schema: SearchEventsResult } },
      errors: [429],
      handler: async ({ tenant, principal, body, req }) => {
        await limitEvents(apiKeys, tenant, principal, req);
        return json(200, await analytics.events(tenant, body.events));
      },
    }),
    defineRoute({
      method: 'GET', path: `${PATH}/suggestions`, tags, summary: 'Query suggestions for an autocomplete box',
      description: 'Queries of the last 30 days (site_id: that site\'s, UUID or slug, unknown → 404; absent: the tenant\'s) that found ' +
        'products on average and were searched by at least suggestion_min_searches distinct searchers (a key and address, or a ' +
        'user_token, counts once a day; only first pages with hits, at the model\'s similarity floor), not blocked, whose text starts ' +
        'with q or has a word that does (case and spacing ignored); most searched first. An empty q answers the most searched. ' +
        'Current within a minute.' + CORS_NOTE,
      auth: storefront,
      cors: 'key',
      query: SuggestionsQuery,
      responses: { 200: { description: 'The suggestions', schema: SuggestionsResult } },
      errors: [404],
      handler: async ({ tenant, query }) =>
        json(200, { suggestions: await analytics.suggest(tenant, { siteId: query.site_id, q: query.q, limit: query.limit }) }),
    }),
    defineRoute({
      method: 'GET', path: `${PATH}/suggestions/blocked`, tags, summary: 'List the queries blocked from the suggestions',
      auth: admin,
      responses: { 200: { description: 'The blocked queries, alphabetical', schema: BlockedSuggestions } },
      handler: async ({ tenant }) => json(200, { blocked: await analytics.blocked(tenant) }),
    }),
    defineRoute({
      method: 'POST', path: `${PATH}/suggestions/blocked`, tags, summary: 'Block a query from the suggestions',
      description: 'The query, normalised as searches are (exact match), is never suggested, for any site or the tenant: at once from ' +
        `this server, within a minute from the others. At most ${MAX_BLOCKED_SUGGESTIONS.toLocaleString('en')} a tenant (422 beyond). ` +
        '201 when blocked now, 200 when it was already.',
      auth: admin,
      body: BlockSuggestionRequest,
      responses: { 200: { description: 'Blocked already', schema: BlockedSuggestion }, 201: { description: 'Blocked', schema: BlockedSuggestion } },
      handler: async ({ tenant, principal, body, req }) => {
        const { blocked, created } = await analytics.block(tenant, body.query, actorOf(principal, req));
        return json(created ? 201 : 200, blocked);
      },
    }),
    defineRoute({
      method: 'DELETE', path: `${PATH}/suggestions/blocked`, tags, summary: 'Let a blocked query be suggested again',
      description: 'query as blocked (normalised the same way); not blocked → 404.',
      auth: admin,
      query: UnblockSuggestionQuery,
      responses: { 204: { description: 'Unblocked' } },
      errors: [404],
      handler: async ({ tenant, principal, query, req }) => {
        await inQuery(() => analytics.unblock(tenant, query.query, actorOf(principal, req)));
        return noContent();
      },
    }),
  ];
}

/** The domain's field paths as query parameters (its InvalidError would name the body). */
async function inQuery<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof InvalidError) throw new HttpError(422, error.errors.map((e) => ({ ...e, loc: ['query', ...e.loc] })));
    throw error;
  }
}

/**
 * A search-only key is public (any page may carry it): its events are limited per key and
 * caller address (req.remoteAddress: behind a proxy, the proxy's), so that one page's visitor
 * cannot flood the counts, and per key across addresses, so that many addresses cannot either.
 */
async function limitEvents(apiKeys: ApiKeyService, tenant: Tenant, principal: Principal, req: IncomingRequest): Promise<void> {
  if (principal.scopes.has('catalog:read')) return;
  const { search_events_rate_per_s: perAddress, search_events_key_rate_per_s: perKey } = tenant.settings;
  const take = (bucket: string, rate: number) => (rate > 0 ? apiKeys.takeToken(tenant.id, bucket, rate) : 0);
  const [addressWaitMs, keyWaitMs] = await Promise.all([
    take(`search-events:${principal.credentialId}:${req.remoteAddress}`, perAddress),
    take(`search-events:${principal.credentialId}`, perKey),
  ]);
  const waitMs = Math.max(addressWaitMs, keyWaitMs);
  if (waitMs > 0) {
    const limit = addressWaitMs > 0 ? `${perAddress} event requests per second per search key and address` : `${perKey} event requests per second per search key`;
    throw new HttpError(429, `Rate limit exceeded: ${limit}`, { 'Retry-After': String(Math.max(1, Math.ceil(waitMs / 1000))) });
  }
}
