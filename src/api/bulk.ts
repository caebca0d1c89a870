// Bulk import: NDJSON or a JSON array in, 202 with the job out; job status under /jobs.
import type { BulkItems, IngestService } from '../domain/ingest.js';
import { MAX_BULK_ITEMS, NOT_JSON } from '../domain/ingest.js';
import type { SiteService } from '../domain/sites.js';
import { HttpError } from '../http/errors.js';
import { jsonDecodeError } from '../http/input.js';
import { defineRoute, json, type IncomingRequest, type Route } from '../http/route.js';
import { BulkAccepted, IngestJob, JobIdParams, JobListQuery, JobSummary, JobWaitQuery, SiteQuery } from '../schemas/products.js';
import { Type } from '@sinclair/typebox';
import { surrogateFreeJson } from '../schemas/surrogateFreeJson.js';
import { actorOf } from './actor.js';
import { sourceOf } from './products.js';

export const BULK_BODY_LIMIT = 32 * 1024 * 1024;
const WAIT_MS = 60_000;

/** Items of an NDJSON (one JSON value per non-blank line) or JSON-array body; unparsable lines are item errors. */
export function parseBulkBody(req: IncomingRequest): BulkItems {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(req.body.toString('utf8'));
    } catch (error) {
      throw new HttpError(422, [jsonDecodeError(error)]);
    }
    if (!Array.isArray(parsed)) throw new HttpError(422, [{ loc: ['body'], msg: 'Input should be a valid list', type: 'list_type' }]);
    const items = checkCount(parsed);
    return { count: items.length, item: (index) => items[index], lines: null, surrogateFree: surrogateFreeJson(req.body) };
  }
  const lines = checkCount(nonBlankLines(req.body));
  const item = (index: number): unknown => {
    try {
      return JSON.parse(lines[index].toString('utf8')) as unknown;
    } catch {
      return NOT_JSON;
    }
  };
  return { count: lines.length, item, lines, surrogateFree: surrogateFreeJson(req.body) };
}

/** The lines of a body that hold more than white space, as views of its bytes (no copy). */
function nonBlankLines(body: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  for (let start = 0; start < body.length; ) {
    let end = body.indexOf(10, start);
    if (end === -1) end = body.length;
    for (let i = start; i < end; i++) {
      const c = body[i];
      if (c !== 32 && c !== 9 && c !== 13 && c !== 11 && c !== 12) {
        lines.push(body.subarray(start, end));
        break;
      }
    }
    start = end + 1;
  }
  return lines;
}

function checkCount<T>(items: T[]): T[] {
  if (items.length > MAX_BULK_ITEMS) throw new HttpError(413, `A bulk request holds at most ${MAX_BULK_ITEMS} items; this one has ${items.length}`);
  return items;
}

export function bulkRoutes(ingest: IngestService, sites: SiteService): Route[] {
  return [
    defineRoute({
      method: 'POST', path: '/api/knowledge/products/bulk', tags: ['products'], summary: 'Bulk upsert products (NDJSON or JSON array)',
      description: `Up to ${MAX_BULK_ITEMS} items and 32 MiB. Every item is checked now: invalid ones are listed in errors ` +
        '(index 0-based; detail is the 422 detail list of that item) and never block valid ones. The valid ones are written ' +
        'by the ingest workers with the same rules as the single upsert. With wait=true the answer is 200 with the job once ' +
        'its items are stored (up to 60 s).',
      auth: { scopes: ['catalog:write'] },
      query: Type.Composite([SiteQuery, JobWaitQuery]),
      bodyKind: 'raw',
      contentTypes: ['application/x-ndjson', 'application/json'],
      maxBodyBytes: BULK_BODY_LIMIT,
      responses: { 202: { description: 'Accepted', schema: BulkAccepted }, 200: { description: 'With wait=true: the job', schema: IngestJob } },
      handler: async ({ tenant, principal, query, req }) => {
        const siteId = await sites.resolveId(tenant.id, query.site_id);
        const accepted = await ingest.accept(tenant.id, { siteId, body: parseBulkBody(req), source: sourceOf(req, 'bulk') }, actorOf(principal, req));
        if (query.wait) return json(200, await ingest.waitFor(tenant.id, accepted.job_id, WAIT_MS));
        return json(202, accepted);
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/knowledge/jobs', tags: ['products'], summary: 'The latest bulk imports',
      description: 'Newest first, created in the last 7 days (a job is kept that long), without their item errors (GET the job for those).',
      auth: { scopes: ['catalog:write'] },
      query: JobListQuery,
      responses: { 200: { description: 'The jobs', schema: Type.Array(JobSummary) } },
      handler: async ({ tenant, query }) => json(200, await ingest.recent(tenant.id, query.limit ?? 20)),
    }),
    defineRoute({
      method: 'GET', path: '/api/knowledge/jobs/:job_id', tags: ['products'], summary: 'Progress of a bulk import',
      description: 'Status queued|running|completed|failed, item counts, item errors and embedding progress. ' +
        'wait=true answers once the items are stored (up to 60 s). Needs catalog:write: the job is the receipt of a write.',
      auth: { scopes: ['catalog:write'] },
      params: JobIdParams,
      query: JobWaitQuery,
      responses: { 200: { description: 'The job', schema: IngestJob } },
      handler: async ({ tenant, params, query }) =>
        json(200, query.wait ? await ingest.waitFor(tenant.id, params.job_id, WAIT_MS) : await ingest.view(tenant.id, params.job_id)),
    }),
  ];
}
