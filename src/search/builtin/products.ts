// The products of one tenant's replica: how a stored product is indexed, filtered, faceted, and
// searched by keyword, vector or both.
import type { StoredProduct } from '../../store/products.js';
import { baseLanguage, titleFocus } from '../analysis.js';
import { attributePairs, codeKey, isInStock, queryCodes } from '../productValues.js';
import { PRODUCT_FACETS } from '../../schemas/search.js';
import {
  type FacetCount, type ProductFacet, type ProductFilters, type ProductSearch, type RelatedRequest, type SearchResult, type VariantStrategy,
} from '../engine.js';
import { FACET_EXACT_LIMIT, facetList, facetSample } from '../facets.js';
import { DocTable, type DocInput } from './docTable.js';
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
  private readonly facetColumns: Record<ProductFacet, FacetColumn> = { brand: new FacetColumn(), category: new FacetColumn(), availability: new FacetColumn() };
  private readonly columns = { price: new NumberColumn(Float64Array, NaN), flags: new NumberColumn(Uint8Array, 0) };
  readonly table = new DocTable<ProductFacts, ProductColumns>({
    fields: FIELDS,
    onSet: (doc, c) => {
      for (const name of PRODUCT_FACETS) this.facetColumns[name].set(doc, c ? c[name] : null);
      this.columns.price.set(doc, c?.price ?? NaN);
      this.columns.flags.set(doc, c?.flags ?? 0);
    },
  });

  search(s: ProductSearch): SearchResult {
    const f = s.filters;
    const found = this.table.search(s, {
      allows: this.filter(f),
      // Built only where browsing or vector search needs the list: a keyword search checks each match instead.
      candidates: () => this.table.candidates(this.constraints(f)),
      analysis: { stemming: f.language ?? null, language: s.language },
      boost: s.query.trim() ? this.codeBoost(s.query.trim()) : undefined,
      createdMs: (doc) => this.table.meta[doc]!.createdMs,
    });
    return { hits: found.hits, total: found.total, ...this.facets(found.matched, found.total, s.facets, s.facetExactLimit ?? FACET_EXACT_LIMIT) };
  }

  /** Products of the same site nearest to a product's similarity anchor, without itself and its own variants. */
  related(productId: string, request: RelatedRequest & { variantStrategy: VariantStrategy }): SearchResult | null {
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
    return { ...this.table.related(origin, request, { allows, docs: siteDocs }), facets: {} };
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
   * Value counts over the matched documents (each facet is a column of value numbers by document):
   * over the first `limit` of them where more match (facets.ts).
   */
  private facets(lists: Iterable<number>[], total: number, wanted: ProductFacet[], limit: number): Pick<SearchResult, 'facets' | 'facetsExhaustive'> {
    if (wanted.length === 0) return { facets: {} };
    const columns = wanted.map((name) => this.facetColumns[name]);
    const counts = columns.map((column) => new Int32Array(column.names.length));
    let counted = 0;
    counting: for (const docs of lists) {
      for (const doc of docs) {
        if (counted === limit) break counting;
        counted++;
        for (let f = 0; f < columns.length; f++) {
          const code = columns[f].codes[doc];
          if (code >= 0) counts[f][code]++;
        }
      }
    }
    const sample = facetSample(Math.max(total, counted), counted);
    const facets: Partial<Record<ProductFacet, FacetCount[]>> = {};
    wanted.forEach((name, f) => {
      facets[name] = facetList(columns[f].names.map((value, code) => [value, counts[f][code]]), sample);
    });
    return { facets, facetsExhaustive: sample.exhaustive };
  }
}

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

