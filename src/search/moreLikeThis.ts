// Related products of a product without vectors, as Elasticsearch's more_like_this: its keyword
// neighbours among the products of its site, by the index terms of its title, brand and category
// and by its attribute values (name=value). Products in a language the embedding model does not
// serve, or stored with embedding off, have no vectors (DESIGN §7): what kcs knows of them is
// their words. Both engines take the same terms (builtin/moreLikeThis.ts, redisQuery/moreLikeThis.ts).
import { STOPWORDS, termOf } from './analysis.js';

/** At most this many terms and attribute values: a product's title, brand and category hold fewer. */
export const MAX_LIKE_TERMS = 32;
export const MAX_LIKE_ATTRIBUTES = 16;

const stopTerms = new Map<string, Set<string>>();

/** The words that only join others, as the index holds them in a language ('' none: folded only). */
function stopTermsOf(language: string): Set<string> {
  let terms = stopTerms.get(language);
  if (!terms) stopTerms.set(language, (terms = new Set([...STOPWORDS].map((w) => termOf(w, language || null)))));
  return terms;
}

/**
 * The terms a product is liked by: the index terms of its fields (title, brand, category, each
 * as analysed for the index: stems and compound tails), each once, without the words that only
 * join others ("für", "with"), at most MAX_LIKE_TERMS in field order.
 */
export function likeTerms(fieldTerms: readonly (readonly string[])[], language: string): string[] {
  const stop = stopTermsOf(language);
  const out = new Set<string>();
  for (const terms of fieldTerms) {
    for (const term of terms) {
      if (!term || stop.has(term)) continue;
      out.add(term);
      if (out.size >= MAX_LIKE_TERMS) return [...out];
    }
  }
  return [...out];
}

/** BM25's inverse document frequency: what sharing a term (or an attribute value) held by `df` of `n` documents is worth. */
export const idf = (df: number, n: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));
