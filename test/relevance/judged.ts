// The judged relevance set (products.json, queries.json; README.md says how it was graded) and
// how it is scored: nDCG@10, MRR@10 and success@1 per query kind, for kcs over HTTP and for a
// plain MiniSearch index of the same products (the baseline). Used by `npm run bench:quality`
// and test/search/relevance.test.ts.
import { readFileSync } from 'node:fs';
import MiniSearch from 'minisearch';

export interface JudgedProduct {
  id: string;
  site: 'de' | 'en';
  language: string;
  title: string;
  brand: string | null;
  category: string | null;
  short_description: string | null;
  description: string | null;
  search_keywords: string[];
  attributes: Record<string, string>;
  price: string;
  availability: string;
}

export interface JudgedQuery {
  id: string;
  query: string;
  site: 'de' | 'en';
  language: string;
  kind: string;
  /** Product id → grade (2 exactly what was asked for, 1 a close substitute); others are 0. */
  judgments: Record<string, number>;
}

const read = <T>(name: string): T => JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as T;

export const judgedProducts = (): JudgedProduct[] => read('./products.json');
export const judgedQueries = (): JudgedQuery[] => read('./queries.json');

export const CUTOFF = 10;

export interface Scores {
  ndcg: number;
  mrr: number;
  success: number;
}

/** A ranked list of product ids scored against one query's grades. */
export function score(ranked: string[], query: JudgedQuery): Scores {
  const grades = query.judgments;
  const top = ranked.slice(0, CUTOFF);
  const ideal = Object.values(grades).sort((a, b) => b - a).slice(0, CUTOFF);
  const dcg = (gains: number[]) => gains.reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
  const first = top.findIndex((id) => (grades[id] ?? 0) > 0);
  if (ideal.length === 0) {
    // No product is relevant: only an empty answer is right.
    const right = ranked.length === 0 ? 1 : 0;
    return { ndcg: right, mrr: right, success: right };
  }
  return {
    ndcg: dcg(top.map((id) => grades[id] ?? 0)) / dcg(ideal),
    mrr: first < 0 ? 0 : 1 / (first + 1),
    success: (grades[top[0]] ?? 0) > 0 ? 1 : 0,
  };
}

export interface KindSummary extends Scores {
  kind: string;
  queries: number;
}

/** Mean scores per kind, and over every query (kind "all"). */
export function summarize(results: { query: JudgedQuery; scores: Scores }[]): KindSummary[] {
  const kinds = [...new Set(results.map((r) => r.query.kind)), 'all'];
  return kinds.map((kind) => {
    const of = results.filter((r) => kind === 'all' || r.query.kind === kind);
    const mean = (pick: (s: Scores) => number) => of.reduce((sum, r) => sum + pick(r.scores), 0) / of.length;
    return { kind, queries: of.length, ndcg: mean((s) => s.ndcg), mrr: mean((s) => s.mrr), success: mean((s) => s.success) };
  });
}

/**
 * The baseline: one MiniSearch index per site over the same products, as a developer would set
 * it up in a few lines (title, brand, category and description boosted, fuzzy 0.2, prefix).
 */
export function miniSearchBaseline(products: JudgedProduct[]): (query: JudgedQuery) => string[] {
  const bySite = new Map<string, MiniSearch<JudgedProduct>>();
  for (const site of ['de', 'en']) {
    const index = new MiniSearch<JudgedProduct>({
      fields: ['title', 'brand', 'category', 'short_description', 'description'],
      searchOptions: { boost: { title: 3, brand: 2, category: 1.5 }, fuzzy: 0.2, prefix: true },
    });
    index.addAll(products.filter((p) => p.site === site));
    bySite.set(site, index);
  }
  return (query) => bySite.get(query.site)!.search(query.query).map((hit) => String(hit.id));
}

/** A judged product as kcs takes it (the bulk import's item). */
export const productBody = (p: JudgedProduct) => ({
  external_id: p.id,
  title: p.title,
  language: p.language,
  brand: p.brand,
  category: p.category,
  short_description: p.short_description,
  description: p.description,
  search_keywords: p.search_keywords,
  attributes: p.attributes,
  price_current: p.price,
  availability: p.availability,
});
