// The products of one tenant's replica: how a stored product is indexed, filtered, faceted, and
// searched by keyword, vector or both.
import type { StoredProduct } from '../../store/products.js';
import { baseLanguage, titleFocus } from '../analysis.js';
import { attributePairs, codeKey, isInStock, queryCodes } from '../productValues.js';
import { PLAIN_FACETS } from '../productFacets.js';
import {
  type FacetCount, type FacetName, type FacetStats, type ProductFilters, type ProductSearch, type RelatedRequest, type RelatedResult, type SearchResult, type StatField, type VariantStrategy, queryAnalysisOf,
} from '../engine.js';
import { FACET_EXACT_LIMIT, FACET_VALUES, facetList, facetSample, statsOf } from '../facets.js';
import { CATEGORY_LEVELS, categoryLevels, categoryPaths, matchesPrefix, parseFacet, type PlainFacet } from '../productFacets.js';
import { compareValues, fieldKeys, sortTitle, type SortKey } from '../productSort.js';
import type { DocOrder } from './sortedTiers.js';
import { DocTable, type DocInput } from './docTable.js';
import { moreLikeThis } from './moreLikeThis.js';
import type { TextField } from './textIndex.js';
import { NumberColumn } from './numberColumn.js';
import { shared } from './sharedStrings.js';

/** What the replica keeps of a product for filters and related search (the rest is in columns). */
export interface ProductFacts {
  siteId: string;
  /** Flat pairs: lower-case attribute name, lower-case value, … (productValues.ts attributePairs). */
  attributes: string[];
  externalId: string | null;
  parentExternalId: string | null;
  createdMs: number;
}

/** What the collection's columns take of a product: facet values, price, flags. */
export interface ProductColumns {
  category: string | null;
  brand: string | null;
  availability: string | null;
  price: number | null;
  rating: number | null;
  updatedMs: number;
  /** The title as sorted (productSort.ts sortTitle). */
  title: string;
  /** Attribute values as written, beside ProductFacts.attributes' lower-case pairs (facet values are shown as written). */
  attributeValues: string[];
  flags: number;
}

export type ProductInput = DocInput<ProductFacts, ProductColumns>;

/**
 * The text index's fields, in the order of DocInput.texts: the thing the title names beats what it
 * is for or comes with, title and category beat the description, and the word being typed
 * completes to names only.
 */
const FIELDS: readonly TextField[] = [
  { weight: 3, completes: true }, // title: its focus (analysis.ts titleFocus)
  { weight: 1.5, completes: true }, // title: the rest
  { weight: 2.5, completes: true }, // search_keywords
  { weight: 2, completes: true }, // brand
  { weight: 2, completes: true }, // category
  { weight: 1, completes: false }, // short_description
  { weight: 1, completes: false }, // description
];

export function productInput(doc: StoredProduct, parentExternalId: string | null, vectors: ProductInput['vectors']): ProductInput {
  const language = doc.language.toLowerCase();
  const title = titleFocus(doc.title);
  const attributes = attributePairs(doc.attributes);
  // Names repeat across a catalogue; values are often a product's own (a model number, a weight).
  for (let i = 0; i < attributes.length; i += 2) attributes[i] = shared(attributes[i]);
  return {
    id: doc.id,
    meta: {
      siteId: shared(doc.site_id),
      attributes,
      externalId: doc.external_id,
      parentExternalId,
      createdMs: Date.parse(doc.created_at),
    },
    columns: {
      category: doc.category,
      brand: doc.brand,
      availability: doc.availability,
      price: doc.price_current === null ? null : Number(doc.price_current),
      rating: doc.rating_average === null ? null : Number(doc.rating_average),
      updatedMs: Date.parse(doc.updated_at),
      title: sortTitle(doc.title),
      attributeValues: writtenValues(doc.attributes, attributes),
      flags: (isInStock(doc.availability) ? IN_STOCK_FLAG : 0) | (doc.is_parent ? PARENT : 0) | (doc.is_variant ? VARIANT : 0),
    },
    language: doc.language,
    texts: [
      title.subject,
      title.minor || null,
      doc.search_keywords.length > 0 ? doc.search_keywords.join(' ') : null,
      doc.brand,
      doc.category,
      doc.short_description,
      doc.description,
    ],
    values: {
      site: [doc.site_id],
      language: [language],
      baseLanguage: [baseLanguage(doc.language)],
      category: lowerList(doc.category),
      brand: lowerList(doc.brand),
      availability: lowerList(doc.availability),
      code: codesOf(doc),
    },
    vectors,
  };
}

const lowerList = (value: string | null): string[] => (value ? [value.toLowerCase()] : []);

/** Per lower-case pair of attributePairs, the value as written (the pairs name each value once, in the attributes' order). */
function writtenValues(attributes: Record<string, unknown>, pairs: string[]): string[] {
  const written = new Map<string, string>();
  for (const key in attributes) {
    const value = attributes[key];
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v !== null && typeof v !== 'object') written.set(`${key.toLowerCase()}\u0000${String(v).toLowerCase()}`, String(v));
    }
  }
  const out: string[] = [];
  for (let i = 0; i < pairs.length; i += 2) out.push(written.get(`${pairs[i]}\u0000${pairs[i + 1]}`) ?? pairs[i + 1]);
  return out;
}

function codesOf({ sku, gtin }: StoredProduct): string[] {
  const codes: string[] = [];
  if (sku) codes.push(codeKey(sku));
  if (gtin) codes.push(codeKey(gtin));
  return codes;
}

function visibleUnder(strategy: VariantStrategy, flags: number): boolean {
  if (strategy === 'children_only') return (flags & PARENT) === 0;
  if (strategy === 'parents_only') return (flags & VARIANT) === 0;
  return true;
}

/** Whether a product's attribute pairs give the attribute one of the accepted values. */
function hasAttribute(pairs: string[], name: string, accepted: Set<string>): boolean {
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === name && accepted.has(pairs[i + 1])) return true;
  return false;
}

export class ProductCollection {
  private readonly facetColumns: Record<PlainFacet, FacetColumn> = { brand: new FacetColumn(), category: new FacetColumn(), availability: new FacetColumn() };
  /** The category path's levels (category.lvl0 …). */
  private readonly levelColumns = Array.from({ length: CATEGORY_LEVELS }, () => new FacetColumn());
  private readonly columns = {
    price: new NumberColumn(Float64Array, NaN), rating: new NumberColumn(Float64Array, NaN), updated: new NumberColumn(Float64Array, NaN),
    flags: new NumberColumn(Uint8Array, 0),
  };
  private readonly titles: (string | undefined)[] = [];
  /** An attribute value as first written, by lower-case name and value (facet values are shown as written). */
  private readonly writtenAttributes = new Map<string, string>();
  readonly table = new DocTable<ProductFacts, ProductColumns>({
    fields: FIELDS,
    onSet: (doc, c) => {
      for (const name of PLAIN_FACETS) this.facetColumns[name].set(doc, c ? c[name] : null);
      const levels = categoryLevels(c?.category ?? null);
      this.levelColumns.forEach((column, level) => column.set(doc, levels[level] ?? null));
      this.columns.price.set(doc, c?.price ?? NaN);
      this.columns.rating.set(doc, c?.rating ?? NaN);
      this.columns.updated.set(doc, c?.updatedMs ?? NaN);
      this.columns.flags.set(doc, c?.flags ?? 0);
      this.titles[doc] = c?.title;
      if (c) this.noteWritten(this.table.meta[doc]!.attributes, c.attributeValues);
    },
  });

  search(s: ProductSearch): SearchResult {
    const f = s.filters;
    const found = this.table.search(s, {
      allows: this.filter(f),
      // Built only where browsing or vector search needs the list: a keyword search checks each match instead.
      candidates: () => this.table.candidates(this.constraints(f)),
      analysis: queryAnalysisOf(s, f.language ?? null),
      boost: s.query.trim() ? this.codeBoost(s.query.trim()) : undefined,
      createdMs: (doc) => this.table.meta[doc]!.createdMs,
      order: this.order(s.sort),
    });
    return { hits: found.hits, total: found.total, ...this.facets(found.matched, found.total, s) };
  }

  /** The order of the sort fields over document numbers (undefined: relevance only). */
  private order(sort: SortKey[] | undefined): DocOrder | undefined {
    const keys = fieldKeys(sort);
    if (keys.length === 0) return undefined;
    const { price, rating, updated } = this.columns;
    const meta = this.table.meta;
    const value: Record<Exclude<SortKey['field'], 'relevance'>, (doc: number) => number | string | null> = {
      price_current: (doc) => price.at(doc),
      rating_average: (doc) => rating.at(doc),
      created_at: (doc) => meta[doc]!.createdMs,
      updated_at: (doc) => updated.at(doc),
      title: (doc) => this.titles[doc] ?? null,
    };
    const compares = keys.map(({ field, direction }) => {
      const of = value[field as keyof typeof value];
      return (a: number, b: number) => compareValues(of(a), of(b), direction);
    });
    return (a, b) => {
      for (const compare of compares) {
        const c = compare(a, b);
        if (c !== 0) return c;
      }
      return 0;
    };
  }

  /**
   * Remembers how attribute values were first written, for at most WRITTEN_FORMS values: a
   * catalogue's own values (model numbers, weights) would otherwise keep an entry a product;
   * past the bound a new value is shown lower-case.
   */
  private noteWritten(pairs: string[], written: string[]): void {
    for (let i = 0; i < pairs.length; i += 2) {
      if (written[i / 2] === pairs[i + 1]) continue;
      const key = `${pairs[i]}\u0000${pairs[i + 1]}`;
      if (this.writtenAttributes.size < WRITTEN_FORMS && !this.writtenAttributes.has(key)) this.writtenAttributes.set(key, written[i / 2]);
    }
  }

  /** Products of the same site nearest to a product's similarity anchor (without vectors: by keywords), without itself and its own variants. */
  related(productId: string, request: RelatedRequest & { variantStrategy: VariantStrategy }): RelatedResult | null {
    const origin = this.table.docOf(productId);
    if (origin === undefined) return null;
    const facts = this.table.meta[origin]!;
    const allows = (doc: number) => {
      if (doc === origin) return false;
      const m = this.table.meta[doc]!;
      if (m.siteId !== facts.siteId || !visibleUnder(request.variantStrategy, this.columns.flags.at(doc))) return false;
      return !(facts.externalId && m.parentExternalId === facts.externalId);
    };
    const siteDocs = this.table.candidates([['site', [facts.siteId]]]) ?? [];
    if (this.table.vector('anchor', origin) || this.table.vector('content', origin)) return { ...this.table.related(origin, request, { allows, docs: siteDocs }), facets: {}, relatedBy: 'vectors' };
    // No vectors (a language the model does not serve, or embedding off): its keyword neighbours.
    const liked = { texts: [this.titles[origin] ?? null, ...(['brand', 'category'] as const).map((f) => this.facetColumns[f].names[this.facetColumns[f].codes[origin]] ?? null)], attributes: facts.attributes };
    return { ...moreLikeThis(this.table, origin, liked, { ...request, allows, docs: siteDocs }), facets: {}, relatedBy: 'keywords' };
  }

  /** The filter as a predicate holding only the checks the search asked for (it runs once per match). */
  private filter(f: ProductFilters): (doc: number) => boolean {
    // Hot checks read typed-array columns and value sets: following each match's facts object to
    // its strings costs cache misses (~0.4 µs a match at 100k products).
    const checks: ((doc: number) => boolean)[] = [];
    for (const [field, values] of this.constraints(f)) {
      const sets = this.table.withValues(field, values);
      // A value every document holds (the only site of a tenant) checks nothing.
      if (sets.length === 1 && sets[0].size === this.table.size) continue;
      checks.push(sets.length === 1 ? (doc) => sets[0].has(doc) : (doc) => sets.some((set) => set.has(doc)));
    }
    const { flags, price } = this.columns;
    if (f.variantStrategy === 'children_only') checks.push((doc) => (flags.at(doc) & PARENT) === 0);
    if (f.variantStrategy === 'parents_only') checks.push((doc) => (flags.at(doc) & VARIANT) === 0);
    if (f.inStock !== undefined) checks.push((doc) => ((flags.at(doc) & IN_STOCK_FLAG) !== 0) === f.inStock);
    // A product without a price (NaN) fails every price bound.
    if (f.priceMin !== undefined) checks.push((doc) => price.at(doc) >= f.priceMin!);
    if (f.priceMax !== undefined) checks.push((doc) => price.at(doc) <= f.priceMax!);
    const { rating } = this.columns;
    if (f.ratingMin !== undefined) checks.push((doc) => rating.at(doc) >= f.ratingMin!);
    if (f.ratingMax !== undefined) checks.push((doc) => rating.at(doc) <= f.ratingMax!);
    if (f.categoryPath !== undefined) {
      // Per category value (a catalogue has few), whether it is the path or below it.
      const path = f.categoryPath;
      const column = this.facetColumns.category;
      const below = column.names.map((name) => {
        const lower = categoryPaths(name).at(-1);
        return lower !== undefined && (lower === path || lower.startsWith(`${path} > `));
      });
      checks.push((doc) => {
        const code = column.codes[doc];
        return code >= 0 && below[code] === true;
      });
    }
    if (f.excludeIds?.length) {
      const excluded = new Set(f.excludeIds.flatMap((id) => this.table.docOf(id) ?? []));
      if (excluded.size > 0) checks.push((doc) => !excluded.has(doc));
    }
    const meta = this.table.meta;
    for (const [name, values] of Object.entries(f.attributes ?? {})) {
      const key = name.toLowerCase();
      const accepted = new Set(values.map((v) => v.toLowerCase()));
      checks.push((doc) => hasAttribute(meta[doc]!.attributes, key, accepted));
    }
    if (checks.length === 0) return (doc) => meta[doc] !== undefined;
    return (doc) => {
      if (meta[doc] === undefined) return false;
      for (let i = 0; i < checks.length; i++) if (!checks[i](doc)) return false;
      return true;
    };
  }

  /** Exact-value constraints that give a small candidate list. */
  private constraints(f: ProductFilters): [string, string[]][] {
    const out: [string, string[]][] = [];
    if (f.siteId) out.push(['site', [f.siteId]]);
    if (f.language) out.push(['language', [f.language.toLowerCase()]]);
    if (f.category) out.push(['category', [f.category.toLowerCase()]]);
    if (f.brand?.length) out.push(['brand', f.brand.map((b) => b.toLowerCase())]);
    if (f.availability?.length) out.push(['availability', f.availability.map((a) => a.toLowerCase())]);
    return out;
  }

  /** A query that is a product's sku or gtin (or holds one as a word) puts that product first. */
  private codeBoost(query: string): Map<number, number> | undefined {
    const boost = new Map<number, number>();
    for (const set of this.table.withValues('code', queryCodes(query))) for (const doc of set) boost.set(doc, 1000);
    return boost.size > 0 ? boost : undefined;
  }

  /**
   * Value counts over the matched documents (a facet of a field is a column of value numbers by
   * document; an attribute's are read from its pairs), and the stats of numeric fields: over the
   * first `limit` of them where more match (facets.ts).
   */
  private facets(lists: Iterable<number>[], total: number, s: ProductSearch): Pick<SearchResult, 'facets' | 'facetsExhaustive' | 'facetsStats'> {
    const wanted = s.facets;
    const statFields = s.stats ?? [];
    if (wanted.length === 0 && statFields.length === 0) return { facets: {} };
    const limit = s.facetExactLimit ?? FACET_EXACT_LIMIT;
    const parsed = wanted.map((name) => parseFacet(name)!);
    const columns = parsed.map((f) => (f.kind === 'plain' ? this.facetColumns[f.name] : f.kind === 'level' ? this.levelColumns[f.level] : null));
    const counts = columns.map((column) => (column ? new Int32Array(column.names.length) : null));
    const attributeCounts = parsed.map((f) => (f.kind === 'attribute' ? new Map<string, number>() : null));
    const numbers = statFields.map((field) => ({ column: field === 'price_current' ? this.columns.price : this.columns.rating, values: [] as number[] }));
    const meta = this.table.meta;
    let counted = 0;
    counting: for (const docs of lists) {
      for (const doc of docs) {
        if (counted === limit) break counting;
        counted++;
        for (let f = 0; f < parsed.length; f++) {
          const column = columns[f];
          if (column) {
            const code = column.codes[doc];
            if (code >= 0) counts[f]![code]++;
            continue;
          }
          const name = (parsed[f] as { attribute: string }).attribute;
          const pairs = meta[doc]!.attributes;
          const tally = attributeCounts[f]!;
          for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === name) tally.set(pairs[i + 1], (tally.get(pairs[i + 1]) ?? 0) + 1);
        }
        for (const n of numbers) {
          const v = n.column.at(doc);
          if (!Number.isNaN(v)) n.values.push(v);
        }
      }
    }
    const sample = facetSample(Math.max(total, counted), counted);
    const listing = { prefix: s.facetPrefix, values: s.facetValues ?? FACET_VALUES };
    const facets: Partial<Record<FacetName, FacetCount[]>> = {};
    wanted.forEach((name, f) => {
      const column = columns[f];
      const entries: [string, number][] = column
        ? column.names.map((value, code) => [value, counts[f]![code]])
        : [...attributeCounts[f]!].map(([value, n]) => [this.writtenAttributes.get(`${(parsed[f] as { attribute: string }).attribute}\u0000${value}`) ?? value, n]);
      facets[name] = facetList(listing.prefix ? entries.filter(([value]) => matchesPrefix(value, listing.prefix!)) : entries, sample, listing.values);
    });
    const facetsStats: Partial<Record<StatField, FacetStats>> = {};
    statFields.forEach((field, i) => (facetsStats[field] = statsOf(numbers[i].values)));
    return { facets, facetsExhaustive: sample.exhaustive, ...(statFields.length > 0 ? { facetsStats } : {}) };
  }
}

/** Attribute values whose written form the collection keeps (ProductCollection.noteWritten). */
const WRITTEN_FORMS = 100_000;

const IN_STOCK_FLAG = 1;
const PARENT = 2;
const VARIANT = 4;

/** One facet's values numbered, and each document's number (-1: none). */
class FacetColumn {
  codes = new Int32Array(1024).fill(-1);
  readonly names: string[] = [];
  private readonly numbers = new Map<string, number>();

  set(doc: number, value: string | null): void {
    if (doc >= this.codes.length) {
      const grown = new Int32Array(Math.max(doc + 1, this.codes.length * 2)).fill(-1);
      grown.set(this.codes);
      this.codes = grown;
    }
    if (!value) {
      this.codes[doc] = -1;
      return;
    }
    let code = this.numbers.get(value);
    if (code === undefined) {
      code = this.names.length;
      this.numbers.set(value, code);
      this.names.push(value);
    }
    this.codes[doc] = code;
  }
}

