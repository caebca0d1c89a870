// Assertions on kcs's error answers, shared by the API suites.
import assert from 'node:assert/strict';
import type { HttpResult } from './stack.js';

/** A 422 with exactly this FastAPI-shaped detail list. */
export function assert422(res: HttpResult, detail: unknown[]): void {
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(res.body, { detail });
}

/** Any other error: this status and `{"detail": "<a sentence>"}` only. */
export function assertError(res: HttpResult, status: number): void {
  assert.equal(res.status, status, res.text);
  assert.deepEqual(Object.keys(res.body), ['detail']);
  assert.equal(typeof res.body.detail, 'string');
  assert.ok(res.body.detail.length > 0);
}

/** A 403 naming the scope the route (or this write) needs. */
export function assertInsufficientScope(res: HttpResult, scope: string): void {
  assertError(res, 403);
  assert.equal(res.headers['www-authenticate'], `Bearer error="insufficient_scope", scope="${scope}"`);
}
