// Multi-search: several product searches in one request (InstantSearch sends one per disjunctive
// refinement, for the counts of the other values; Typesense's multi_search, Meilisearch's
// /multi-search, Algolia's multipleQueries), answered in order, each as /search/products answers
// it; an invalid or failing search gets its error in its place.
import { Type, type Static } from '@sinclair/typebox';
import { InvalidError, NotFoundError } from '../domain/errors.js';
import type { SearchService } from '../domain/search.js';
import type { SearchCaller } from '../domain/searcherTags.js';
import { seesWholeProducts, storefrontAnswer } from '../domain/storefront.js';
import { answerText } from '../http/jsonText.js';
import { defineRoute, json, type Route } from '../http/route.js';
import { errorReply } from '../http/errorReply.js';
import type { Principal } from '../domain/types.js';
import type { Tenant } from '../schemas/records.js';
import { ProductSearchRequest } from '../schemas/search.js';
import { validate } from '../schemas/validate.js';
import { searchCallerOf } from './search.js';

export const MAX_SEARCHES = 10;

const MultiSearchRequest = Type.Object(
  { searches: Type.Array(Type.Unknown({ description: 'A product search body (ProductSearchRequest)' }), { minItems: 1, maxItems: MAX_SEARCHES }) },
  { $id: 'MultiSearchRequest', additionalProperties: false },
);

const MultiSearchResult = Type.Object(
  {
    results: Type.Array(Type.Unknown({
      description: 'In the order of the searches: a product search answer (ProductSearchResult or StorefrontSearchResult), ' +
        'or {error: {status, detail}} as that search alone would have been answered (422, 404)',
    })),
  },
  { $id: 'MultiSearchResult' },
);

type SearchBody = Static<typeof ProductSearchRequest>;

export function multiSearchRoutes(search: SearchService): Route[] {
  return [
    defineRoute({
      method: 'POST', path: '/api/knowledge/search/multi', readOnly: true, tags: ['search'], summary: 'Several product searches in one request',
      description: `Up to ${MAX_SEARCHES} product search bodies, each answered as POST /api/knowledge/search/products answers it, in order, ` +
        'run at once; a search that is invalid (422) or names an unknown site (404) gets {error: {status, detail}} in its place and the ' +
        'others are answered. Whole products for catalog:read, the storefront view for a search-only caller; readable cross-origin ' +
        'from the origins the API key lists in allowed_origins (CORS).',
      auth: { anyOf: ['catalog:read', 'search'] },
      cors: 'key',
      body: MultiSearchRequest,
      responses: { 200: { description: 'One answer or error per search', schema: MultiSearchResult } },
      handler: async ({ tenant, principal, body, req }) => {
        const caller = searchCallerOf(principal, req);
        const answers = await Promise.all(body.searches.map((item) => answerOne(search, tenant, principal, caller, item)));
        if (!seesWholeProducts(principal.scopes)) return json(200, { results: answers.map((a) => ('json' in a ? a.json : a)) });
        // Whole products are answered as stored, unparsed (http/jsonText.ts).
        const parts = answers.map((a) => ('text' in a ? a.text : JSON.stringify(a.json)));
        return { status: 200, raw: { contentType: 'application/json', data: `{"results":[${parts.join(',')}]}` } };
      },
    }),
  ];
}

/** One search's answer (as JSON text for whole-product callers), or its error as that search alone would get it. */
async function answerOne(
  search: SearchService, tenant: Tenant, principal: Principal, caller: SearchCaller, item: unknown,
): Promise<{ json: unknown } | { text: string }> {
  const checked = validate<SearchBody>(ProductSearchRequest, item, { root: 'body' });
  if (!checked.ok) return { json: { error: { status: 422, detail: checked.errors } } };
  try {
    if (!seesWholeProducts(principal.scopes)) return { json: storefrontAnswer(await search.searchProducts(tenant, checked.value, caller)) };
    return { text: answerText(await search.searchProductTexts(tenant, checked.value, caller), 'product') };
  } catch (error) {
    if (!(error instanceof InvalidError || error instanceof NotFoundError)) throw error;
    const reply = errorReply(error);
    return { json: { error: { status: reply.status, ...(reply.body as object) } } };
  }
}
