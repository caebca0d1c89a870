// Small fixtures shared by the knowledge suites.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TenantFixture } from './stack.js';

/** Request options with a key only when one is given (an explicit undefined would drop the fixture's key). */
export const withKey = (key: string | undefined, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
  (key ? { key, ...options } : options);

/** A new category of the tenant; its id. */
export async function newCategory(t: TenantFixture): Promise<string> {
  const res = await t.request('POST', '/api/knowledge/categories', { body: { name: `cat-${randomUUID()}` } });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}
