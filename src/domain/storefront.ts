// What a search-only caller gets back (DESIGN §2): a `search` key is public by design, so its
// answers hold only what a storefront shows (STOREFRONT_PRODUCT_FIELDS).
import { STOREFRONT_PRODUCT_FIELDS } from '../schemas/products.js';
import type { ProductView } from './products.js';

type StorefrontView = Pick<ProductView, (typeof STOREFRONT_PRODUCT_FIELDS)[number]>;

/** Whole products for a caller holding catalog:read; the storefront view for one admitted by `search` alone. */
export const seesWholeProducts = (scopes: Set<string>): boolean => scopes.has('catalog:read');

export function storefrontView(product: ProductView): StorefrontView {
  const view: Partial<StorefrontView> = {};
  for (const field of STOREFRONT_PRODUCT_FIELDS) (view as Record<string, unknown>)[field] = product[field];
  return view as StorefrontView;
}

/** A product search or related-products answer with each hit's product in the storefront view. */
export function storefrontAnswer<H extends { product: ProductView }>(answer: { hits: H[] }) {
  return { ...answer, hits: answer.hits.map((hit) => ({ ...hit, product: storefrontView(hit.product) })) };
}
