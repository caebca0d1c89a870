// Facet counts as both engines answer them: the most frequent values of each facet over the
// documents a search matches, exact while it matches at most a bound of documents; beyond it,
// counted over the first `limit` of them and scaled to all (the answer's facets_exhaustive false),
// as Algolia's exhaustiveFacetsCount and Typesense's facet sampling do, so that a broad query on a
// large catalogue costs what a narrow one costs.
import type { FacetCount } from './engine.js';

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

/** A facet's list: the values counted, scaled, most frequent first (ties by value), the first FACET_VALUES. */
export function facetList(counts: Iterable<[value: string, count: number]>, { scale }: FacetSample): FacetCount[] {
  const list: FacetCount[] = [];
  for (const [value, count] of counts) if (count > 0) list.push({ value, count: scale === 1 ? count : Math.max(1, Math.round(count * scale)) });
  return list.sort((a, b) => b.count - a.count || a.value.localeCompare(b.value)).slice(0, FACET_VALUES);
}
