// Valid request templates, one per route of the HTTP surface: the fuzz test mutates them so that
// most cases get past auth and routing and reach the handlers. Ids are `Ref`s to the runner's
// fixtures, resolved when a case is sent (deletes point at "victim" fixtures that are re-created).
import { BEYOND_SEARCH } from '../../src/schemas/scopes.js';
import { Ref } from './values.js';

/** What a route's answers look like: its error shape is checked against this. */
export type AnswerKind = 'api' | 'oauth' | 'html' | 'jsonrpc' | 'system';
export type BodyKind = 'json' | 'form' | 'ndjson' | 'text';

export interface RouteTemplate {
  method: string;
  /** With `:name` segments filled from `params`. */
  path: string;
  params?: Record<string, string | Ref>;
  query?: Record<string, string | Ref>;
  body?: { kind: BodyKind; value: unknown };
  headers?: Record<string, string>;
  /** 'none' and 'tenant' need no credential; otherwise the scopes the route needs (all of a list, or one of `anyOf`). */
  auth: 'none' | 'tenant' | string[] | { anyOf: readonly string[] };
  answers: AnswerKind;
  /** A successful answer removes this fixture: the runner re-creates it. */
  consumes?: string;
}

export const routeName = (t: RouteTemplate): string => `${t.method} ${t.path}`;

const K = '/api/knowledge';
const ref = (name: string) => new Ref(name);
const catalogRead = ['catalog:read'];
const catalogWrite = ['catalog:write'];
const knowledgeRead = ['knowledge:read'];
const knowledgeWrite = ['knowledge:write'];
const admin = ['admin'];
const storefront = { anyOf: ['catalog:read', 'search'] };
/** The origin the fuzz run's search key lists. */
export const SHOP_ORIGIN = 'https://shop.fuzz.test';

const product = {
  external_id: 'fz-new', title: 'Bohrmaschine 18 V', description: 'Akku', short_description: 'kurz', sku: 'SKU-1', gtin: '4006381333931',
  brand: 'Bosch', category: 'Werkzeug', attributes: { farbe: 'blau' }, properties: { watt: 18 }, price_current: '99.90', price_msrp: 120,
  price_special: null, price_on_request: false, currency: 'EUR', image_url: 'https://x.test/a.png', additional_images: ['https://x.test/b.png'],
  product_url: 'https://x.test/p', availability: 'InStock', rating_average: 4.5, rating_count: 3, language: 'de', parent_external_id: null,
  is_variant: false, is_parent: false, similarity_text: 'bohren', search_keywords: ['drill'], embedding_text_description: null,
  embedding_text_properties: null, embedding_text_attributes: null, sync_hash: 'abc',
};

const entry = {
  title: 'Rückgabe', content: 'Rückgabe binnen 30 Tagen', category_id: ref('categoryId'), visibility: 'internal', summary: 's', layer: 'l',
  source_reference: 'ref', similarity_text: 'returns', project_ids: [ref('projectId')], tags: ['policy'], type: 'memory', language: 'de',
  metadata: { ttl_seconds: 3600, importance: 2, subject: 'x', expires_at: '2030-01-01T00:00:00Z' }, source: 'manual', search_keywords: ['retoure'],
};

const productSearch = {
  query: 'bohr', mode: 'hybrid', limit: 5, offset: 0, site_id: ref('siteSlug'), language: 'de', category: 'Werkzeug',
  filters: { brand: ['Bosch'], availability: ['InStock'], price_min: 1, price_max: 500, in_stock: true, attributes: { farbe: ['blau'], gr: 'x' } },
  facets: ['brand', 'category', 'category.lvl1', 'price_current'],
  sort: [{ price_current: 'asc' }], highlight: true, user_token: 'anonymous-3f2a:b.c/d+e=',
};

const knowledgeSearch = {
  query: 'rückgabe', mode: 'keyword', limit: 5, offset: 0, type: 'knowledge', category_id: ref('categoryId'), project_id: ref('projectId'),
  visibility: 'internal', layer: 'l', tags: ['policy'], language: 'de', include_expired: false,
};

const rpc = (method: string, params?: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const tool = (name: string, args: Record<string, unknown>) => rpc('tools/call', { name, arguments: args });
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };
const mcpCall = (value: unknown): RouteTemplate => ({
  method: 'POST', path: '/mcp', body: { kind: 'json', value }, headers: MCP_ACCEPT, auth: { anyOf: BEYOND_SEARCH }, answers: 'jsonrpc',
});

const clientAuth = { client_id: ref('clientId'), client_secret: ref('clientSecret') };

export const TEMPLATES: RouteTemplate[] = [
  // system and discovery
  { method: 'GET', path: '/healthz', auth: 'none', answers: 'system' },
  { method: 'GET', path: '/readyz', auth: 'none', answers: 'system' },
  { method: 'GET', path: '/metrics', auth: 'none', answers: 'system' },
  { method: 'GET', path: '/openapi.json', auth: 'none', answers: 'system' },
  { method: 'GET', path: '/.well-known/oauth-authorization-server', auth: 'tenant', answers: 'api' },
  { method: 'GET', path: '/.well-known/oauth-protected-resource/mcp', auth: 'tenant', answers: 'api' },
  // sites
  { method: 'POST', path: `${K}/sites`, body: { kind: 'json', value: { slug: 'fz-more', name: 'More', language: 'de', domain: 'x.test', site_type: 'shop', platform: 'shopware', config: { a: 1 }, is_default: false } }, auth: catalogWrite, answers: 'api' },
  { method: 'GET', path: `${K}/sites`, auth: catalogRead, answers: 'api' },
  { method: 'GET', path: `${K}/sites/:site_id`, params: { site_id: ref('siteSlug') }, auth: catalogRead, answers: 'api' },
  { method: 'PUT', path: `${K}/sites/:site_id`, params: { site_id: ref('siteId') }, body: { kind: 'json', value: { name: 'Shop', domain: null, site_type: 'shop', platform: null, config: { b: [1] }, is_default: true } }, auth: catalogWrite, answers: 'api' },
  { method: 'DELETE', path: `${K}/sites/:site_id`, params: { site_id: ref('victimSiteSlug') }, auth: catalogWrite, answers: 'api', consumes: 'site' },
  // categories
  { method: 'GET', path: `${K}/categories`, query: { tree: 'true', parent_id: ref('categoryId') }, auth: catalogRead, answers: 'api' },
  { method: 'POST', path: `${K}/categories`, body: { kind: 'json', value: { name: 'Sub', description: 'd', parent_id: ref('categoryId'), sort_order: 1 } }, auth: catalogWrite, answers: 'api' },
  { method: 'GET', path: `${K}/categories/:category_id`, params: { category_id: ref('categoryId') }, auth: catalogRead, answers: 'api' },
  { method: 'PUT', path: `${K}/categories/:category_id`, params: { category_id: ref('categoryId') }, body: { kind: 'json', value: { name: 'Top', description: null, parent_id: null, sort_order: 2 } }, auth: catalogWrite, answers: 'api' },
  { method: 'DELETE', path: `${K}/categories/:category_id`, params: { category_id: ref('victimCategoryId') }, auth: catalogWrite, answers: 'api', consumes: 'category' },
  // products
  { method: 'POST', path: `${K}/products`, query: { site_id: ref('siteSlug') }, body: { kind: 'json', value: product }, auth: catalogWrite, answers: 'api' },
  { method: 'GET', path: `${K}/products`, query: { site_id: ref('siteSlug'), language: 'de', category: 'Werkzeug', limit: '10', offset: '0' }, auth: catalogRead, answers: 'api' },
  { method: 'DELETE', path: `${K}/products`, query: { site_id: ref('siteSlug'), external_id: ref('victimExternalId') }, auth: catalogWrite, answers: 'api', consumes: 'product' },
  { method: 'GET', path: `${K}/products/:product_id`, params: { product_id: ref('productId') }, auth: catalogRead, answers: 'api' },
  { method: 'PUT', path: `${K}/products/:product_id`, params: { product_id: ref('productId') }, body: { kind: 'json', value: { ...product, external_id: 'fz-main' } }, auth: catalogWrite, answers: 'api' },
  { method: 'DELETE', path: `${K}/products/:product_id`, params: { product_id: ref('victimProductId') }, auth: catalogWrite, answers: 'api', consumes: 'product' },
  { method: 'POST', path: `${K}/products/bulk`, query: { site_id: ref('siteSlug'), wait: 'false' }, body: { kind: 'ndjson', value: [product, { ...product, external_id: 'fz-bulk-2' }] }, auth: catalogWrite, answers: 'api' },
  { method: 'GET', path: `${K}/jobs/:job_id`, params: { job_id: ref('jobId') }, query: { wait: 'false' }, auth: catalogWrite, answers: 'api' },
  { method: 'GET', path: `${K}/products/:product_id/related`, params: { product_id: ref('productId') }, query: { limit: '5', offset: '0' }, auth: storefront, answers: 'api' },
  { method: 'OPTIONS', path: `${K}/products/:product_id/related`, params: { product_id: ref('productId') }, headers: { origin: SHOP_ORIGIN, 'access-control-request-method': 'GET' }, auth: 'none', answers: 'api' },
  // knowledge entries
  { method: 'POST', path: `${K}/knowledge-entries`, body: { kind: 'json', value: entry }, auth: knowledgeWrite, answers: 'api' },
  { method: 'POST', path: `${K}/knowledge-entries/personal`, body: { kind: 'json', value: { ...entry, visibility: 'personal' } }, auth: knowledgeWrite, answers: 'api' },
  { method: 'GET', path: `${K}/knowledge-entries`, query: { category_id: ref('categoryId'), type: 'knowledge', project_id: ref('projectId'), visibility: 'internal', layer: 'l', include_expired: 'true', limit: '10', offset: '0' }, auth: knowledgeRead, answers: 'api' },
  { method: 'GET', path: `${K}/knowledge-entries/:entry_id`, params: { entry_id: ref('entryId') }, query: { include_expired: 'true' }, auth: knowledgeRead, answers: 'api' },
  { method: 'PUT', path: `${K}/knowledge-entries/:entry_id`, params: { entry_id: ref('entryId') }, body: { kind: 'json', value: { title: 'T', content: 'C', visibility: 'internal', metadata: { audience: 'all' }, tags: ['a'], project_ids: null } }, auth: knowledgeWrite, answers: 'api' },
  { method: 'DELETE', path: `${K}/knowledge-entries/:entry_id`, params: { entry_id: ref('victimEntryId') }, auth: knowledgeWrite, answers: 'api', consumes: 'entry' },
  { method: 'GET', path: `${K}/knowledge-entries/:entry_id/related`, params: { entry_id: ref('entryId') }, query: { limit: '5', offset: '0', include_expired: 'false' }, auth: knowledgeRead, answers: 'api' },
  // search
  { method: 'POST', path: `${K}/search/products`, body: { kind: 'json', value: productSearch }, auth: storefront, answers: 'api' },
  { method: 'POST', path: `${K}/search/multi`, body: { kind: 'json', value: { searches: [productSearch, { query: 'säge', sort: [{ rating_average: 'desc' }] }] } }, auth: storefront, answers: 'api' },
  { method: 'POST', path: `${K}/search/facet-values`, body: { kind: 'json', value: { query: 'bohr', facet: 'brand', facet_query: 'bo', filters: productSearch.filters } }, auth: storefront, answers: 'api' },
  { method: 'GET', path: `${K}/search/analytics`, query: { site_id: ref('siteSlug'), from: '2026-01-01', to: '2026-01-31', limit: '10' }, auth: { anyOf: ['admin', 'catalog:read'] }, answers: 'api' },
  { method: 'POST', path: `${K}/search/events`, body: { kind: 'json', value: { events: [{ event_id: 'ev-1', type: 'click', query_id: 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', product_id: '00000000-0000-4000-8000-000000000000', position: 1 }] } }, auth: storefront, answers: 'api' },
  { method: 'GET', path: `${K}/search/suggestions`, query: { site_id: ref('siteSlug'), q: 'bo', limit: '5' }, auth: storefront, answers: 'api' },
  { method: 'GET', path: `${K}/search/suggestions/blocked`, auth: admin, answers: 'api' },
  { method: 'POST', path: `${K}/search/suggestions/blocked`, body: { kind: 'json', value: { query: 'Bohr  Billig' } }, auth: admin, answers: 'api' },
  { method: 'DELETE', path: `${K}/search/suggestions/blocked`, query: { query: 'bohr billig' }, auth: admin, answers: 'api' },
  { method: 'OPTIONS', path: `${K}/search/products`, headers: { origin: SHOP_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' }, auth: 'none', answers: 'api' },
  { method: 'GET', path: `${K}/whoami`, auth: { anyOf: BEYOND_SEARCH }, answers: 'api' },
  { method: 'POST', path: `${K}/search/knowledge`, body: { kind: 'json', value: knowledgeSearch }, auth: knowledgeRead, answers: 'api' },
  // MCP
  mcpCall(rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } })),
  mcpCall(rpc('tools/list')),
  mcpCall(tool('search_products', { query: 'bohr', site_id: ref('siteSlug'), language: 'de', brand: ['Bosch'], price_min: 1, price_max: 500, in_stock: true, mode: 'keyword', limit: 5, offset: 0 })),
  mcpCall(tool('get_product', { product_id: ref('productId') })),
  mcpCall(tool('related_products', { product_id: ref('productId'), limit: 3, offset: 0 })),
  mcpCall(tool('search_knowledge', { query: 'rückgabe', type: 'knowledge', tags: ['policy'], language: 'de', include_expired: true })),
  mcpCall(tool('get_knowledge_entry', { entry_id: ref('entryId'), include_expired: true })),
  mcpCall(tool('list_categories', {})),
  mcpCall(tool('remember', { title: 'Merk', content: 'dir das', tags: ['x'], ttl_seconds: 60, language: 'de' })),
  mcpCall(tool('forget', { entry_id: ref('entryId') })),
  mcpCall(rpc('resources/list')),
  mcpCall(rpc('resources/read', { uri: 'kcs://knowledge-entries/00000000-0000-4000-8000-000000000000' })),
  mcpCall(rpc('notifications/initialized', undefined, undefined)),
  mcpCall([rpc('ping'), rpc('tools/list', undefined, 2)]),
  // OAuth
  { method: 'POST', path: '/oauth/register', body: { kind: 'json', value: { client_name: 'Fuzz', redirect_uris: ['http://127.0.0.1:9/cb'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', scope: 'catalog:read knowledge:read' } }, auth: admin, answers: 'oauth' },
  { method: 'POST', path: '/oauth/token', body: { kind: 'form', value: { grant_type: 'client_credentials', scope: 'catalog:read', resource: 'http://x/mcp', ...clientAuth } }, auth: 'tenant', answers: 'oauth' },
  { method: 'POST', path: '/oauth/token', body: { kind: 'form', value: { grant_type: 'authorization_code', code: 'kcs_code_x', redirect_uri: 'http://127.0.0.1:9/cb', code_verifier: 'v'.repeat(43), client_id: ref('publicClientId') } }, auth: 'tenant', answers: 'oauth' },
  { method: 'POST', path: '/oauth/token', body: { kind: 'form', value: { grant_type: 'refresh_token', refresh_token: 'kcs_rt_x', scope: 'catalog:read', ...clientAuth } }, auth: 'tenant', answers: 'oauth' },
  { method: 'POST', path: '/oauth/revoke', body: { kind: 'form', value: { token: 'kcs_at_x', token_type_hint: 'access_token', ...clientAuth } }, auth: 'tenant', answers: 'oauth' },
  { method: 'GET', path: '/oauth/authorize', query: { response_type: 'code', client_id: ref('publicClientId'), redirect_uri: 'http://127.0.0.1:9/cb', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', state: 's', scope: 'catalog:read', resource: 'http://x' }, auth: 'tenant', answers: 'html' },
  { method: 'POST', path: '/oauth/authorize', body: { kind: 'form', value: { request_id: '00000000-0000-4000-8000-000000000000', csrf_token: 'c', decision: 'approve', api_key: 'kcs_x_y' } }, auth: 'tenant', answers: 'html' },
  { method: 'GET', path: `${K}/oauth/clients`, auth: admin, answers: 'api' },
  { method: 'GET', path: `${K}/oauth/clients/:client_id`, params: { client_id: ref('clientId') }, auth: admin, answers: 'api' },
  { method: 'DELETE', path: `${K}/oauth/clients/:client_id`, params: { client_id: ref('victimClientId') }, auth: admin, answers: 'api', consumes: 'client' },
  // admin
  { method: 'GET', path: `${K}/audit`, query: { entity_type: 'knowledge_entry', entity_id: ref('entryId'), before: '99999999999999-0', limit: '10' }, auth: admin, answers: 'api' },
  { method: 'GET', path: `${K}/settings`, auth: admin, answers: 'api' },
  { method: 'PUT', path: `${K}/settings`, body: { kind: 'json', value: { variant_strategy: 'children_only', oauth_open_registration: true, rate_limit_per_s: 0 } }, auth: admin, answers: 'api', consumes: 'settings' },
  { method: 'GET', path: `${K}/users`, query: { limit: '10', offset: '0' }, auth: admin, answers: 'api' },
  { method: 'POST', path: `${K}/users`, body: { kind: 'json', value: { email: 'new@fuzz.test', name: 'New' } }, auth: admin, answers: 'api' },
  { method: 'GET', path: `${K}/api-keys`, auth: admin, answers: 'api' },
  { method: 'GET', path: `${K}/synonyms`, query: { site_id: ref('siteSlug'), limit: '10' }, auth: admin, answers: 'api' },
  { method: 'PUT', path: `${K}/synonyms/:id`, params: { id: 'phones' }, body: { kind: 'json', value: { synonyms: ['handy', 'smartphone'], language: 'de' } }, auth: admin, answers: 'api' },
  { method: 'GET', path: `${K}/synonyms/:id`, params: { id: 'phones' }, auth: admin, answers: 'api' },
  { method: 'GET', path: `${K}/synonyms/export`, auth: admin, answers: 'api' },
  { method: 'POST', path: `${K}/synonyms/import`, query: { site_id: ref('siteSlug'), language: 'de' }, body: { kind: 'text', value: ['handy, smartphone', 'hose => jeans, chino'] }, auth: admin, answers: 'api' },
  { method: 'GET', path: `${K}/search-rules`, query: { site_id: ref('siteSlug'), query: 'bohrer', limit: '10' }, auth: admin, answers: 'api' },
  {
    method: 'PUT', path: `${K}/search-rules/:id`, params: { id: 'bohr' }, auth: admin, answers: 'api',
    body: { kind: 'json', value: { site_id: ref('siteSlug'), query: 'bohr', match: 'contains', pin: [{ product_id: ref('productId'), position: 2 }], filters: { brand: ['Bosch'], price_min: 1 }, active_from: '2020-01-01', active_until: '2999-01-01T00:00:00Z' } },
  },
  { method: 'GET', path: `${K}/search-rules/:id`, params: { id: 'bohr' }, auth: admin, answers: 'api' },
  { method: 'POST', path: `${K}/api-keys`, body: { kind: 'json', value: { name: 'k', scopes: ['catalog:read'], user_id: ref('userId'), expires_at: '2030-01-01T00:00:00Z' } }, auth: admin, answers: 'api' },
  { method: 'POST', path: `${K}/api-keys`, body: { kind: 'json', value: { name: 'shop', scopes: ['search'], allowed_origins: [SHOP_ORIGIN, 'HTTP://LOCALHOST:3000', 'http://[::1]:8080'] } }, auth: admin, answers: 'api' },
  { method: 'DELETE', path: `${K}/api-keys/:key_id`, params: { key_id: ref('victimKeyId') }, auth: admin, answers: 'api', consumes: 'key' },
];
