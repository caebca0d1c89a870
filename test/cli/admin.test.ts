// `kcs admin` against a private redis-server, checked through the HTTP API of a kcs on the same store.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { runCli } from '../helpers/process.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let env: Record<string, string>;
before(async () => {
  stack = await startStack();
  env = { ...stack.redisEnv, LOG_LEVEL: 'silent' };
});
after(() => stack.close());

const admin = async (...args: string[]) => {
  const run = await runCli(['admin', ...args], env);
  return { ...run, json: run.code === 0 && run.stdout.trim().startsWith('{') || run.stdout.trim().startsWith('[') ? JSON.parse(run.stdout) : undefined };
};

test('tenant, user and key lifecycle through the CLI', async () => {
  const tenant = await admin('tenant', 'create', 'cli-co', '--name', 'CLI Co');
  assert.equal(tenant.code, 0, tenant.stderr);
  assert.equal(tenant.json.slug, 'cli-co');
  assert.deepEqual(tenant.json.settings, { variant_strategy: 'all', oauth_open_registration: false, rate_limit_per_s: 0, facet_attributes: [], understand_queries: false,
    search_analytics: true, analytics_retention_days: 90, suggestion_min_searches: 3, search_events_rate_per_s: 10, search_events_key_rate_per_s: 100 });

  assert.equal((await admin('tenant', 'create', 'cli-co')).code, 1, 'a taken slug is refused');
  assert.ok((await admin('tenant', 'list')).json.some((t: { slug: string }) => t.slug === 'cli-co'));

  const user = await admin('user', 'create', '--tenant', 'cli-co', '--email', 'ops@cli.test', '--name', 'Ops');
  assert.equal(user.code, 0, user.stderr);
  assert.equal((await admin('user', 'list', '--tenant', 'cli-co')).json.length, 1);

  const created = await admin('key', 'create', '--tenant', 'cli-co', '--user', 'ops@cli.test', '--name', 'ci', '--scopes', 'catalog:read,admin');
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.json.key, /^kcs_/);
  assert.deepEqual(created.json.scopes, ['catalog:read', 'admin']);
  assert.equal(created.json.digest, undefined, 'the digest is never printed');

  const host = `cli-co.localhost:${stack.port}`;
  assert.equal((await stack.request('GET', '/api/knowledge/sites', { host, key: created.json.key })).status, 200);
  assert.equal((await stack.request('POST', '/api/knowledge/sites', { host, key: created.json.key, body: { slug: 'a', name: 'A', language: 'en' } })).status, 403);

  const listed = await admin('key', 'list', '--tenant', 'cli-co');
  assert.equal(listed.json.length, 1);
  assert.equal(listed.json[0].key, undefined, 'listing never shows a secret');

  const revoked = await admin('key', 'revoke', '--tenant', 'cli-co', created.json.id);
  assert.equal(revoked.code, 0, revoked.stderr);
  // Revoked by another process: refused by this one within a second (its key records are kept that long).
  await eventually(async () => ((await stack.request('GET', '/api/knowledge/sites', { host, key: created.json.key })).status === 401 ? true : undefined), 'the revoked key refused', { ms: 2000 });
});

test('a storefront key: --origins sets allowed_origins, validated and normalised like the HTTP API', async () => {
  await admin('tenant', 'create', 'cli-shop');
  await admin('user', 'create', '--tenant', 'cli-shop', '--email', 'shop@cli.test', '--name', 'Shop');
  const base = ['key', 'create', '--tenant', 'cli-shop', '--user', 'shop@cli.test', '--name', 'storefront', '--scopes', 'search'];
  const created = await admin(...base, '--origins', 'https://Shop.Example, http://localhost:3000');
  assert.equal(created.code, 0, created.stderr);
  assert.deepEqual(created.json.scopes, ['search']);
  assert.deepEqual(created.json.allowed_origins, ['https://shop.example', 'http://localhost:3000']);

  const host = `cli-shop.localhost:${stack.port}`;
  const from = (origin: string) => stack.request('POST', '/api/knowledge/search/products', { host, key: created.json.key, body: { query: 'x' }, headers: { Origin: origin } });
  assert.equal((await from('https://shop.example')).headers['access-control-allow-origin'], 'https://shop.example');
  assert.equal((await from('https://evil.example')).status, 403);

  const badPattern = await admin(...base, '--origins', 'https://shop.example/');
  assert.equal(badPattern.code, 2);
  assert.match(badPattern.stderr, /allowed_origins\.0: String should match pattern/);
  const badPort = await admin(...base, '--origins', 'https://shop.example:70000');
  assert.equal(badPort.code, 1);
  assert.match(badPort.stderr, /scheme:\/\/host\[:port\]/);
});

test('tenant settings update, validated like the HTTP API', async () => {
  await admin('tenant', 'create', 'cli-set');
  const updated = await admin('tenant', 'update', 'cli-set', '--variant-strategy', 'children_only', '--rate-limit', '5');
  assert.equal(updated.code, 0, updated.stderr);
  assert.deepEqual(updated.json.settings, { variant_strategy: 'children_only', oauth_open_registration: false, rate_limit_per_s: 5, facet_attributes: [], understand_queries: false,
    search_analytics: true, analytics_retention_days: 90, suggestion_min_searches: 3, search_events_rate_per_s: 10, search_events_key_rate_per_s: 100 });

  const bad = await admin('tenant', 'update', 'cli-set', '--variant-strategy', 'nope', '--rate-limit=-1');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /variant_strategy: Input should be 'all', 'children_only' or 'parents_only'/);
  assert.match(bad.stderr, /rate_limit_per_s/);
});

test('usage errors exit 2 with the usage text', async () => {
  const run = await admin('key', 'create', '--tenant', 'cli-co');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /usage: kcs admin/);
  assert.equal((await admin('--help')).code, 0);
});
