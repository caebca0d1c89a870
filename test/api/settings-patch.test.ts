// PUT /api/knowledge/settings is partial for every setting (issue 64): a setting left out of the
// body keeps its stored value, never the create default. Iterates over TenantSettings' own
// properties, so a new setting is covered as soon as it has a value in VALUES.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TenantSettings } from '../../src/schemas/tenants.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const SETTINGS = '/api/knowledge/settings';

/** Per setting, a valid value other than its default (as the settings answer it). */
const VALUES: Record<string, unknown> = {
  variant_strategy: 'children_only',
  oauth_open_registration: true,
  rate_limit_per_s: 100_000, // high: the test's own requests stay well within it
  facet_attributes: ['farbe'],
  understand_queries: true,
  search_analytics: false,
  analytics_retention_days: 7,
  suggestion_min_searches: 50,
  search_events_rate_per_s: 2,
  search_events_key_rate_per_s: 7,
};

const FIELDS = Object.keys(TenantSettings.properties);

function valueOf(name: string): unknown {
  if (!Object.hasOwn(VALUES, name)) assert.fail(`The setting ${name} has no test value: add a valid non-default value to VALUES`);
  return VALUES[name];
}

let stack: Stack;

before(async () => {
  stack = await startStack();
});
after(() => stack.close());

describe('a partial settings update keeps every setting it does not name', () => {
  test('every test value differs from its default, and every setting has one', () => {
    assert.ok(FIELDS.length > 0);
    for (const name of FIELDS) {
      const schema = (TenantSettings.properties as Record<string, { default?: unknown }>)[name];
      assert.notDeepEqual(valueOf(name), schema.default, `${name}: its test value is its default`);
    }
  });

  for (const [i, name] of FIELDS.entries()) {
    test(`${name} survives a PUT of another setting`, async () => {
      const t: TenantFixture = await stack.tenant();
      const value = valueOf(name);
      const set = await t.request('PUT', SETTINGS, { body: { [name]: value } });
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.body[name], value);

      const other = FIELDS[(i + 1) % FIELDS.length];
      const changed = await t.request('PUT', SETTINGS, { body: { [other]: valueOf(other) } });
      assert.equal(changed.status, 200, changed.text);
      assert.deepEqual(changed.body[other], valueOf(other));
      assert.deepEqual(changed.body[name], value, `the answer to PUT {${other}} kept ${name}`);

      const read = await t.request('GET', SETTINGS);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(read.body[name], value, `a later GET kept ${name}`);
      assert.deepEqual(read.body, changed.body);
    });
  }

  test('the issue: variant_strategy alone keeps the analytics settings and facet_attributes', async () => {
    const t = await stack.tenant();
    const earlier = { search_analytics: false, search_events_rate_per_s: 2, suggestion_min_searches: 50, analytics_retention_days: 7, facet_attributes: ['farbe'] };
    assert.equal((await t.request('PUT', SETTINGS, { body: earlier })).status, 200);
    const res = await t.request('PUT', SETTINGS, { body: { variant_strategy: 'all' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { ...res.body, ...earlier, variant_strategy: 'all' });
    assert.deepEqual((await t.request('GET', SETTINGS)).body, res.body);
  });
});
