// Related products without vectors on the Redis Query Engine (search/moreLikeThis.ts): the
// product's like terms, read from the analysed fields its search hash holds (projection.ts), and
// its attribute values, OR-ed and ranked by the server's BM25 under the related filter.
import type { RelatedRequest, SearchResult } from '../engine.js';
import { likeTerms, MAX_LIKE_ATTRIBUTES } from '../moreLikeThis.js';
import type { IndexCommands } from './commands.js';
import { all, anyOf, tagAny, termClause } from './query.js';
import { TAG_SEP, type Collection } from './schema.js';

/** The search hash fields a product is liked by: its base language, the title's two fields, brand, category, attribute values. */
export const LIKED_FIELDS = ['f:lang_base', 'f:title', 'f:title2', 'f:brand', 'f:cat', 'f:attrs'] as const;

/** The products `filter` allows that share a like term or an attribute value with the product (`liked`: the LIKED_FIELDS as read). */
export async function moreLikeThis(ft: IndexCommands, c: Collection, liked: (string | null)[], { filter, offset, limit }: RelatedRequest & { filter: string }): Promise<SearchResult> {
  const [language, ...fields] = liked;
  const attributes = (fields.pop() ?? '').split(TAG_SEP).filter(Boolean).slice(0, MAX_LIKE_ATTRIBUTES);
  const terms = likeTerms(fields.map((text) => (text ?? '').split(' ')), language ?? '');
  const clauses = [...terms.map(termClause), ...(attributes.length > 0 ? [tagAny('attrs', attributes)] : [])];
  if (clauses.length === 0) return { hits: [], total: 0, facets: {} };
  const found = await ft.query(c, all(anyOf(clauses), filter), { args: ['NOCONTENT', 'WITHSCORES', 'SCORER', 'BM25', 'LIMIT', String(offset), String(limit)] });
  const hits = found.rows.map((row, i) => ({ id: ft.idOf(c, row.key), score: row.score ?? 0, ranks: { keyword: offset + i + 1, semantic: null } }));
  return { hits, total: found.total, facets: {} };
}
