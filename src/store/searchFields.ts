/**
 * A product's search fields (store/projection.ts), field/value pairs (an empty value removes the
 * field): those of its search hash, and the stable ones its vector hash holds for vector search.
 */
export interface ProductSearchFields {
  search: string[];
  vectors: string[];
}
