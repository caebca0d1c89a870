// The order of a sorted product search, the same on both engines: up to three fields, each
// ascending or descending, ties going to the next field and at last to relevance. A product
// without the field comes after those with it in either direction (as Typesense and Meilisearch
// do). Sorting orders each tier of the hit list (every query word; enough words; in hybrid the
// candidates only semantic search found) and leaves the tiers in place, so that "rote jacke" by
// price lists the red jackets by price before the other jackets.
import type { SORT_FIELDS } from '../schemas/search.js';
import { fold } from './analysis.js';

export type SortField = (typeof SORT_FIELDS)[number];

export interface SortKey {
  field: SortField | 'relevance';
  direction: 'asc' | 'desc';
}

/** A title as sorted: case and diacritics folded, so "Äpfel" sorts with "apfel". */
export const sortTitle = (title: string): string => fold(title.toLowerCase()).trim();

/** The keys that order hits beyond relevance (a trailing relevance key orders nothing relevance would not). */
export function fieldKeys(sort: readonly SortKey[] | undefined): SortKey[] {
  const keys: SortKey[] = [];
  for (const key of sort ?? []) {
    if (key.field === 'relevance') break;
    keys.push(key);
  }
  return keys;
}

/** Compares two values of one key: missing (null/NaN) after present in either direction; 0 when equal. */
export function compareValues(a: number | string | null, b: number | string | null, direction: SortKey['direction']): number {
  const aMissing = a === null || (typeof a === 'number' && Number.isNaN(a));
  const bMissing = b === null || (typeof b === 'number' && Number.isNaN(b));
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  if (a === b) return 0;
  const less = a! < b!;
  return direction === 'asc' ? (less ? -1 : 1) : less ? 1 : -1;
}
