// A sorted product search on the Redis Query Engine (search/productSort.ts): each tier of the
// relevance order (every word, or an exact code; enough words; the semantic-only candidates) is
// read in the sort fields' order by an FT.AGGREGATE … SORTBY with BM25 as the last key, the first
// `offset + limit` of it, with the values sorted by; kcs puts the tiers after one another and
// orders what it merges (codes into the first tier, the semantic candidates) by the same rule.
import type { Hit } from '../engine.js';
import { compareValues, type SortKey } from '../productSort.js';
import type { IndexCommands } from './commands.js';
import type { Keyword, KeywordQuery, KeywordSearch, Ranked } from './keyword.js';
import { all, tagAny } from './query.js';
import type { ParsedReply } from './replies.js';
import { F, type Collection } from './schema.js';

/** The index property each sort field is read from. */
const PROPERTY: Record<Exclude<SortKey['field'], 'relevance'>, string> = {
  price_current: 'price', rating_average: 'rating', created_at: F.created, updated_at: 'updated', title: 'title_s',
};
const NUMERIC = new Set(['price', 'rating', F.created, 'updated']);

/** Scored above any BM25 score: a query that is a product's code puts that product first (where the sort values tie). */
export const CODE_SCORE = 1000;
export const CODE_HITS = 20;

/** A search's hits (at least the page), its total, and what facets count: the keyword query's result, the documents found apart. */
export interface FoundHits {
  hits: Hit[];
  total: number;
  keyword: Keyword | null;
  extra: string[];
}

/** Which of the ids the keyword query, run under `filter`, does not match (engine.ts). */
export type NotMatching = (c: Collection, keyword: Keyword, filter: string, ids: string[]) => Promise<string[]>;

/** What a sorted search reads: the query (undefined: semantic only; null: browsing), its filter and codes, the semantic candidates. */
export interface SortedScope {
  query: KeywordQuery | null | undefined;
  filter: string;
  codes: string[];
  sort: SortKey[];
  k: number;
  semantic: Promise<Ranked> | null;
}

export class SortedSearch {
  constructor(
    private readonly ft: IndexCommands,
    private readonly keywords: KeywordSearch,
    private readonly notMatching: NotMatching,
  ) {}

  /**
   * The first k hits: each tier read in the sort fields' order, the first k of each; codes join
   * the first tier, the semantic-only candidates come last.
   */
  async hits(c: Collection, { query, filter, codes: codeValues, sort, k, semantic: candidates }: SortedScope): Promise<FoundHits> {
    const reader = new SortedReader(this.ft, sort);
    const noMatch = { rows: [] as SortedRow[], total: 0 };
    const every = query === undefined ? null : query === null ? { expr: null } : query.every === null ? null : { expr: query.every };
    const [first, codeRows, semantic] = await Promise.all([
      every ? reader.read(c, all(every.expr ?? '', filter), k, { browsing: every.expr === null }) : noMatch,
      query && codeValues.length > 0 ? reader.read(c, all(tagAny('codes', codeValues), filter), CODE_HITS) : noMatch,
      candidates,
    ]);
    const tier = query && every?.expr ? await this.keywords.partialTier(c, query, first.total) : null;
    const partial = tier ? await reader.read(c, all(tier.expr, filter), k) : noMatch;
    // A keyword result standing for what the keyword query matched (for the documents found apart from it).
    const keyword: Keyword | null = every
      ? {
        ids: [...first.rows, ...partial.rows].map((r) => r.id), scores: [], full: first.rows.length, total: first.total + partial.total,
        expr: every.expr === null ? null : tier ? `(${every.expr} | ${tier.covering})` : every.expr, partial: tier ? { expr: tier.expr, total: partial.total } : null,
      }
      : null;
    const fetched = new Set(keyword?.ids ?? []);
    const codesOutside = keyword ? await this.notMatching(c, keyword, filter, codeRows.rows.map((r) => r.id).filter((id) => !fetched.has(id))) : [];
    const semanticRank = new Map((semantic?.ids ?? []).map((id, i) => [id, i + 1]));
    const found = new Set([...fetched, ...codeRows.rows.map((r) => r.id)]);
    const extra = semantic ? (keyword ? await this.notMatching(c, keyword, filter, semantic.ids.filter((id) => !found.has(id))) : semantic.ids) : [];
    const semanticRows = await reader.ofIds(c, extra, (id) => -(semanticRank.get(id) ?? 0));
    const codes = codeRows.rows.map((r) => ({ ...r, relevance: r.relevance + CODE_SCORE }));
    const isCode = new Set(codes.map((r) => r.id));
    const tiers = [
      { rows: reader.order([...codes, ...first.rows.filter((r) => !isCode.has(r.id))]), signal: 'keyword' as const },
      { rows: partial.rows.filter((r) => !isCode.has(r.id)), signal: 'keyword' as const },
      { rows: semanticRows, signal: 'semantic' as const },
    ];
    const hits: Hit[] = [];
    let keywordPosition = 0;
    for (const { rows, signal } of tiers) {
      for (const row of rows) {
        if (hits.length >= k) break;
        const semanticPosition = semanticRank.get(row.id) ?? null;
        hits.push({
          id: row.id,
          score: signal === 'semantic' ? semantic!.scores[semanticPosition! - 1] : row.relevance,
          ranks: { keyword: signal === 'keyword' ? ++keywordPosition : null, semantic: semanticPosition },
        });
      }
    }
    return { hits, total: (keyword?.total ?? 0) + codesOutside.length + extra.length, keyword, extra: [...codesOutside, ...extra] };
  }
}

/** A document of a sorted tier: its id, the values it is sorted by, its relevance. */
export interface SortedRow {
  id: string;
  values: (number | string | null)[];
  relevance: number;
}

/** Reads tiers of matches in the sort fields' order. */
class SortedReader {
  private readonly properties: string[];

  constructor(
    private readonly ft: IndexCommands,
    private readonly keys: SortKey[],
  ) {
    this.properties = keys.map((k) => PROPERTY[k.field as keyof typeof PROPERTY]);
  }

  /** The first `k` matches of `query` in order (browsing: newest first on ties), and how many match. */
  async read(c: Collection, query: string, k: number, { browsing = false } = {}): Promise<{ rows: SortedRow[]; total: number }> {
    const sortBy = this.keys.flatMap((key, i) => [`@${this.properties[i]}`, key.direction.toUpperCase()]);
    const reply = await this.ft.sorted(c, query || '*', { sortBy: browsing ? [...sortBy, `@${F.created}`, 'DESC'] : sortBy, load: browsing ? [...this.properties, F.created] : this.properties, k });
    return { rows: this.rowsOf(c, reply, browsing), total: reply.total };
  }

  /** Documents by id in order, ties by `relevance` (higher first: a semantic candidate's negated rank). */
  async ofIds(c: Collection, ids: string[], relevance: (id: string) => number): Promise<SortedRow[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.read(c, tagAny(F.id, ids), ids.length);
    return this.order(rows.map((r) => ({ ...r, relevance: relevance(r.id) })));
  }

  /** Rows in order: the sort fields, then relevance. */
  order(rows: SortedRow[]): SortedRow[] {
    return rows.sort((a, b) => {
      for (let i = 0; i < this.keys.length; i++) {
        const c = compareValues(a.values[i], b.values[i], this.keys[i].direction);
        if (c !== 0) return c;
      }
      return b.relevance - a.relevance;
    });
  }

  private rowsOf(c: Collection, reply: ParsedReply, browsing: boolean): SortedRow[] {
    return reply.rows.map(({ fields }) => {
      const values = this.properties.map((p) => {
        const v = fields.get(p);
        return v === undefined ? null : NUMERIC.has(p) ? Number(v) : v;
      });
      const relevance = browsing ? Number(fields.get(F.created) ?? 0) : Number(fields.get('__score') ?? 0);
      return { id: this.ft.idOf(c, fields.get('__key') ?? ''), values, relevance };
    });
  }
}
