// Search routes: products and knowledge (keyword, semantic, hybrid), and related documents.
import { Type } from '@sinclair/typebox';
import type { SearchService } from '../domain/search.js';
import { seesWholeProducts, storefrontAnswer } from '../domain/storefront.js';
import { answerWithDocuments } from '../http/jsonText.js';
import { defineRoute, json, type IncomingRequest, type Route } from '../http/route.js';
import type { SearchCaller } from '../domain/searcherTags.js';
import type { Principal } from '../domain/types.js';
import { EntryIdParams } from '../schemas/knowledgeEntries.js';
import { ProductIdParams } from '../schemas/products.js';
import {
  FacetValuesRequest, FacetValuesResult, KnowledgeSearchRequest, KnowledgeSearchResult, ProductSearchRequest, ProductSearchResult, RelatedEntriesQuery, RelatedQuery, StorefrontSearchResult,
} from '../schemas/search.js';
import { callerOf } from './knowledgeEntries.js';

const tags = ['search'];

/** The storefront routes: catalog:read, or a search-only key (public by design) from the origins it lists. */
const storefront = { anyOf: ['catalog:read', 'search'] } as const;
const STOREFRONT_NOTE = ' A caller admitted by `search` alone gets each product in the storefront view (StorefrontSearchResult). ' +
  'Readable cross-origin from the origins the API key lists in allowed_origins (CORS).';
const storefrontResult = Type.Union([ProductSearchResult, StorefrontSearchResult]);

export function searchRoutes(search: SearchService): Route[] {
  return [
    defineRoute({
      method: 'POST', path: '/api/knowledge/search/products', readOnly: true, tags, summary: 'Search products (hybrid, keyword or semantic)',
      description: 'Keyword: BM25 over the title\'s focus, the rest of the title, search_keywords, brand, category, ' +
        'short_description and description with German and English stemming, German compounds split, umlaut folding, typo ' +
        'tolerance (1 edit from 5 letters, 2 from 9) and prefix matching of the last word; a query equal to a sku or gtin puts ' +
        'that product first. Products matching every word come first, then, while fewer than 100 match every word, those matching words that carry most of the query. ' +
        'Semantic: cosine over the description vectors above a similarity floor (min_similarity), only for languages the ' +
        'embedding model serves. Hybrid (default): the keyword matches, then the semantic candidates keyword did not find. The ' +
        'query\'s language is language, else the site\'s, else the tenant default; when semantic cannot run the search falls ' +
        'back to keyword and semantic_fallback says why. The tenant variant_strategy applies. site_id takes a UUID or slug ' +
        '(unknown → 404).' + STOREFRONT_NOTE,
      auth: storefront,
      cors: 'key',
      body: ProductSearchRequest,
      responses: { 200: { description: 'Hits with their products, facets and total', schema: storefrontResult } },
      handler: async ({ tenant, principal, body, req }) => {
        const caller = searchCallerOf(principal, req);
        if (!seesWholeProducts(principal.scopes)) return json(200, storefrontAnswer(await search.searchProducts(tenant, body, caller)));
        // Whole products are answered as stored, unparsed (http/jsonText.ts).
        return answerWithDocuments(await search.searchProductTexts(tenant, body, caller), 'product');
      },
    }),
    defineRoute({
      method: 'POST', path: '/api/knowledge/search/facet-values', readOnly: true, tags, summary: 'Search the values of a facet',
      description: 'The values of one facet (brand, category, availability, category.lvlN, attributes.<name> of facet_attributes) that start ' +
        'with facet_query, or have a word that does (case and diacritics ignored), counted under the search\'s query and filters as ' +
        'the facets of /search/products count them; most frequent first, the first max_values, each with the typed prefix marked ' +
        '(highlight_pre_tag / highlight_post_tag). For a searchable refinement list (InstantSearch searchForFacetValues).' + STOREFRONT_NOTE,
      auth: storefront,
      cors: 'key',
      body: FacetValuesRequest,
      responses: { 200: { description: 'The matching values with their counts', schema: FacetValuesResult } },
      handler: async ({ tenant, body }) => json(200, await search.facetValues(tenant, body)),
    }),
    defineRoute({
      method: 'GET', path: '/api/knowledge/products/:product_id/related', tags, summary: 'Products related to a product',
      description: 'Nearest products of the same site by similarity anchor (the description vector for products without one), ' +
        'excluding the product itself and its own variants; the tenant variant_strategy applies. Empty until the product is embedded.' +
        STOREFRONT_NOTE,
      auth: storefront,
      cors: 'key',
      params: ProductIdParams,
      query: RelatedQuery,
      responses: { 200: { description: 'Related products', schema: storefrontResult } },
      handler: async ({ tenant, principal, params, query }) => {
        const answer = await search.relatedProducts(tenant, params.product_id, { offset: query.offset ?? 0, limit: query.limit ?? 10 });
        return json(200, seesWholeProducts(principal.scopes) ? answer : storefrontAnswer(answer));
      },
    }),
    defineRoute({
      method: 'POST', path: '/api/knowledge/search/knowledge', readOnly: true, tags, summary: 'Search knowledge entries',
      description: 'The list filters and the read rules of GET apply exactly: the visibility ceiling of the caller\'s scopes, ' +
        'personal entries of the caller only, expired memories only with include_expired. tags matches entries carrying any of them.',
      auth: { scopes: ['knowledge:read'] },
      body: KnowledgeSearchRequest,
      responses: { 200: { description: 'Hits with their entries and total', schema: KnowledgeSearchResult } },
      handler: async ({ tenant, principal, body, req }) => json(200, await search.searchKnowledge(callerOf(tenant, principal, req), body)),
    }),
    defineRoute({
      method: 'GET', path: '/api/knowledge/knowledge-entries/:entry_id/related', tags, summary: 'Entries related to an entry',
      description: 'Nearest readable entries by similarity anchor (the content vector without one). An entry the caller cannot ' +
        'read is a 404.',
      auth: { scopes: ['knowledge:read'] },
      params: EntryIdParams,
      query: RelatedEntriesQuery,
      responses: { 200: { description: 'Related entries', schema: KnowledgeSearchResult } },
      handler: async ({ tenant, principal, params, query, req }) =>
        json(200, await search.relatedEntries(callerOf(tenant, principal, req), params.entry_id, {
          offset: query.offset ?? 0, limit: query.limit ?? 10, includeExpired: query.include_expired ?? false,
        })),
    }),
  ];
}

/** Who searches, for the suggestions' distinct searchers: the key (or token) and the client address. */
export const searchCallerOf = (principal: Principal, req: IncomingRequest): SearchCaller => ({ credentialId: principal.credentialId, address: req.remoteAddress });
