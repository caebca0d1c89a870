// Shared by the product suites: the stack, routes, exact 422 detail builders, site, upsert, get and list wrappers.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../../helpers/stack.js';

/** The file's stack (no embedder), started by useStack() before its tests and closed after them. */
export let stack: Stack;
export function useStack(): void {
  before(async () => {
    stack = await startStack({ KCS_EMBEDDER: 'none' });
  });
  after(() => stack.close());
}

export const PRODUCTS = '/api/knowledge/products';
const SITES = '/api/knowledge/sites';
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export type Body = Record<string, unknown>;
export const x = (n: number, ch = 'a') => ch.repeat(n);
let counter = 0;
export const uniq = (prefix = 'x') => `${prefix}-${++counter}`;

export const err = (field: string, msg: string, type: string, root = 'body') => ({ loc: [root, field], msg, type });
export const tooShort = (field: string, n: number) =>
  err(field, `String should have at least ${n} character${n === 1 ? '' : 's'}`, 'string_too_short');
export const missing = (field: string, root = 'body') => err(field, 'Field required', 'missing', root);
export const decimalParsing = (field: string) => err(field, 'Input should be a valid decimal', 'decimal_parsing');
export const ge = (field: string, n: number, root = 'body') => err(field, `Input should be greater than or equal to ${n}`, 'greater_than_equal', root);
export const le = (field: string, n: number, root = 'body') => err(field, `Input should be less than or equal to ${n}`, 'less_than_equal', root);

export async function createSite(t: TenantFixture, over: Body = {}): Promise<any> {
  const res = await t.request('POST', SITES, { body: { slug: uniq('site'), name: 'Shop', language: 'en', ...over } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

export const productBody = (over: Body = {}): Body => ({ title: 'Product', language: 'en', ...over });
export const q = (value: string) => encodeURIComponent(value);

export function post(t: TenantFixture, siteRef: string, body: unknown, headers?: Record<string, string>): Promise<HttpResult> {
  return t.request('POST', `${PRODUCTS}?site_id=${q(siteRef)}`, { body, headers });
}

/** POSTs and asserts the status and X-Upsert-Result; returns the product. */
export async function upsert(t: TenantFixture, siteRef: string, body: Body, expected: 'created' | 'updated' | 'unchanged', headers?: Record<string, string>): Promise<any> {
  const res = await post(t, siteRef, body, headers);
  assert.equal(res.status, expected === 'created' ? 201 : 200, res.text);
  assert.equal(res.headers['x-upsert-result'], expected);
  return res.body;
}

export async function getProduct(t: TenantFixture, id: string): Promise<any> {
  const res = await t.request('GET', `${PRODUCTS}/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

export async function listProducts(t: TenantFixture, query = ''): Promise<{ items: any[]; total: number }> {
  const res = await t.request('GET', `${PRODUCTS}${query}`);
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.body), res.text);
  const total = res.headers['x-total-count'];
  assert.equal(typeof total, 'string', 'X-Total-Count is missing');
  return { items: res.body, total: Number(total) };
}
