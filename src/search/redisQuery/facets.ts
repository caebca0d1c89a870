// Facet counts and stats on the Redis Query Engine: one FT.AGGREGATE … GROUPBY per asked field
// facet, and one for all asked attribute facets, over the documents a keyword query matches, sent
// beside the search itself (the query is known before it runs), over at most the first `limit`
// matches in the index's order (search/facets.ts: beyond them the counts are scaled and not
// exhaustive); and over the documents found apart from that query (sku/gtin codes, semantic
// candidates), by id. A field's values group as they are (brand, category, availability, a
// category level); attributes' come from the product's written `name=value` pairs, split once and
// kept for the asked names; a numeric field's stats are one GROUPBY 0 over the matches that have it.
// A search's facets are these parts added up (ofSearch): every word's matches, the partial tier's,
// and the documents found apart.
import type { FacetCount, FacetName, FacetStats, SearchResult, StatField } from '../engine.js';
import { FACET_VALUES, facetList, facetSample, roundCents, type FacetSample } from '../facets.js';
import { matchesPrefix, parseFacet, type Facet, type PlainFacet } from '../productFacets.js';
import type { IndexCommands } from './commands.js';
import { all, tagAny } from './query.js';
import { F, levelField, type Collection } from './schema.js';
import type { FoundHits } from './sortedSearch.js';

/** The hash field each plain facet's values are grouped by (the value as written, for display). */
const FACET_FIELD: Record<PlainFacet, string> = { brand: 'brand_v', category: 'category_v', availability: 'avail_v' };
const STAT_FIELD: Record<StatField, string> = { price_current: 'price', rating_average: 'rating' };

/** Per asked facet: value → count. */
export type ValueCounts = Map<string, number>[];

/** Per asked stat field: what adds up over parts of the matches. */
export type StatSums = { min: number; max: number; sum: number; count: number }[];

/** The counts and stats over a partial tier's matches (FacetCounter.ofTier), and its query. */
export interface TierCounts {
  query: string;
  counts: ValueCounts | null;
  stats: StatSums | null;
}

/** What a search asks to be counted, and under which filter (engine.ts SearchScope). */
export interface FacetScope {
  filter: string;
  facets: FacetName[];
  stats: StatField[];
  /** Facet value search: values matching this prefix, the first `facetValues`. */
  facetPrefix?: string;
  facetValues?: number;
}

/** An expression string of FT.AGGREGATE (APPLY, FILTER): quotes and backslashes escaped. */
const quoted = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

export class FacetCounter {
  constructor(private readonly ft: IndexCommands) {}

  /**
   * The facets of a search whose counts over every word's matches are in (or, for a semantic
   * search, not asked for): the partial tier's matches and the documents found apart added.
   */
  async ofSearch(
    c: Collection, scope: FacetScope,
    { keyword, matched, matchingCounts, matchingStats, top, limit, extra, partialAhead = null }: FoundHits & {
      matched: string | null | undefined; matchingCounts: ValueCounts | null; matchingStats: StatSums | null; top: number | null; limit: number;
      /** The counts of the partial tier expected ahead (ofTier), used where that tier ran. */
      partialAhead?: TierCounts | null;
    },
  ): Promise<Pick<SearchResult, 'facets' | 'facetsExhaustive' | 'facetsStats'>> {
    const partial = keyword?.partial ?? null;
    const fullTotal = (keyword?.total ?? 0) - (partial?.total ?? 0);
    // Counts added together need every value: those of the partial tier, of a code outside the query's matches (rare).
    const adding = top !== null && (extra.length > 0 || partial !== null);
    const counting = scope.facets.length > 0;
    const stats = scope.stats.length > 0;
    const partialQuery = partial ? all(partial.expr, scope.filter) : null;
    const ahead = partialAhead && partialAhead.query === partialQuery ? partialAhead : null;
    const [counts, partialCounts, others, partialStats, otherStats] = await Promise.all([
      counting && adding && matched ? this.matching(c, matched, scope.facets, { limit, top: null }) : matchingCounts,
      ahead ? ahead.counts : counting && partialQuery ? this.matching(c, partialQuery, scope.facets, { limit, top: null }) : null,
      counting && extra.length > 0 ? this.ofIds(c, extra, scope.facets) : null,
      ahead ? ahead.stats : stats && partialQuery ? this.stats(c, partialQuery, scope.stats, limit) : null,
      stats && extra.length > 0 ? this.statsOfIds(c, extra, scope.stats) : null,
    ]);
    const fullSample = facetSample(fullTotal, Math.min(fullTotal, limit));
    const partialSample = partial ? facetSample(partial.total, Math.min(partial.total, limit)) : null;
    const parts = [{ counts, sample: fullSample }];
    if (partialSample) parts.push({ counts: partialCounts, sample: partialSample });
    const exact = { exhaustive: true, scale: 1 };
    const statParts = [{ sums: matchingStats, sample: fullSample }, { sums: partialStats, sample: partialSample ?? exact }, { sums: otherStats, sample: exact }];
    return {
      facets: counting ? facetLists(scope.facets, parts, others, { prefix: scope.facetPrefix, values: scope.facetValues }) : {},
      facetsExhaustive: parts.every((p) => p.sample.exhaustive),
      ...(stats ? { facetsStats: statsLists(scope.stats, statParts) } : {}),
    };
  }

  /** The counts and stats a search asks for over the matches of a partial tier's query (with its filter). */
  async ofTier(c: Collection, scope: FacetScope, query: string, limit: number): Promise<TierCounts> {
    const [counts, stats] = await Promise.all([
      scope.facets.length > 0 ? this.matching(c, query, scope.facets, { limit, top: null }) : null,
      scope.stats.length > 0 ? this.stats(c, query, scope.stats, limit) : null,
    ]);
    return { query, counts, stats };
  }

  /**
   * Value counts over the first `limit` documents `query` matches; the `top` most frequent only
   * (more than are listed, for ties), or every value where counts are to be added to others.
   */
  async matching(c: Collection, query: string, wanted: FacetName[], { limit, top }: { limit: number; top: number | null }): Promise<ValueCounts> {
    const facets = wanted.map((name) => parseFacet(name)!);
    const attributes = facets.flatMap((f) => (f.kind === 'attribute' ? [f.attribute] : []));
    // Every attribute facet from one pass over the matches: splitting the written pairs is most of the work.
    const byAttribute = attributes.length > 0 ? this.attributeCounts(c, query, attributes, limit) : null;
    return Promise.all(facets.map(async (facet) => (facet.kind === 'attribute' ? (await byAttribute!).get(facet.attribute)! : this.countsOf(c, query, facet, { limit, top }))));
  }

  /** Value counts over the documents of these ids (every value). */
  async ofIds(c: Collection, ids: string[], wanted: FacetName[]): Promise<ValueCounts> {
    if (ids.length === 0) return wanted.map(() => new Map());
    return this.matching(c, tagAny(F.id, ids), wanted, { limit: ids.length, top: null });
  }

  /** Min, max, sum and count of each field over the first `limit` matches of `query` that have it. */
  async stats(c: Collection, query: string, fields: StatField[], limit: number): Promise<StatSums> {
    return Promise.all(fields.map(async (name) => {
      const field = STAT_FIELD[name];
      const reply = await this.ft.aggregate(c, all(query, `@${field}:[-inf +inf]`), {
        limit, pipeline: ['GROUPBY', '0', 'REDUCE', 'MIN', '1', `@${field}`, 'AS', 'min', 'REDUCE', 'MAX', '1', `@${field}`, 'AS', 'max',
          'REDUCE', 'SUM', '1', `@${field}`, 'AS', 'sum', 'REDUCE', 'COUNT', '0', 'AS', 'count'],
      });
      const row = reply.rows[0]?.fields;
      const count = Number(row?.get('count') ?? 0);
      return count > 0 ? { min: Number(row!.get('min')), max: Number(row!.get('max')), sum: Number(row!.get('sum')), count } : { min: Infinity, max: -Infinity, sum: 0, count: 0 };
    }));
  }

  /** Stats over the documents of these ids. */
  async statsOfIds(c: Collection, ids: string[], fields: StatField[]): Promise<StatSums> {
    if (ids.length === 0) return fields.map(() => ({ min: Infinity, max: -Infinity, sum: 0, count: 0 }));
    return this.stats(c, tagAny(F.id, ids), fields, ids.length);
  }

  private async countsOf(c: Collection, query: string, facet: Exclude<Facet, { kind: 'attribute' }>, { limit, top }: { limit: number; top: number | null }): Promise<Map<string, number>> {
    const key = facet.kind === 'plain' ? FACET_FIELD[facet.name] : levelField(facet.level);
    const which = top ? ['SORTBY', '4', '@count', 'DESC', `@${key}`, 'ASC', 'MAX', String(top)] : ['LIMIT', '0', '1000000'];
    const reply = await this.ft.aggregate(c, query, { limit, pipeline: ['GROUPBY', '1', `@${key}`, 'REDUCE', 'COUNT', '0', 'AS', 'count', ...which] });
    const out = new Map<string, number>();
    for (const row of reply.rows) {
      const value = row.fields.get(key);
      if (value) out.set(value, (out.get(value) ?? 0) + Number(row.fields.get('count')));
    }
    return out;
  }

  /**
   * Per attribute, its values' counts: the written `name=value` pairs split, grouped, and those of
   * the asked names kept (every value: the most frequent of each name cannot be cut in one list).
   */
  private async attributeCounts(c: Collection, query: string, names: string[], limit: number): Promise<Map<string, Map<string, number>>> {
    const prefixes = names.map((name) => `${name}=`);
    const kept = prefixes.map((p) => `startswith(@value, ${quoted(p)})`).join(' || ');
    const pipeline = ['FILTER', 'exists(@attrs_v)', 'APPLY', 'split(@attrs_v, ";")', 'AS', 'value', 'GROUPBY', '1', '@value', 'REDUCE', 'COUNT', '0', 'AS', 'count',
      'FILTER', kept, 'LIMIT', '0', '1000000'];
    const reply = await this.ft.aggregate(c, query, { limit, pipeline });
    const out = new Map(names.map((name) => [name, new Map<string, number>()]));
    for (const row of reply.rows) {
      const pair = row.fields.get('value');
      const at = pair === undefined ? -1 : prefixes.findIndex((p) => pair.startsWith(p));
      if (at < 0) continue;
      const value = pair!.slice(prefixes[at].length);
      const counts = out.get(names[at])!;
      if (value) counts.set(value, (counts.get(value) ?? 0) + Number(row.fields.get('count')));
    }
    return out;
  }
}

/**
 * The facets' lists: counts over the matching documents, in parts (each scaled as sampled), plus
 * those over other documents; only values matching `prefix` (facet value search), the first `values`.
 */
export function facetLists(
  wanted: FacetName[], parts: { counts: ValueCounts | null; sample: FacetSample }[], others: ValueCounts | null,
  { prefix, values = FACET_VALUES }: { prefix?: string; values?: number } = {},
): Partial<Record<FacetName, FacetCount[]>> {
  const out: Partial<Record<FacetName, FacetCount[]>> = {};
  wanted.forEach((name, f) => {
    const sum = new Map<string, number>();
    const add = (value: string, n: number) => sum.set(value, (sum.get(value) ?? 0) + n);
    for (const { counts, sample } of parts) {
      for (const [value, n] of counts?.[f] ?? []) add(value, sample.scale === 1 ? n : Math.max(1, Math.round(n * sample.scale)));
    }
    for (const [value, n] of others?.[f] ?? []) add(value, n);
    // A value written in different cases is one value (filters ignore case): the most frequent spelling stands for it.
    const merged = mergeCases(sum);
    out[name] = facetList(prefix ? [...merged].filter(([value]) => matchesPrefix(value, prefix)) : merged, { exhaustive: true, scale: 1 }, values);
  });
  return out;
}

function mergeCases(counts: Map<string, number>): Map<string, number> {
  const byLower = new Map<string, { value: string; best: number; total: number }>();
  for (const [value, n] of counts) {
    const key = value.toLowerCase();
    const seen = byLower.get(key);
    if (!seen) byLower.set(key, { value, best: n, total: n });
    else {
      seen.total += n;
      if (n > seen.best) Object.assign(seen, { value, best: n });
    }
  }
  return new Map([...byLower.values()].map((v) => [v.value, v.total]));
}

/** Stats over parts of the matches (each scaled as sampled: its count), as answered. */
export function statsLists(fields: StatField[], parts: { sums: StatSums | null; sample: FacetSample }[]): Partial<Record<StatField, FacetStats>> {
  const out: Partial<Record<StatField, FacetStats>> = {};
  fields.forEach((name, f) => {
    let min = Infinity;
    let max = -Infinity;
    let sum = 0;
    let counted = 0;
    let count = 0;
    for (const { sums, sample } of parts) {
      const s = sums?.[f];
      if (!s || s.count === 0) continue;
      min = Math.min(min, s.min);
      max = Math.max(max, s.max);
      sum += s.sum;
      counted += s.count;
      count += sample.scale === 1 ? s.count : Math.round(s.count * sample.scale);
    }
    out[name] = counted === 0 ? { min: null, max: null, avg: null, count: 0 } : { min, max, avg: roundCents(sum / counted), count };
  });
  return out;
}
