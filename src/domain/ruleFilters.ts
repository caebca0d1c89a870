// A search rule's filters added to a search's own: both must hold. Lists keep the values both
// accept, bounds the narrower one; filters no product can meet are `null` (the search then finds
// only what rules pin).
import type { Static } from '@sinclair/typebox';
import type { ProductSearchFilters } from '../schemas/search.js';

type Filters = Static<typeof ProductSearchFilters>;
type Values = string | string[];

const listOf = (v: Values): string[] => (Array.isArray(v) ? v : [v]);

/** The values of two lists both accept (case ignored), as the first list writes them; null when none. */
function bothAccept(a: Values | undefined, b: Values | undefined): string[] | undefined | null {
  if (a === undefined) return b === undefined ? undefined : listOf(b);
  if (b === undefined) return listOf(a);
  const accepted = new Set(listOf(b).map((v) => v.toLowerCase()));
  const kept = listOf(a).filter((v) => accepted.has(v.toLowerCase()));
  return kept.length > 0 ? kept : null;
}

const larger = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b));
const smaller = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

/** The deeper of two category paths when one is at or below the other; null when they part. */
function deeperPath(a: string | undefined, b: string | undefined): string | undefined | null {
  if (a === undefined || b === undefined) return a ?? b;
  const [x, y] = [a.toLowerCase().split('>').map((s) => s.trim()), b.toLowerCase().split('>').map((s) => s.trim())];
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  if (!short.every((part, i) => part === long[i])) return null;
  return x.length >= y.length ? a : b;
}

export function bothFilters(a: Filters, b: Filters): Filters | null {
  const brand = bothAccept(a.brand, b.brand);
  const availability = bothAccept(a.availability, b.availability);
  const categoryPath = deeperPath(a.category_path, b.category_path);
  if (brand === null || availability === null || categoryPath === null) return null;
  if (a.in_stock !== undefined && b.in_stock !== undefined && a.in_stock !== b.in_stock) return null;
  const attributes: Record<string, Values> = {};
  const names = new Map<string, string>();
  for (const name of [...Object.keys(a.attributes ?? {}), ...Object.keys(b.attributes ?? {})]) if (!names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
  const valueOf = (f: Filters, lower: string) => Object.entries(f.attributes ?? {}).find(([k]) => k.toLowerCase() === lower)?.[1];
  for (const [lower, name] of names) {
    const values = bothAccept(valueOf(a, lower), valueOf(b, lower));
    if (values === null) return null;
    if (values !== undefined) attributes[name] = values;
  }
  const merged: Filters = {
    brand, availability, category_path: categoryPath, in_stock: a.in_stock ?? b.in_stock,
    price_min: larger(a.price_min, b.price_min), price_max: smaller(a.price_max, b.price_max),
    rating_min: larger(a.rating_min, b.rating_min), rating_max: smaller(a.rating_max, b.rating_max),
    attributes: names.size > 0 ? attributes : undefined,
  };
  return Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as Filters;
}
