// Facet counts as both engines answer them: the most frequent values of each facet over the
// documents a search matches, exact while it matches at most a bound of documents; beyond it,
// counted over the first `limit` of them and scaled to all (the answer's facets_exhaustive false),
// as Algolia's exhaustiveFacetsCount and Typesense's facet sampling do, so that a broad query on a
// large catalogue costs what a narrow one costs.
import type { FacetCount, FacetStats } from './engine.js';

/** Values listed per facet, most frequent first. */
export const FACET_VALUES = 50;

/** Facets are counted exactly over at most this many matching documents (ProductSearch.facetExactLimit). */
export const FACET_EXACT_LIMIT = 10_000;

/** How a facet count over `counted` of `matched` documents stands for all of them. */
export interface FacetSample {
  exhaustive: boolean;
  /** What a count is multiplied by. */
  scale: number;
}

export function facetSample(matched: number, counted: number): FacetSample {
  return counted >= matched || counted === 0 ? { exhaustive: true, scale: 1 } : { exhaustive: false, scale: matched / counted };
}

/** A facet's list: the values counted, scaled, most frequent first (ties by value), the first `values`. */
export function facetList(counts: Iterable<[value: string, count: number]>, { scale }: FacetSample, values = FACET_VALUES): FacetCount[] {
  const list: FacetCount[] = [];
  for (const [value, count] of counts) if (count > 0) list.push({ value, count: scale === 1 ? count : Math.max(1, Math.round(count * scale)) });
  return list.sort((a, b) => b.count - a.count || a.value.localeCompare(b.value)).slice(0, values);
}

/** Min, max and average of a field's values over the matches that have it (rounded to cents: prices and ratings). */
export function statsOf(values: readonly number[]): FacetStats {
  if (values.length === 0) return { min: null, max: null, avg: null, count: 0 };
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  return { min, max, avg: roundCents(sum / values.length), count: values.length };
}

export const roundCents = (n: number): number => Math.round(n * 100) / 100;
