// Shared by the category suites: the stack, routes and keys, exact 422 details, request wrappers and tree shapes.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before } from 'node:test';
import { startStack, type Stack, type TenantFixture } from '../../helpers/stack.js';

/** The file's stack, started by useStack() before its tests and closed after them. */
export let stack: Stack;
export function useStack(): void {
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());
}

export const CATEGORIES = '/api/knowledge/categories';
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const CATEGORY_KEYS = ['created_at', 'description', 'id', 'name', 'parent_id', 'sort_order', 'tenant_id', 'updated_at'];

export const x = (n: number, ch = 'a') => ch.repeat(n);
type Body = Record<string, unknown>;

export const err = (field: string, msg: string, type: string, root = 'body') => ({ loc: [root, field], msg, type });
export const UUID_ERROR = 'Input should be a valid UUID';
export const NO_PARENT = err('parent_id', 'Parent category not found', 'value_error');
export const CYCLE = err('parent_id', 'A category cannot be moved below itself or its descendants', 'value_error');

export async function create(t: TenantFixture, body: Body): Promise<any> {
  const res = await t.request('POST', CATEGORIES, { body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Creates categories one after the other, a few ms apart, so created_at orders them unambiguously. */
export async function createInOrder(t: TenantFixture, bodies: Body[]): Promise<any[]> {
  const out = [];
  for (const [i, body] of bodies.entries()) {
    if (i > 0) await delay(5);
    out.push(await create(t, body));
  }
  return out;
}

export async function list(t: TenantFixture, query = ''): Promise<any[]> {
  const res = await t.request('GET', `${CATEGORIES}${query}`);
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.body));
  return res.body;
}

export const names = (items: Array<{ name: string }>) => items.map((c) => c.name);
export const get = (t: TenantFixture, id: string) => t.request('GET', `${CATEGORIES}/${id}`);
export const put = (t: TenantFixture, id: string, body: unknown) => t.request('PUT', `${CATEGORIES}/${id}`, { body });
export const del = (t: TenantFixture, id: string) => t.request('DELETE', `${CATEGORIES}/${id}`);

/** A tree reduced to names: [name, [children...]]. */
type Shape = [string, Shape[]];
export const shape = (nodes: any[]): Shape[] => nodes.map((n) => [n.name, shape(n.children)]);
