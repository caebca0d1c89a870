// RediSearch query strings (DIALECT 2) for kcs's searches: query words with their alternatives,
// typo variants and prefix, and the filters of products and knowledge entries as TAG/NUMERIC clauses.
import { typoBudget, type QueryWord } from '../analysis.js';
import type { EntryAccess, EntryFilters, ProductFilters, VariantStrategy } from '../engine.js';
import { layerTag } from './projection.js';
import { F, NO_TAG, tagText } from './schema.js';

/** A value inside a TAG clause: ASCII punctuation and spaces escaped (other characters stand as they are). */
export const escapeTag = (value: string): string => tagText(value).replace(/[^\w\u0080-\u{10FFFF}]/gu, (c) => `\\${c}`);

/** Documents whose TAG field holds any of the values (none, when no value is left to look for). */
export function tagAny(field: string, values: readonly string[]): string {
  const escaped = values.map(escapeTag).filter(Boolean);
  return `@${field}:{${escaped.length > 0 ? escaped.join(' | ') : NO_TAG}}`;
}

/** Documents whose TAG field holds none of the values ('' when there are none). */
export const tagNone = (field: string, values: readonly string[]): string => (values.length > 0 ? `-${tagAny(field, values)}` : '');

const flag = (b: boolean) => (b ? '1' : '0');

/** Clauses joined by AND (a space), leaving out empty ones. */
export const all = (...clauses: string[]): string => clauses.filter(Boolean).join(' ');

/** Words the query parser reads as its own (DIALECT 2's `ismissing(@field)`): a bare one is a syntax error. */
const PARSER_WORDS = new Set(['ismissing']);

/** A term as a query clause: as it is, or quoted where the parser would read it as its own word. */
export const termClause = (term: string): string => (PARSER_WORDS.has(term) ? `"${term}"` : term);

/**
 * A query word as RediSearch syntax: its alternative terms, typo variants (%…%) when `typos` (the
 * word is unknown to the index), its prefixes (…*) in the `completing` fields, and a compound's
 * parts all together, OR-ed.
 */
export function wordExpression(word: QueryWord, typos: boolean, completing: readonly string[]): string {
  const alternatives = new Set<string>();
  if (word.prefixes.length > 0 && completing.length > 0) alternatives.add(`@${completing.join('|')}:(${word.prefixes.map((p) => `${p}*`).join(' | ')})`);
  for (const term of word.terms) alternatives.add(termClause(term));
  if (typos) {
    for (const term of word.typoTerms) {
      const edits = Math.min(word.fuzzy, typoBudget(term));
      if (edits > 0) alternatives.add(`${'%'.repeat(edits)}${term}${'%'.repeat(edits)}`);
    }
  }
  for (const reading of word.readings) alternatives.add(`(${reading.map((w) => wordExpression(w, false, completing)).join(' ')})`);
  return anyOf([...alternatives]);
}

/**
 * Clauses OR-ed, two at a time: "((a | b) | c)". The server's parser refuses a field clause
 * anywhere in a third or later alternative of a flat list ("a | b | (c @f:(x*))").
 */
export const anyOf = (clauses: readonly string[]): string =>
  clauses.length === 1 ? `(${clauses[0]})` : clauses.slice(1).reduce((union, c) => `(${union} | ${c})`, clauses[0]);

export function variantFilter(strategy: VariantStrategy): string {
  if (strategy === 'children_only') return '@parent:[0 0]';
  if (strategy === 'parents_only') return '@variant:[0 0]';
  return '';
}

/** A product search's filters: on what a product's vector hash holds too, and on the volatile fields only its search hash holds. */
export interface ProductFilterParts {
  stable: string;
  /** Price, rating, stock, availability and category path ('' = none). */
  volatile: string;
}

export function productFilterParts(f: ProductFilters, purgingSites: readonly string[]): ProductFilterParts {
  const parts = [variantFilter(f.variantStrategy), tagNone('site', purgingSites), tagNone(F.id, f.excludeIds ?? [])];
  if (f.siteId) parts.push(tagAny('site', [f.siteId]));
  if (f.language) parts.push(tagAny('lang', [f.language.toLowerCase()]));
  if (f.category) parts.push(tagAny('category', [f.category.toLowerCase()]));
  if (f.brand?.length) parts.push(tagAny('brand_l', f.brand.map((b) => b.toLowerCase())));
  for (const [name, values] of Object.entries(f.attributes ?? {})) {
    parts.push(tagAny('attrs', values.map((v) => `${name.toLowerCase()}=${v.toLowerCase()}`)));
  }
  const volatile: string[] = [];
  if (f.availability?.length) volatile.push(tagAny('avail', f.availability.map((a) => a.toLowerCase())));
  if (f.inStock !== undefined) volatile.push(`@stock:[${flag(f.inStock)} ${flag(f.inStock)}]`);
  if (f.priceMin !== undefined || f.priceMax !== undefined) volatile.push(`@price:[${f.priceMin ?? '-inf'} ${f.priceMax ?? '+inf'}]`);
  if (f.ratingMin !== undefined || f.ratingMax !== undefined) volatile.push(`@rating:[${f.ratingMin ?? '-inf'} ${f.ratingMax ?? '+inf'}]`);
  // Not among the vector hash's fields (a layout change): checked in the products index, as price is.
  if (f.categoryPath !== undefined) volatile.push(tagAny('cpath', [f.categoryPath]));
  return { stable: all(...parts), volatile: all(...volatile) };
}


/** The read rules of GET: the visibilities below the ceiling, the reader's own personal entries, expiry. */
export function accessFilter(a: EntryAccess): string {
  const shared = a.visibilities.length > 0 ? `${tagAny('vis', a.visibilities)} | ` : '';
  const expiry = a.includeExpired ? '' : ` @expires:[(${a.now} +inf]`;
  return `(${shared}(@vis:{personal} ${tagAny('owner', [a.userId])}))${expiry}`;
}

export function entryFilter(f: EntryFilters): string {
  const parts = [accessFilter(f.access)];
  if (f.type) parts.push(tagAny('type', [f.type]));
  if (f.categoryId) parts.push(tagAny('category', [f.categoryId]));
  if (f.projectId) parts.push(tagAny('proj', [f.projectId]));
  if (f.visibility) parts.push(tagAny('vis', [f.visibility]));
  if (f.layer !== undefined) parts.push(tagAny('layer', [layerTag(f.layer)]));
  if (f.tags?.length) parts.push(tagAny('tags', f.tags));
  if (f.language) parts.push(tagAny('lang', [f.language.toLowerCase()]));
  return all(...parts);
}
