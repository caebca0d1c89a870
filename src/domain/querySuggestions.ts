// Query suggestions for an autocomplete box: popular queries of the last 30 days that found
// something, searched by enough distinct searchers that none is one shopper's own
// (suggestion_min_searches; domain/searchCounter.ts counts each searcher once a day), and not
// blocked by the tenant, matched by prefix. The candidates of a tenant and site are read once a
// minute per process (at once after this process changed the tenant's block list).
import type { Tenant } from '../schemas/records.js';
import { ALL_SITES, type SearchAnalyticsRepository, type TopQuery } from '../store/searchAnalytics.js';
import { dayOf, normaliseQuery } from './searchCounter.js';

export const SUGGESTION_DAYS = 30;
/** The most searched queries a tenant and site offer as suggestions. */
const CANDIDATES = 1000;
const DAY_MS = 86_400_000;

export interface Suggestion {
  query: string;
  count: number;
}

export interface QuerySuggestionsOptions {
  ttlMs?: number;
  /** Tenants and sites cached at once (the oldest go first). */
  maxEntries?: number;
  now?: () => number;
}

export class QuerySuggestions {
  private readonly cache = new Map<string, { until: number; candidates: Promise<Suggestion[]> }>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(private readonly repo: SearchAnalyticsRepository, options: QuerySuggestionsOptions = {}) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * The most searched candidates whose text starts with the normalised prefix or has a word that
   * does (an empty prefix: the most searched), at most `limit`. `siteId` null: the whole tenant's.
   */
  async suggest(tenant: Tenant, siteId: string | null, prefix: string, limit: number): Promise<Suggestion[]> {
    if (!tenant.settings.search_analytics) return [];
    const wanted = normaliseQuery(prefix);
    const candidates = await this.candidates(tenant, siteId ?? ALL_SITES);
    const found: Suggestion[] = [];
    for (const c of candidates) {
      if (wanted === '' || c.query.startsWith(wanted) || c.query.includes(` ${wanted}`)) found.push(c);
      if (found.length === limit) break;
    }
    return found;
  }

  private candidates(tenant: Tenant, bucket: string): Promise<Suggestion[]> {
    const minCount = tenant.settings.suggestion_min_searches;
    const key = `${tenant.id} ${bucket} ${minCount}`;
    const now = this.now();
    const hit = this.cache.get(key);
    if (hit && hit.until > now) return hit.candidates;
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const days = Array.from({ length: SUGGESTION_DAYS }, (_, i) => dayOf(today - i * DAY_MS));
    const candidates = this.repo.suggestionCandidates(tenant.id, bucket, days, { limit: CANDIDATES, minSearchers: minCount }).then(suggestable);
    // A failed read is not kept.
    candidates.catch(() => this.cache.delete(key));
    this.cache.delete(key);
    this.cache.set(key, { until: now + this.ttlMs, candidates });
    if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    return candidates;
  }

  /** Drops the tenant's cached candidates (its block list changed). */
  forget(tenantId: string): void {
    const prefix = `${tenantId} `;
    for (const key of [...this.cache.keys()]) if (key.startsWith(prefix)) this.cache.delete(key);
  }
}

/** Those that found something on average, most searched first (ties alphabetical). */
function suggestable(top: TopQuery[]): Suggestion[] {
  return top
    .filter((q) => q.hitSum > 0)
    .map(({ query, count }) => ({ query, count }))
    .sort((a, b) => b.count - a.count || (a.query < b.query ? -1 : a.query > b.query ? 1 : 0));
}
