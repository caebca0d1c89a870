// Shared by the bulk import suites: the stack (embedding off, KCS_EMBEDDER=none; see
// test/workers/embedding.test.ts) with one tenant, routes, exact item errors, the job's keys, and
// helpers to post a bulk, wait for its job, list and count a site's products.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../../helpers/stack.js';

/** The file's stack and its tenant, set by useStack() before its tests; the stack is closed after them. */
export let stack: Stack;
export let t: TenantFixture;
export function useStack(): void {
  before(async () => {
    stack = await startStack({ KCS_EMBEDDER: 'none' });
    t = await stack.tenant();
  });
  after(() => stack.close());
}

export const BULK = '/api/knowledge/products/bulk';
export const PRODUCTS = '/api/knowledge/products';
export const JOBS = '/api/knowledge/jobs';
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
export const MIB = 1024 * 1024;
export const NDJSON = 'application/x-ndjson';
export const JSON_TYPE = 'application/json';

export const JSON_INVALID = [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }];
export const TITLE_TOO_SHORT = [{ loc: ['body', 'title'], msg: 'String should have at least 1 character', type: 'string_too_short' }];
export const NOT_AN_OBJECT = [{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }];
const JOB_KEYS = ['counts', 'created_at', 'embedding', 'errors', 'finished_at', 'id', 'status', 'total'];

let siteCounter = 0;
/** A fresh site of tenant `on`; returns its id. */
export async function newSite(on: TenantFixture = t): Promise<string> {
  const res = await on.request('POST', '/api/knowledge/sites', { body: { slug: `bulk-${++siteCounter}`, name: 'Bulk shop', language: 'en' } });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

type Item = Record<string, unknown>;
export const item = (externalId: string | null, over: Item = {}): Item => ({
  ...(externalId === null ? {} : { external_id: externalId }),
  title: `Product ${externalId ?? 'anonymous'}`,
  language: 'en',
  ...over,
});
export const ndjson = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join('\n') + '\n';

export function postBulk(siteId: string, raw: string | Buffer, contentType: string, options: { query?: string; headers?: Record<string, string>; on?: TenantFixture } = {}): Promise<HttpResult> {
  const query = options.query ? `&${options.query}` : '';
  return (options.on ?? t).request('POST', `${BULK}?site_id=${encodeURIComponent(siteId)}${query}`, {
    raw,
    headers: { 'content-type': contentType, ...options.headers },
  });
}

/** The job once the worker has stored its items. */
export async function waitJob(jobId: string, on: TenantFixture = t): Promise<any> {
  const res = await on.request('GET', `${JOBS}/${jobId}?wait=true`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.status, 'completed', JSON.stringify(res.body));
  return res.body;
}

/** Every product of a site, paging through the list. */
export async function listAll(siteId: string): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; offset += 200) {
    const res = await t.request('GET', `${PRODUCTS}?site_id=${siteId}&limit=200&offset=${offset}`);
    assert.equal(res.status, 200, res.text);
    out.push(...res.body);
    if (res.body.length < 200) return out;
  }
}

export async function totalCount(siteId: string): Promise<number> {
  const res = await t.request('GET', `${PRODUCTS}?site_id=${siteId}&limit=1`);
  assert.equal(res.status, 200, res.text);
  return Number(res.headers['x-total-count']);
}

export function assertJobShape(job: any): void {
  assert.deepEqual(Object.keys(job).sort(), JOB_KEYS);
  assert.match(job.id, UUID_V4);
  assert.ok(['queued', 'running', 'completed', 'failed'].includes(job.status), job.status);
  assert.deepEqual(Object.keys(job.counts).sort(), ['created', 'failed', 'rejected', 'unchanged', 'updated']);
  assert.deepEqual(Object.keys(job.embedding).sort(), ['done', 'eta_s', 'failed', 'pending', 'rate_per_s']);
  assert.match(job.created_at, ISO);
  if (job.status === 'completed' || job.status === 'failed') {
    assert.match(job.finished_at, ISO);
    assert.ok(Date.parse(job.finished_at) >= Date.parse(job.created_at));
  } else {
    assert.equal(job.finished_at, null);
  }
}
