import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

let stack: Stack;
let acme: TenantFixture;
before(async () => {
  stack = await startStack();
  acme = await stack.tenant('acme');
});
after(() => stack.close());

test('a site round-trips over HTTP', async () => {
  const created = await acme.request('POST', '/api/knowledge/sites', { body: { slug: 'shop', name: 'Shop', language: 'en' } });
  assert.equal(created.status, 201);
  const got = await acme.request('GET', `/api/knowledge/sites/${created.body.id}`);
  assert.equal(got.status, 200);
  assert.deepEqual(got.body, created.body);
});
