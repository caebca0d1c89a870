// The products of one tenant's replica: how a stored product is indexed, filtered, faceted, and
// searched by keyword, vector or both.
import type { StoredProduct } from '../../store/products.js';
import { analyze, baseLanguage } from '../analysis.js';
import { attributeValues, codeKey, isInStock, queryCodes } from '../productValues.js';
import { PRODUCT_FACETS } from '../../schemas/search.js';
import {
  type FacetCount, type ProductFacet, type ProductFilters, type ProductSearch, type RelatedRequest, type SearchResult, type VariantStrategy,
} from '../engine.js';
import { DocTable, type DocInput } from './docTable.js';

/** What filters, facets and related search need of a product. */
export interface ProductFacts {
  siteId: string;
  language: string;
  category: string | null;
  brand: string | null;
  availability: string | null;
  price: number | null;
  inStock: boolean;
  /** Attribute name → lower-case values. */
  attributes: Map<string, string[]>;
  isParent: boolean;
  isVariant: boolean;
  externalId: string | null;
  parentExternalId: string | null;
  createdMs: number;
}

/** Field order of the text index; weights make a title match beat a description match. */
const FIELDS = [
  ['title', 3],
  ['search_keywords', 2.5],
  ['brand', 2],
  ['category', 1.5],
  ['short_description', 1],
  ['description', 1],
] as const;

export function productInput(doc: StoredProduct, parentExternalId: string | null, vectors: DocInput<ProductFacts>['vectors']): DocInput<ProductFacts> {
  const texts: Record<(typeof FIELDS)[number][0], string | null> = {
    title: doc.title,
    search_keywords: doc.search_keywords.join(' '),
    brand: doc.brand,
    category: doc.category,
    short_description: doc.short_description,
    description: doc.description,
  };
  const lower = (v: string | null) => (v ? [v.toLowerCase()] : []);
  return {
    id: doc.id,
    meta: {
      siteId: doc.site_id,
      language: doc.language.toLowerCase(),
      category: doc.category,
      brand: doc.brand,
      availability: doc.availability,
      price: doc.price_current === null ? null : Number(doc.price_current),
      inStock: isInStock(doc.availability),
      attributes: attributeValues(doc.attributes),
      isParent: doc.is_parent,
      isVariant: doc.is_variant,
      externalId: doc.external_id,
      parentExternalId,
      createdMs: Date.parse(doc.created_at),
    },
    fields: FIELDS.map(([name, weight], field) => ({ field, weight, terms: analyze(texts[name], doc.language) })),
    values: {
      site: [doc.site_id],
      language: [doc.language.toLowerCase()],
      baseLanguage: [baseLanguage(doc.language)],
      category: lower(doc.category),
      brand: lower(doc.brand),
      availability: lower(doc.availability),
      code: [doc.sku, doc.gtin].filter((c): c is string => Boolean(c)).map(codeKey),
    },
    vectors,
    textKey: JSON.stringify([doc.language, ...Object.values(texts)]),
  };
}

function visibleUnder(strategy: VariantStrategy, facts: ProductFacts): boolean {
  if (strategy === 'children_only') return !facts.isParent;
  if (strategy === 'parents_only') return !facts.isVariant;
  return true;
}

export class ProductCollection {
  private readonly facetColumns: Record<ProductFacet, FacetColumn> = { brand: new FacetColumn(), category: new FacetColumn(), availability: new FacetColumn() };
  private readonly columns = { price: new NumberColumn(Float64Array, NaN), flags: new NumberColumn(Uint8Array, 0) };
  readonly table = new DocTable<ProductFacts>((doc, m) => {
    for (const name of PRODUCT_FACETS) this.facetColumns[name].set(doc, m ? m[name] : null);
    this.columns.price.set(doc, m?.price ?? NaN);
    this.columns.flags.set(doc, m ? (m.inStock ? IN_STOCK_FLAG : 0) | (m.isParent ? PARENT : 0) | (m.isVariant ? VARIANT : 0) : 0);
  });

  search(s: ProductSearch): SearchResult {
    const f = s.filters;
    const found = this.table.search(s, {
      allows: this.filter(f),
      candidates: this.table.candidates(this.constraints(f)),
      language: f.language ?? null,
      boost: s.query.trim() ? this.codeBoost(s.query.trim()) : undefined,
      createdMs: (doc) => this.table.meta[doc]!.createdMs,
    });
    return { hits: found.hits, total: found.total, facets: this.facets(found.matched, s.facets) };
  }

  /** Products of the same site nearest to a product's similarity anchor, without itself and its own variants. */
  related(productId: string, request: RelatedRequest & { variantStrategy: VariantStrategy }): SearchResult | null {
    const origin = this.table.docOf(productId);
    if (origin === undefined) return null;
    const facts = this.table.meta[origin]!;
    const allows = (doc: number) => {
      if (doc === origin) return false;
      const m = this.table.meta[doc]!;
      if (m.siteId !== facts.siteId || !visibleUnder(request.variantStrategy, m)) return false;
      return !(facts.externalId && m.parentExternalId === facts.externalId);
    };
    const siteDocs = this.table.candidates([['site', [facts.siteId]]]) ?? [];
    return { ...this.table.related(origin, request, { allows, docs: siteDocs }), facets: {} };
  }

  /** The filter as a predicate holding only the checks the search asked for (it runs once per match). */
  private filter(f: ProductFilters): (doc: number) => boolean {
    // Hot checks read typed-array columns and value sets: following each match's facts object to
    // its strings costs cache misses (~0.4 µs a match at 100k products).
    const checks: ((doc: number) => boolean)[] = this.constraints(f).map(([field, values]) => {
      const sets = this.table.withValues(field, values);
      return sets.length === 1 ? (doc) => sets[0].has(doc) : (doc) => sets.some((set) => set.has(doc));
    });
    const { flags, price } = this.columns;
    if (f.variantStrategy === 'children_only') checks.push((doc) => (flags.at(doc) & PARENT) === 0);
    if (f.variantStrategy === 'parents_only') checks.push((doc) => (flags.at(doc) & VARIANT) === 0);
    if (f.inStock !== undefined) checks.push((doc) => ((flags.at(doc) & IN_STOCK_FLAG) !== 0) === f.inStock);
    // A product without a price (NaN) fails every price bound.
    if (f.priceMin !== undefined) checks.push((doc) => price.at(doc) >= f.priceMin!);
    if (f.priceMax !== undefined) checks.push((doc) => price.at(doc) <= f.priceMax!);
    const meta = this.table.meta;
    for (const [name, values] of Object.entries(f.attributes ?? {})) {
      const accepted = new Set(values.map((v) => v.toLowerCase()));
      checks.push((doc) => Boolean(meta[doc]!.attributes.get(name.toLowerCase())?.some((v) => accepted.has(v))));
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

  /** Value counts over the matched documents: each facet is a column of value numbers by document. */
  private facets(lists: Iterable<number>[], wanted: ProductFacet[]): Partial<Record<ProductFacet, FacetCount[]>> {
    const out: Partial<Record<ProductFacet, FacetCount[]>> = {};
    for (const name of wanted) {
      const column = this.facetColumns[name];
      const counts = new Int32Array(column.names.length);
      const codes = column.codes;
      for (const docs of lists) {
        for (const doc of docs) {
          const code = codes[doc];
          if (code >= 0) counts[code]++;
        }
      }
      const list: FacetCount[] = [];
      counts.forEach((count, code) => count && list.push({ value: column.names[code], count }));
      out[name] = list.sort((a, b) => b.count - a.count || a.value.localeCompare(b.value)).slice(0, FACET_VALUES);
    }
    return out;
  }
}

const IN_STOCK_FLAG = 1;
const PARENT = 2;
const VARIANT = 4;

/** A number per document in a typed array that grows as documents are numbered. */
class NumberColumn<A extends Float64Array | Uint8Array> {
  private values: A;

  constructor(
    private readonly kind: { new (size: number): A },
    private readonly missing: number,
  ) {
    this.values = new kind(1024).fill(missing) as A;
  }

  at(doc: number): number {
    return doc < this.values.length ? this.values[doc] : this.missing;
  }

  set(doc: number, value: number): void {
    if (doc >= this.values.length) {
      const grown = new this.kind(Math.max(doc + 1, this.values.length * 2)).fill(this.missing) as A;
      grown.set(this.values);
      this.values = grown;
    }
    this.values[doc] = value;
  }
}

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

/** Values listed per facet, most frequent first. */
const FACET_VALUES = 50;
