// What a product search can count and summarise, the same on both engines: value facets by name
// (brand, category, availability, a level of the category path, an attribute the tenant made
// facetable) and the numeric fields answered as facets_stats. A category written as a path
// ("Herren > Jacken > Regenjacken") facets by level, as InstantSearch's hierarchicalMenu reads it
// (category.lvl0 "Herren", category.lvl1 "Herren > Jacken", …), and filters by path.
import { CATEGORY_LEVELS, PRODUCT_FACETS, STAT_FIELDS } from '../schemas/search.js';
import { fold } from './analysis.js';

export { CATEGORY_LEVELS, STAT_FIELDS } from '../schemas/search.js';

/** The fields a product search has value counts of besides attributes and category levels. */
export const PLAIN_FACETS = PRODUCT_FACETS;
export type PlainFacet = (typeof PLAIN_FACETS)[number];
export type StatField = (typeof STAT_FIELDS)[number];

export type FacetName = PlainFacet | `category.lvl${number}` | `attributes.${string}`;

/** What a facet name counts. */
export type Facet =
  | { kind: 'plain'; name: PlainFacet }
  | { kind: 'level'; name: FacetName; level: number }
  | { kind: 'attribute'; name: FacetName; attribute: string };

const LEVEL = /^category\.lvl(\d)$/;
const ATTRIBUTE = 'attributes.';

/** A facet name as the request gives it (null: no such facet). The attribute's name is lower-cased, as filters compare it. */
export function parseFacet(name: string): Facet | null {
  if ((PLAIN_FACETS as readonly string[]).includes(name)) return { kind: 'plain', name: name as PlainFacet };
  const level = LEVEL.exec(name);
  if (level) return Number(level[1]) < CATEGORY_LEVELS ? { kind: 'level', name: name as FacetName, level: Number(level[1]) } : null;
  if (name.startsWith(ATTRIBUTE) && name.length > ATTRIBUTE.length) return { kind: 'attribute', name: name as FacetName, attribute: name.slice(ATTRIBUTE.length).toLowerCase() };
  return null;
}

export const isStatField = (name: string): name is StatField => (STAT_FIELDS as readonly string[]).includes(name);

/** The separator of a category path's levels. */
export const PATH_SEPARATOR = '>';

/** A category's levels as facet values: the path up to each level, as written, parts joined by " > " (at most CATEGORY_LEVELS). */
export function categoryLevels(category: string | null): string[] {
  if (!category) return [];
  const parts = category.split(PATH_SEPARATOR).map((p) => p.trim()).filter(Boolean);
  return parts.slice(0, CATEGORY_LEVELS).map((_, i) => parts.slice(0, i + 1).join(' > '));
}

/** Every path a category is at or below, lower-case (a category_path filter matches any): "herren", "herren > jacken", … */
export function categoryPaths(category: string | null): string[] {
  if (!category) return [];
  const parts = category.split(PATH_SEPARATOR).map((p) => p.trim().toLowerCase()).filter(Boolean);
  return parts.map((_, i) => parts.slice(0, i + 1).join(' > '));
}

/** A category_path filter as categoryPaths writes a path. */
export const pathFilter = (path: string): string => categoryPaths(path).at(-1) ?? '';

/** Whether a facet value matches a typed prefix (facet value search): the value's start or a word's, case and diacritics folded. */
export function matchesPrefix(value: string, prefix: string): boolean {
  const p = fold(prefix.trim().toLowerCase());
  if (!p) return true;
  const v = fold(value.toLowerCase());
  if (v.startsWith(p)) return true;
  for (const word of v.split(/[^\p{L}\p{N}]+/u)) if (word.startsWith(p)) return true;
  return false;
}
