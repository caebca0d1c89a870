// A search rule as its form holds it (texts as typed) and the body `PUT /search-rules/{id}` takes.
// The filters the form names have fields of their own; any other filter of product search
// (attributes, rating, category path) is typed as JSON beside them.
import type { SearchRule, SearchRuleWrite } from '../../types.js';
import type { Filters } from './model.js';

export interface DraftPin {
  product_id: string;
  /** As typed. */
  position: string;
}

export interface RuleDraft {
  query: string;
  match: 'exact' | 'contains';
  site_id: string;
  description: string;
  enabled: boolean;
  /** As stored (a date or a date-time) until a date is picked: an unchanged date is sent back as it was. */
  active_from: string;
  active_until: string;
  pins: DraftPin[];
  hides: string[];
  brand: string;
  availability: string;
  price_min: string;
  price_max: string;
  in_stock: '' | 'true' | 'false';
  /** The other filters, a JSON object. */
  more: string;
}

const OWN_FILTERS = ['brand', 'availability', 'price_min', 'price_max', 'in_stock'] as const;
const listOf = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean);
const numberText = (n: unknown) => (typeof n === 'number' ? String(n) : '');

export function draftOf(rule: SearchRule | null, query = ''): RuleDraft {
  const filters: Filters = rule?.filters ?? {};
  const more = Object.fromEntries(Object.entries(filters).filter(([k, v]) => !(OWN_FILTERS as readonly string[]).includes(k) && v !== undefined && v !== null));
  return {
    query: rule?.query ?? query,
    match: rule?.match ?? 'exact',
    site_id: rule?.site_id ?? '',
    description: rule?.description ?? '',
    enabled: rule?.enabled ?? true,
    active_from: rule?.active_from ?? '',
    active_until: rule?.active_until ?? '',
    pins: (rule?.pin ?? []).map((p) => ({ product_id: p.product_id, position: String(p.position) })),
    hides: rule?.hide ?? [],
    brand: (filters.brand ?? []).join(', '),
    availability: (filters.availability ?? []).join(', '),
    price_min: numberText(filters.price_min),
    price_max: numberText(filters.price_max),
    in_stock: filters.in_stock === true ? 'true' : filters.in_stock === false ? 'false' : '',
    more: Object.keys(more).length ? JSON.stringify(more, null, 2) : '',
  };
}

/** The filters of the draft; undefined when it sets none. A `more` that is no JSON object throws. */
export function filtersOf(d: RuleDraft): Filters | undefined {
  let more: Record<string, unknown> = {};
  if (d.more.trim()) {
    let value: unknown;
    try {
      value = JSON.parse(d.more);
    } catch (e) {
      throw new Error(`Other filters: ${(e as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('Other filters: a JSON object, e.g. {"attributes": {"color": "red"}}');
    more = value as Record<string, unknown>;
  }
  const filters: Filters = { ...(more as Filters) };
  if (listOf(d.brand).length) filters.brand = listOf(d.brand);
  if (listOf(d.availability).length) filters.availability = listOf(d.availability);
  if (d.price_min.trim()) filters.price_min = Number(d.price_min);
  if (d.price_max.trim()) filters.price_max = Number(d.price_max);
  if (d.in_stock) filters.in_stock = d.in_stock === 'true';
  return Object.keys(filters).length ? filters : undefined;
}

/** The whole rule (a PUT replaces it): what the draft leaves empty is left out. */
export function bodyOf(d: RuleDraft): SearchRuleWrite {
  const filters = filtersOf(d);
  return {
    site_id: d.site_id || null,
    query: d.query.trim(),
    match: d.match,
    ...(d.pins.length ? { pin: d.pins.map((p) => ({ product_id: p.product_id, position: Math.trunc(Number(p.position)) })) } : {}),
    ...(d.hides.length ? { hide: d.hides } : {}),
    ...(filters ? { filters } : {}),
    active_from: d.active_from || null,
    active_until: d.active_until || null,
    description: d.description.trim() || null,
    enabled: d.enabled,
  };
}

/** The next free place for a new pin: after the last one. */
export const nextPosition = (pins: DraftPin[]) => String(Math.min(1000, Math.max(0, ...pins.map((p) => Math.trunc(Number(p.position)) || 0)) + 1));

/** A stored date or date-time as a date input shows it (its first ten characters: the UTC date). */
export const dateInputValue = (stored: string) => (/^\d{4}-\d{2}-\d{2}/.test(stored) ? stored.slice(0, 10) : '');
