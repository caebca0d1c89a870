// A product search request in the engine's terms: the facets and stats asked (checked against the
// tenant's facetable attributes), the sort keys, and the filters.
import type { Static } from '@sinclair/typebox';
import type { ProductSearchFilters } from '../schemas/search.js';
import type { FacetName, ProductFilters, SortKey, StatField } from '../search/engine.js';
import { CATEGORY_LEVELS, isStatField, parseFacet, pathFilter, PLAIN_FACETS, STAT_FIELDS } from '../search/productFacets.js';
import { InvalidError } from './errors.js';

type FiltersInput = Static<typeof ProductSearchFilters>;

/**
 * The asked facets as the engine counts them (value facets, numeric stats), each once; an
 * attribute the tenant has not made facetable, or a name that is no facet, is a 422 at its place.
 */
export function facetsOf(asked: string[], facetable: readonly string[], at: (string | number)[] = ['facets']): { facets: FacetName[]; stats: StatField[] } {
  const facets = new Set<FacetName>();
  const stats = new Set<StatField>();
  asked.forEach((name, i) => {
    const loc = at[0] === 'facets' ? [...at, i] : at;
    if (isStatField(name)) return void stats.add(name);
    const facet = parseFacet(name);
    if (!facet) {
      throw InvalidError.at(loc, `${name} is not a facet: ${PLAIN_FACETS.join(', ')}, category.lvl0 … category.lvl${CATEGORY_LEVELS - 1}, ` +
        `attributes.<name> of the settings' facet_attributes, ${STAT_FIELDS.join(', ')}`, 'facet_unknown');
    }
    if (facet.kind === 'attribute' && !facetable.includes(facet.attribute)) {
      // The tenant's facetable attributes are not listed: a search-only (public) key must not learn them.
      throw InvalidError.at(loc, `The attribute ${facet.attribute} is not facetable: an admin adds it to facet_attributes (PUT /api/knowledge/settings)`, 'facet_not_facetable');
    }
    facets.add(facet.kind === 'attribute' ? `attributes.${facet.attribute}` : facet.name);
  });
  return { facets: [...facets], stats: [...stats] };
}

export const sortKeyOf = (entry: Record<string, string | undefined>): SortKey => {
  const [field, direction] = Object.entries(entry).find(([, v]) => v !== undefined)!;
  return { field: field as SortKey['field'], direction: direction as SortKey['direction'] };
};

/** The request's filters (with a rule's added) as the engine takes them, with what the search itself sets. */
export function productFilters(f: FiltersInput, scope: Pick<ProductFilters, 'siteId' | 'language' | 'category' | 'excludeIds' | 'variantStrategy'>): ProductFilters {
  return {
    ...scope,
    brand: f.brand,
    availability: f.availability,
    priceMin: f.price_min,
    priceMax: f.price_max,
    ratingMin: f.rating_min,
    ratingMax: f.rating_max,
    categoryPath: f.category_path === undefined ? undefined : pathFilter(f.category_path),
    inStock: f.in_stock,
    attributes: f.attributes && Object.fromEntries(Object.entries(f.attributes).map(([k, v]) => [k, Array.isArray(v) ? v : [v]])),
  };
}
