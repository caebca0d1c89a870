// How both engines read a product's values for filters: in stock or not, exact codes (sku, gtin)
// and attribute values, so that the same product matches the same filters whichever engine runs.
import { fold } from './analysis.js';

/** Availability values that mean "can be bought now" (schema.org names, common shop values, German). */
const IN_STOCK = new Set(['instock', 'available', 'limitedavailability', 'onstock', 'lieferbar', 'sofortlieferbar', 'auflager', 'verfugbar']);

export const isInStock = (availability: string | null): boolean => {
  if (!availability) return false;
  const norm = fold(availability).replace(/[^a-z]/g, '');
  return IN_STOCK.has(norm) || norm.endsWith('schemaorginstock');
};

/** The exact-match form of a code (sku, gtin) and of a query compared with it. */
export const codeKey = (code: string): string => code.toLowerCase().replace(/[\s-]+/g, '');

/** The codes a query may be: itself, or any of its words. */
export const queryCodes = (query: string): string[] => [...new Set([codeKey(query), ...query.split(/\s+/).map(codeKey)])].filter(Boolean);

/** Attribute name → lower-case scalar values (a list-valued attribute gives each element). */
export function attributeValues(attributes: Record<string, unknown>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, value] of Object.entries(attributes)) {
    const list = (Array.isArray(value) ? value : [value]).filter((v) => v !== null && typeof v !== 'object').map((v) => String(v).toLowerCase());
    if (list.length > 0) out.set(name.toLowerCase(), list);
  }
  return out;
}
