// Facet counts on the Redis Query Engine: one FT.AGGREGATE … GROUPBY per asked facet over the
// documents a keyword query matches, sent beside the search itself (the query is known before it
// runs), over at most the first `limit` matches in the index's order (search/facets.ts: beyond
// them the counts are scaled and not exhaustive); and over the documents found apart from that
// query (sku/gtin codes, semantic candidates), by id.
import type { FacetCount, ProductFacet } from '../engine.js';
import { facetList, type FacetSample } from '../facets.js';
import type { IndexCommands } from './commands.js';
import { tagAny } from './query.js';
import { F, type Collection } from './schema.js';

/** The hash field each facet's values are grouped by (the value as written, for display). */
const FACET_FIELD: Record<ProductFacet, string> = { brand: 'brand_v', category: 'category_v', availability: 'avail_v' };

/** Per asked facet: value → count. */
export type ValueCounts = Map<string, number>[];

export class FacetCounter {
  constructor(private readonly ft: IndexCommands) {}

  /**
   * Value counts over the first `limit` documents `query` matches; the `top` most frequent only
   * (more than are listed, for ties), or every value where counts are to be added to others.
   */
  async matching(c: Collection, query: string, wanted: ProductFacet[], { limit, top }: { limit: number; top: number | null }): Promise<ValueCounts> {
    return Promise.all(wanted.map(async (name) => counts(await this.ft.aggregate(c, query, { field: FACET_FIELD[name], top, limit }), FACET_FIELD[name])));
  }

  /** Value counts over the documents of these ids (every value). */
  async ofIds(c: Collection, ids: string[], wanted: ProductFacet[]): Promise<ValueCounts> {
    if (ids.length === 0) return wanted.map(() => new Map());
    return this.matching(c, tagAny(F.id, ids), wanted, { limit: ids.length, top: null });
  }
}

function counts(reply: Awaited<ReturnType<IndexCommands['aggregate']>>, field: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const row of reply.rows) {
    const value = row.fields.get(field);
    if (value) out.set(value, (out.get(value) ?? 0) + Number(row.fields.get('count')));
  }
  return out;
}

/** The facets' lists: counts over the matching documents, in parts (each scaled as sampled), plus those over other documents. */
export function facetLists(
  wanted: ProductFacet[], parts: { counts: ValueCounts | null; sample: FacetSample }[], others: ValueCounts | null,
): Partial<Record<ProductFacet, FacetCount[]>> {
  const out: Partial<Record<ProductFacet, FacetCount[]>> = {};
  wanted.forEach((name, f) => {
    const sum = new Map<string, number>();
    const add = (value: string, n: number) => sum.set(value, (sum.get(value) ?? 0) + n);
    for (const { counts, sample } of parts) {
      for (const [value, n] of counts?.[f] ?? []) add(value, sample.scale === 1 ? n : Math.max(1, Math.round(n * sample.scale)));
    }
    for (const [value, n] of others?.[f] ?? []) add(value, n);
    out[name] = facetList(sum, { exhaustive: true, scale: 1 });
  });
  return out;
}
