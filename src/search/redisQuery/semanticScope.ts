// Which documents a search's semantic part may consider, and under which filters: those in a
// language the embedding model serves, a product's filters split between its vectors' index and
// the products index (query.ts ProductFilterParts).
import type { SearchRequest } from '../engine.js';
import { all, tagAny, type ProductFilterParts } from './query.js';
import { F, type Collection, type IndexOptions } from './schema.js';
import type { Nearest } from './vectorSearch.js';

/** How a search's semantic part runs: where, under which filters, among how many documents. */
export type SemanticScope = Omit<Nearest, 'vector' | 'blob' | 'k' | 'floor'>;

/** The documents semantic ranking may consider: those in a language the embedding model serves. */
export const servedFilter = (s: SearchRequest) => tagAny(F.baseLanguage, s.semanticLanguages);
export const runsSemantic = (s: SearchRequest) => s.mode !== 'keyword' && s.vector !== null;
/** The model and dimension of a search's query vector (undefined: it has none). */
export const vectorModelOf = (s: SearchRequest): IndexOptions | undefined => (s.vector && s.model ? { modelId: s.model, dimension: s.vector.length } : undefined);

/** A product search's semantic part: the vectors searched under the filters their index holds, the rest checked in the products index. */
export function productSemantic(vectors: Collection, products: Collection, parts: ProductFilterParts, s: SearchRequest): Omit<SemanticScope, 'allowed'> {
  const filter = all(parts.stable, servedFilter(s));
  return { c: vectors, filter, check: parts.volatile ? { c: products, filter: all(filter, parts.volatile) } : null };
}
