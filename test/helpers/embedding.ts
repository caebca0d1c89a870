// Waiting for the embed workers in end-to-end tests.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import type { TenantFixture } from './stack.js';

export const EMBED_TIMEOUT_MS = 60_000;

/** Polls a product or entry (GET `path`) until its embedding_status is ready; fails on failed or after EMBED_TIMEOUT_MS. */
export async function waitEmbedded(t: TenantFixture, path: string, what: string): Promise<void> {
  const deadline = Date.now() + EMBED_TIMEOUT_MS;
  for (;;) {
    const res = await t.request('GET', path);
    assert.equal(res.status, 200, res.text);
    if (res.body.embedding_status === 'ready') return;
    assert.notEqual(res.body.embedding_status, 'failed', `${what} failed to embed`);
    assert.ok(Date.now() < deadline, `${what} was not embedded within ${EMBED_TIMEOUT_MS / 1000} s (${res.body.embedding_status})`);
    await delay(200);
  }
}
