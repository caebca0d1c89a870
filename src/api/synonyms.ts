// Synonym sets over HTTP (admin scope, DESIGN §6 merchandising): create or replace by id, read,
// list, delete, and a Solr synonyms file in and out. Product searches apply them from the next
// search in this process, within a second in every other (domain/tenantDocs.ts).
import { Type } from '@sinclair/typebox';
import { InvalidError } from '../domain/errors.js';
import type { SynonymService } from '../domain/synonyms.js';
import { defineRoute, json, noContent, type Route } from '../http/route.js';
import { HttpError } from '../http/errors.js';
import { SynonymIdParams, SynonymImportResult, SynonymListQuery, SynonymSet, SynonymSetWrite } from '../schemas/synonyms.js';
import { actorOf } from './actor.js';

const admin = { scopes: ['admin' as const] };
const tags = ['synonyms'];
const PATH = '/api/knowledge/synonyms';
/** A Solr file of 10,000 sets fits well within this. */
const IMPORT_LIMIT = 8 * 1024 * 1024;

const ScopeQuery = Type.Object({
  site_id: SynonymListQuery.properties.site_id,
  language: SynonymListQuery.properties.language,
});

export function synonymRoutes(synonyms: SynonymService): Route[] {
  return [
    defineRoute({
      method: 'GET', path: PATH, tags, summary: 'List synonym sets',
      description: 'Oldest first; site_id (UUID or slug) and language narrow the list to the sets of that site or language. X-Total-Count holds the total.',
      auth: admin,
      query: SynonymListQuery,
      responses: { 200: { description: 'Synonym sets', schema: Type.Array(SynonymSet) } },
      errors: [404],
      handler: async ({ tenant, query }) => {
        const { items, total } = await synonyms.list(tenant.id, { siteId: query.site_id, language: query.language }, { offset: query.offset ?? 0, limit: query.limit ?? 50 });
        return json(200, items, { 'X-Total-Count': String(total) });
      },
    }),
    defineRoute({
      method: 'GET', path: `${PATH}/export`, tags, summary: 'Export synonym sets as a Solr synonyms file',
      description: 'text/plain: a line `a, b, c` per multi-way set, `root => a, b` per one-way set, each after a comment naming its id, site and ' +
        'language. site_id and language narrow it as the list.',
      auth: admin,
      query: ScopeQuery,
      responses: { 200: { description: 'The file', contentType: 'text/plain; charset=utf-8' } },
      errors: [404],
      handler: async ({ tenant, query }) => ({
        status: 200, raw: { contentType: 'text/plain; charset=utf-8', data: await synonyms.exportFile(tenant.id, { siteId: query.site_id, language: query.language }) },
      }),
    }),
    defineRoute({
      method: 'POST', path: `${PATH}/import`, tags, summary: 'Import a Solr synonyms file',
      description: 'text/plain, UTF-8. Each line a new set with a generated id: `a, b, c` multi-way, `a => b, c` one-way (`a, b => c`: one set per ' +
        'entry left of =>); `#` comment lines and blank lines are skipped, `\\,` is a comma inside an entry. The sets are for the site and ' +
        'language given in the query (none: every search of the tenant). A bad line is a 422 whose loc is ["body", <line number>] (the first 1,000 ' +
        'bad lines are named); so is a file that would take the tenant past 100,000 sets or 250,000 entries in all; then nothing is imported. ' +
        'Another change to the tenant\'s sets while a large file is written: 409, send it again.',
      auth: admin,
      query: ScopeQuery,
      bodyKind: 'raw',
      contentTypes: ['text/plain'],
      maxBodyBytes: IMPORT_LIMIT,
      responses: { 200: { description: 'How many sets were made', schema: SynonymImportResult } },
      errors: [409],
      handler: async ({ tenant, principal, query, req }) => {
        const text = new TextDecoder('utf-8', { fatal: true });
        let body: string;
        try {
          body = text.decode(req.body);
        } catch {
          throw new HttpError(422, [{ loc: ['body'], msg: 'The file is not UTF-8 text', type: 'unicode_decode' }]);
        }
        try {
          const imported = await synonyms.importFile(tenant.id, body, { siteId: query.site_id, language: query.language }, actorOf(principal, req));
          return json(200, { imported });
        } catch (error) {
          // site_id is a query parameter: its error names the query, a line's the body.
          if (!(error instanceof InvalidError)) throw error;
          throw new HttpError(422, error.errors.map((e) => ({ ...e, loc: [e.loc[0] === 'site_id' ? 'query' : 'body', ...e.loc] })));
        }
      },
    }),
    defineRoute({
      method: 'GET', path: `${PATH}/:id`, tags, summary: 'Read a synonym set',
      auth: admin,
      params: SynonymIdParams,
      responses: { 200: { description: 'The set', schema: SynonymSet } },
      errors: [404],
      handler: async ({ tenant, params }) => json(200, await synonyms.get(tenant.id, params.id)),
    }),
    defineRoute({
      method: 'PUT', path: `${PATH}/:id`, tags, summary: 'Create or replace a synonym set',
      description: 'Multi-way `{synonyms: [..]}` (every entry finds the others) or one-way `{root, synonyms: [..]}` (the root finds its ' +
        'synonyms, not back); 2–50 entries in all, each 1–100 characters, words or phrases. Optional site_id (UUID or slug; unknown → 422) and ' +
        'language limit it to that site\'s or language\'s searches. 201 when created, 200 when replaced. A tenant keeps at most 100,000 sets and ' +
        '250,000 entries in all (a root counts): a write past either is a 422. The ids export and import are the routes of those names.',
      auth: admin,
      params: SynonymIdParams,
      body: SynonymSetWrite,
      responses: { 200: { description: 'Replaced', schema: SynonymSet }, 201: { description: 'Created', schema: SynonymSet } },
      handler: async ({ tenant, principal, params, body, req }) => {
        const { set, created } = await synonyms.put(tenant.id, params.id, body, actorOf(principal, req));
        return json(created ? 201 : 200, set);
      },
    }),
    defineRoute({
      method: 'DELETE', path: `${PATH}/:id`, tags, summary: 'Delete a synonym set',
      auth: admin,
      params: SynonymIdParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [404],
      handler: async ({ tenant, principal, params, req }) => {
        await synonyms.delete(tenant.id, params.id, actorOf(principal, req));
        return noContent();
      },
    }),
  ];
}
