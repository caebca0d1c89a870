// What the merchandising tabs share: the routes, ids made for
// new synonym sets and rules, and calendar days.
import type { ProductSearchRequest } from '../../types.js';
export type { SearchAnalytics } from '../../types.js';

export type Filters = NonNullable<ProductSearchRequest['filters']>;

/** Copied from src/schemas/searchRules.ts (the console bundles no server code), with the description's bound. */
export const RULE_LIMITS = { query: 200, pins: 50, hides: 250, position: 1000, description: 500 };


export const SYNONYMS = '/api/knowledge/synonyms';
export const synonymPath = (id: string) => `${SYNONYMS}/${encodeURIComponent(id)}`;
export const RULES = '/api/knowledge/search-rules';
export const rulePath = (id: string) => `${RULES}/${encodeURIComponent(id)}`;

/** Random hex digits (crypto.randomUUID needs a secure context; a console on plain http has none). */
export const randomHex = (bytes = 4) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');

/** A new set's id: its first entry as a slug and random digits (`handy-3f9a1c07`), within the API's `[A-Za-z0-9_-]{1,100}`. */
export function newSetId(firstEntry: string): string {
  const slug = firstEntry.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/ß/g, 'ss').toLowerCase()
    .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '');
  return `${slug || 'set'}-${randomHex()}`;
}

/** A new rule's id: a UUID (v4) made of random bytes. */
export function newRuleId(): string {
  const h = randomHex(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Calendar days as the API counts them (`YYYY-MM-DD`, UTC). */
export const isoDay = (date: Date) => date.toISOString().slice(0, 10);
export const daysBefore = (days: number, from = new Date()) => isoDay(new Date(from.getTime() - days * 86_400_000));

/** Entries typed one a line or comma-separated (`\,` keeps a comma in an entry), trimmed, blanks dropped. */
export function entriesOf(text: string): string[] {
  return text.split(/\n|(?<!\\),/).map((e) => e.replace(/\\,/g, ',').trim()).filter(Boolean);
}
