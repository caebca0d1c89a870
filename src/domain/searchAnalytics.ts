// Search analytics (DESIGN §6 merchandising): product searches counted per site and day, click
// and conversion events for a search's query_id, the report over a range of days, and query
// suggestions with the tenant's block list. Nothing kept names a shopper: no address, user agent,
// user, user_token or key is stored (distinct searchers only as keyed 4-byte tags, searcherTags.ts).
import type { Static } from '@sinclair/typebox';
import type { ErrorItem } from '../schemas/errorItem.js';
import type { Tenant } from '../schemas/records.js';
import type { AnalyticsReport as AnalyticsReportSchema, SearchEvent } from '../schemas/searchAnalytics.js';
import type { AuditActor } from '../store/audit.js';
import { ALL_SITES, MAX_BLOCKED_SUGGESTIONS, NO_SITE, type DayStats, type PlacedEvent, type SearchAnalyticsRepository } from '../store/searchAnalytics.js';
import { dayRange } from './analyticsRange.js';
import { InvalidError, NotFoundError } from './errors.js';
import type { QueryIds, ShownPositions } from './queryIds.js';
import { QuerySuggestions, type Suggestion } from './querySuggestions.js';
import { dayOf, expiryOf, normaliseQuery, type SearchCounter } from './searchCounter.js';
import type { Searcher } from './searcherTags.js';
import type { SiteService } from './sites.js';

type EventInput = Static<typeof SearchEvent>;

/** A product search as analytics counts it. */
export interface RecordedSearch {
  siteId: string | null;
  query: string;
  total: number;
  /** The positions its answer showed (its query_id carries them: a click must name one). */
  shown: ShownPositions;
  /** Who searched, where the search counts toward suggestions (null: it does not). */
  searcher: Searcher | null;
}

/** What product search asks of analytics: count this search, and its query_id (null: not counted; at once where it can). */
export interface SearchRecorder {
  record(tenant: Tenant, search: RecordedSearch): string | null | Promise<string | null>;
}

export interface ReportInput {
  siteId?: string;
  from?: string;
  to?: string;
  limit?: number;
}

export type AnalyticsReport = Static<typeof AnalyticsReportSchema>;

export interface SearchAnalyticsOptions {
  repo: SearchAnalyticsRepository;
  sites: SiteService;
  counter: SearchCounter;
  queryIds: QueryIds;
  now?: () => number;
}

export class SearchAnalyticsService implements SearchRecorder {
  private readonly repo: SearchAnalyticsRepository;
  private readonly sites: SiteService;
  private readonly counter: SearchCounter;
  private readonly queryIds: QueryIds;
  private readonly now: () => number;
  private readonly suggestions: QuerySuggestions;

  constructor(options: SearchAnalyticsOptions) {
    this.repo = options.repo;
    this.sites = options.sites;
    this.counter = options.counter;
    this.queryIds = options.queryIds;
    this.now = options.now ?? Date.now;
    this.suggestions = new QuerySuggestions(this.repo, { now: this.now });
  }

  /** Counts a product search (the tenant's setting allowing) and answers its query_id. */
  record(tenant: Tenant, { siteId, query, total, shown, searcher }: RecordedSearch): string | null | Promise<string | null> {
    if (!tenant.settings.search_analytics) return null;
    const atMs = this.now();
    const { analytics_retention_days: retentionDays, suggestion_min_searches: maxSearchers } = tenant.settings;
    this.counter.record({ tenantId: tenant.id, siteId, query: normaliseQuery(query), total, atMs, retentionDays, searcher, maxSearchers });
    const queryId = this.queryIds.issue(tenant.id, siteId, atMs, shown);
    // Without the signing key (Redis unreachable at the first search) the search is answered all the same.
    return typeof queryId === 'string' ? queryId : queryId.catch(() => null);
  }

  /** Writes the counts every second until close. */
  start(onError?: (error: unknown) => void): void {
    this.counter.start(onError);
  }

  /** Writes the counts still held. */
  close(): Promise<void> {
    return this.counter.close();
  }

  /**
   * The report of a site (absent: the tenant's) over a range of days. A bad range is an
   * InvalidError at ['from'] or ['to']; an unknown site a NotFoundError.
   */
  async report(tenant: Tenant, input: ReportInput): Promise<AnalyticsReport> {
    const range = dayRange(input.from, input.to, this.now());
    const siteId = input.siteId === undefined ? null : (await this.sites.resolve(tenant.id, input.siteId)).id;
    const bucket = siteId ?? ALL_SITES;
    const limit = input.limit ?? 10;
    const [days, top, none] = await Promise.all([
      this.repo.days(tenant.id, bucket, range.days),
      this.repo.top(tenant.id, bucket, range.days, { noResults: false, limit, minCount: 1 }),
      this.repo.top(tenant.id, bucket, range.days, { noResults: true, limit, minCount: 1 }),
    ]);
    const sum = (field: Exclude<keyof DayStats, 'hours'>) => days.reduce((s, d) => s + d[field], 0);
    const searches = sum('searches');
    const clicks = sum('clicks');
    const rate = (n: number) => (searches === 0 ? null : round(n / searches, 4));
    return {
      from: range.from,
      to: range.to,
      site_id: siteId,
      searches,
      no_result_searches: sum('no_result'),
      no_result_rate: rate(sum('no_result')),
      clicks,
      conversions: sum('conversions'),
      click_through_rate: rate(sum('clicked_searches')),
      conversion_rate: rate(sum('converted_searches')),
      average_click_position: clicks === 0 ? null : round(sum('click_position_sum') / clicks, 2),
      top_queries: byCount(top).map(({ query, count, hitSum }) => ({ query, count, hits: Math.round(hitSum / count) })),
      no_result_queries: byCount(none).map(({ query, count }) => ({ query, count })),
      per_day: days.map((d, i) => ({ date: range.days[i], searches: d.searches, no_result_searches: d.no_result })),
      per_hour: days.flatMap((d, i) => d.hours.map((searches, h) => ({ hour: `${range.days[i]}T${String(h).padStart(2, '0')}:00:00.000Z`, searches }))),
    };
  }

  /**
   * Counts click and conversion events, each on its search's day and site. All or nothing: a
   * click without a position or at one its search's answer did not show, a query_id that is not
   * one of this tenant's searches of the last 24 hours, or a product that is not the tenant's (the
   * search's site's) is an InvalidError at its place and nothing is counted. An event id counted in
   * the last 24 hours, and a search's second click (conversion) of one product, are duplicates.
   * With the tenant's analytics off nothing is counted.
   */
  async events(tenant: Tenant, events: EventInput[]): Promise<{ accepted: number; duplicates: number }> {
    const now = this.now();
    const checks = await Promise.all(events.map((e) => this.queryIds.check(tenant.id, e.query_id, now)));
    const errors: ErrorItem[] = [];
    const placed: PlacedEvent[] = [];
    events.forEach((e, i) => {
      const check = checks[i];
      if (e.type === 'click' && e.position === undefined) {
        errors.push({ loc: ['events', i, 'position'], msg: 'Field required: a click names the position of the product clicked (1 = first hit)', type: 'missing' });
      } else if (e.type === 'click' && check.ok && (e.position! < check.positions.first || e.position! > check.positions.last)) {
        const { first, last } = check.positions;
        const shown = last < first ? 'showed no hits' : `showed positions ${first}–${last}`;
        errors.push({ loc: ['events', i, 'position'], msg: `Not a position the search's answer showed: it ${shown}`, type: 'value_error' });
      }
      if (!check.ok) {
        const msg = check.why === 'expired'
          ? 'The query_id is older than 24 hours: events are taken for a day after the search'
          : "Not a query_id of this tenant's product search answers";
        errors.push({ loc: ['events', i, 'query_id'], msg, type: 'value_error' });
        return;
      }
      placed.push({
        eventId: e.event_id, type: e.type, queryId: e.query_id, day: dayOf(check.atMs), bucket: check.siteId ?? NO_SITE, siteId: check.siteId,
        productId: e.product_id.toLowerCase(), position: e.position ?? null,
      });
    });
    if (errors.length > 0) throw new InvalidError(errors);
    if (!tenant.settings.search_analytics) return { accepted: 0, duplicates: 0 };
    const retention = tenant.settings.analytics_retention_days;
    const outcome = await this.repo.events(tenant.id, placed, (day) => expiryOf(day, retention));
    if ('accepted' in outcome) return outcome;
    throw new InvalidError(outcome.unknownProducts.map((i) => ({
      loc: ['events', i, 'product_id'],
      msg: placed[i].siteId === null ? 'Not a product of this tenant' : "Not a product of the search's site",
      type: 'value_error',
    })));
  }

  /** Popular queries with results matching a typed prefix, for an autocomplete box; unknown site: NotFoundError. */
  async suggest(tenant: Tenant, input: { siteId?: string; q?: string; limit?: number }): Promise<Suggestion[]> {
    const siteId = input.siteId === undefined ? null : (await this.sites.resolve(tenant.id, input.siteId)).id;
    return this.suggestions.suggest(tenant, siteId, input.q ?? '', input.limit ?? 5);
  }

  /** The queries never suggested, alphabetical. */
  async blocked(tenant: Tenant): Promise<{ query: string; blocked_at: string }[]> {
    return (await this.repo.blocked(tenant.id)).map((b) => ({ query: b.query, blocked_at: new Date(b.blockedAtMs).toISOString() }));
  }

  /**
   * Blocks a query (normalised) from the suggestions, site-wide and tenant-wide; true when newly
   * blocked. This process suggests it no more at once, the others within a minute.
   */
  async block(tenant: Tenant, query: string, actor: AuditActor): Promise<{ blocked: { query: string; blocked_at: string }; created: boolean }> {
    const normal = normalisedOrInvalid(query);
    const { outcome, blockedAtMs } = await this.repo.block(tenant.id, normal, actor);
    if (outcome === 'full') throw InvalidError.at(['query'], `The tenant blocks ${MAX_BLOCKED_SUGGESTIONS} queries already, the most it may`, 'too_many');
    this.suggestions.forget(tenant.id);
    return { blocked: { query: normal, blocked_at: new Date(blockedAtMs!).toISOString() }, created: outcome === 'blocked' };
  }

  /** Lets a blocked query be suggested again; NotFoundError when it is not blocked. */
  async unblock(tenant: Tenant, query: string, actor: AuditActor): Promise<void> {
    if (!(await this.repo.unblock(tenant.id, normalisedOrInvalid(query), actor))) throw new NotFoundError('The query is not blocked');
    this.suggestions.forget(tenant.id);
  }
}

/** A query in its normal form; one without a character left is an InvalidError at ['query']. */
function normalisedOrInvalid(query: string): string {
  const normal = normaliseQuery(query);
  if (normal === '') throw InvalidError.at(['query'], 'The query is empty once normalised (whitespace only)', 'value_error');
  return normal;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Most searched first, ties alphabetical. */
const byCount = <T extends { query: string; count: number }>(list: T[]): T[] =>
  [...list].sort((a, b) => b.count - a.count || (a.query < b.query ? -1 : a.query > b.query ? 1 : 0));
