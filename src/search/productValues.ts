// How both engines read a product's values for filters: in stock or not, exact codes (sku, gtin)
// and attribute values, so that the same product matches the same filters whichever engine runs.
import { fold } from './analysis.js';

/** Availability values that mean "can be bought now" (schema.org names, common shop values, German). */
const IN_STOCK = new Set(['instock', 'available', 'limitedavailability', 'onstock', 'lieferbar', 'sofortlieferbar', 'auflager', 'verfugbar']);

/** Availability value → in stock: a catalogue uses a handful of values, each decided once. */
const inStockOf = new Map<string, boolean>();
const IN_STOCK_MEMO = 1000;

export const isInStock = (availability: string | null): boolean => {
  if (!availability) return false;
  let known = inStockOf.get(availability);
  if (known === undefined) {
    const norm = fold(availability).replace(/[^a-z]/g, '');
    known = IN_STOCK.has(norm) || norm.endsWith('schemaorginstock');
    if (inStockOf.size >= IN_STOCK_MEMO) inStockOf.clear();
    inStockOf.set(availability, known);
  }
  return known;
};

/** The exact-match form of a code (sku, gtin) and of a query compared with it. */
export const codeKey = (code: string): string => code.toLowerCase().replace(/[\s-]+/g, '');

/** The codes a query may be: itself, or any of its words. */
export const queryCodes = (query: string): string[] => [...new Set([codeKey(query), ...query.split(/\s+/).map(codeKey)])].filter(Boolean);

/**
 * Attributes as flat pairs: lower-case name, lower-case scalar value, … (a list-valued attribute
 * gives a pair for each element). A name given twice in different case keeps the last one's values.
 */
export function attributePairs(attributes: Record<string, unknown>): string[] {
  // Loops rather than entries/filter/map: every indexed write of a product runs this.
  const out: string[] = [];
  for (const key in attributes) {
    const value = attributes[key];
    const name = key.toLowerCase();
    const start = out.length;
    if (Array.isArray(value)) {
      for (const v of value) if (isScalar(v)) out.push(name, String(v).toLowerCase());
    } else if (isScalar(value)) {
      out.push(name, String(value).toLowerCase());
    }
    if (out.length > start) dropPairs(out, name, start);
  }
  return out;
}

/** Attribute name → lower-case scalar values (attributePairs grouped by name). */
export function attributeValues(attributes: Record<string, unknown>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const pairs = attributePairs(attributes);
  for (let i = 0; i < pairs.length; i += 2) {
    const list = out.get(pairs[i]);
    if (list) list.push(pairs[i + 1]);
    else out.set(pairs[i], [pairs[i + 1]]);
  }
  return out;
}

const isScalar = (v: unknown): boolean => v !== null && typeof v !== 'object';

/** Removes a name's pairs before `end`: an attribute of the same name in other case with values replaces them. */
function dropPairs(pairs: string[], name: string, end: number): void {
  let r = 0;
  while (r < end && pairs[r] !== name) r += 2;
  if (r === end) return;
  let w = r;
  for (; r < pairs.length; r += 2) {
    if (r < end && pairs[r] === name) continue;
    pairs[w++] = pairs[r];
    pairs[w++] = pairs[r + 1];
  }
  pairs.length = w;
}
