// Shared by the site suites: the stack, routes and keys, exact 422 detail builders, create, list and get wrappers.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before } from 'node:test';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../../helpers/stack.js';

/** The file's stack, started by useStack() before its tests and closed after them. */
export let stack: Stack;
export function useStack(): void {
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());
}

export const SITES = '/api/knowledge/sites';
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SLUG_PATTERN = '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$';
export const SITE_KEYS = ['config', 'created_at', 'domain', 'id', 'is_default', 'language', 'name', 'platform', 'site_type', 'slug', 'tenant_id'];

let slugCounter = 0;
export const nextSlug = () => `site-${++slugCounter}`;
export const x = (n: number, ch = 'a') => ch.repeat(n);

export type Body = Record<string, unknown>;
/** A valid create body with a fresh slug; `over` replaces or adds fields. */
export const siteBody = (over: Body = {}): Body => ({ slug: nextSlug(), name: 'Shop', language: 'en', ...over });

export const err = (field: string, msg: string, type: string) => ({ loc: ['body', field], msg, type });
export const tooShort = (field: string, n: number) =>
  err(field, `String should have at least ${n} character${n === 1 ? '' : 's'}`, 'string_too_short');
export const tooLong = (field: string, n: number) => err(field, `String should have at most ${n} characters`, 'string_too_long');
export const patternMismatch = err('slug', `String should match pattern '${SLUG_PATTERN}'`, 'string_pattern_mismatch');
export const missing = (field: string) => err(field, 'Field required', 'missing');

export async function create(t: TenantFixture, over: Body = {}): Promise<any> {
  const res = await t.request('POST', SITES, { body: siteBody(over) });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Creates sites one after the other, a few ms apart, so their creation order is unambiguous. */
export async function createInOrder(t: TenantFixture, count: number): Promise<any[]> {
  const out = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) await delay(5);
    out.push(await create(t));
  }
  return out;
}

export async function list(t: TenantFixture): Promise<any[]> {
  const res = await t.request('GET', SITES);
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.body));
  return res.body;
}

/** The id of the tenant's default site, asserting that there is at most one. */
export async function defaultId(t: TenantFixture): Promise<string | null> {
  const defaults = (await list(t)).filter((s) => s.is_default === true);
  assert.ok(defaults.length <= 1, `more than one default site: ${defaults.map((s) => s.slug).join(', ')}`);
  return defaults[0]?.id ?? null;
}

export async function get(t: TenantFixture, idOrSlug: string): Promise<HttpResult> {
  return t.request('GET', `${SITES}/${idOrSlug}`);
}
