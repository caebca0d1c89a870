// The merchandiser's tools at their limits, over real HTTP: a synonym import of 100,000 lines is
// stored (all or nothing, one audit event) while another tenant's searches go on being answered;
// imports and sets past the tenant's caps are 422s that store nothing; the cap on search rules holds
// against forty concurrent creations.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { keys } from '../../src/store/keys.js';
import { RULES_PER_TENANT } from '../../src/store/searchRules.js';
import { SYNONYM_CAPS } from '../../src/store/synonyms.js';
import type { TenantFixture } from '../helpers/stack.js';
import { createSiteHttp, SEARCH_PRODUCTS, searchHttp, upsertHttp } from './fixtures.js';
import { stack, useStack } from './api-fixtures.js';

useStack();

const SYNONYMS = '/api/knowledge/synonyms';
const importFile = (t: TenantFixture, text: string) =>
  t.request('POST', `${SYNONYMS}/import`, { raw: text, headers: { 'content-type': 'text/plain' } });

describe('synonym imports and caps', () => {
  let importer: TenantFixture;
  let other: TenantFixture;

  before(async () => {
    [importer, other] = [await stack.tenant(), await stack.tenant()];
    for (const t of [importer, other]) {
      await createSiteHttp(t, 'shop', 'de');
      await upsertHttp(t, 'shop', { external_id: 'jacke', title: 'Regenjacke Sturm', language: 'de' });
    }
  });

  test("a 100,000-line import (the cap on sets) is stored whole, with one audit event, and another tenant's searches are answered meanwhile", async () => {
    // 100,000 sets: the tenant's cap.
    const lines = Array.from({ length: SYNONYM_CAPS.sets - 1 }, (_, i) => `syna${i}, synb${i}`);
    lines.push('regenmantel, regenjacke');
    const search = () => searchHttp(other, SEARCH_PRODUCTS, { query: 'regenjacke', site_id: 'shop', mode: 'keyword' });
    const usual = await search();
    assert.equal(usual.status, 200, usual.text);
    let importDone = false;
    const importing = importFile(importer, `${lines.join('\n')}\n`).finally(() => (importDone = true));
    // Searches of the other tenant, one after another, for as long as the import runs.
    let during = 0;
    let slowestMs = 0;
    while (!importDone) {
      const started = performance.now();
      const res = await search();
      assert.equal(res.status, 200, res.text);
      if (!importDone) {
        during++;
        slowestMs = Math.max(slowestMs, performance.now() - started);
      }
    }
    const imported = await importing;
    assert.equal(imported.status, 200, imported.text);
    assert.deepEqual(imported.body, { imported: SYNONYM_CAPS.sets });
    process.stdout.write(`# the other tenant's searches during the import: ${during}, the slowest ${slowestMs.toFixed(1)} ms\n`);
    assert.ok(during >= 10, `only ${during} searches of another tenant were answered while the import ran`);
    // The importing tenant's next search applies the new sets.
    const found = await searchHttp(importer, SEARCH_PRODUCTS, { query: 'regenmantel', site_id: 'shop', mode: 'keyword' });
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.total, 1);
    assert.deepEqual(found.body.synonyms_applied.map((a: { matched: string }) => a.matched), ['regenmantel']);
    const list = await importer.request('GET', `${SYNONYMS}?limit=1`);
    assert.equal(list.headers['x-total-count'], String(SYNONYM_CAPS.sets));
    const more = await importFile(importer, 'one, more\n');
    assert.equal(more.status, 422, more.text);
    assert.equal(more.body.detail[0].type, 'too_many_synonym_sets');
    const audit = await importer.request('GET', '/api/knowledge/audit?entity_type=synonym_set&limit=10');
    assert.equal(audit.status, 200, audit.text);
    assert.equal(audit.body.items?.length ?? audit.body.length, 1, 'one audit event for the import');
  });

  test('an import past the cap on entries is a 422 naming the cap, found before the file is read to its end; nothing is stored', async () => {
    const t = await stack.tenant();
    // One line, 6,000 roots × 49 synonyms each: 300,000 entries.
    const roots = Array.from({ length: 6000 }, (_, i) => `k${i}`);
    const right = Array.from({ length: 49 }, (_, i) => `wort${i}`);
    const res = await importFile(t, `${roots.join(', ')} => ${right.join(', ')}\nlast, line\n`);
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.detail[0].type, 'too_many_synonym_entries');
    assert.match(res.body.detail[0].msg, new RegExp(`at most ${SYNONYM_CAPS.entries} entries`));
    assert.equal((await t.request('GET', SYNONYMS)).headers['x-total-count'], '0');
  });

  test('a set past the cap on entries is a 422; replacing a set counts its new entries only', async () => {
    const t = await stack.tenant();
    const client = await stack.client();
    try {
      // The tenant is 2 entries short of the cap (its count set as the scripts keep it).
      await client.hset(keys.synonymWeights(t.tenant.id), 'big', SYNONYM_CAPS.entries - 2, '*total', SYNONYM_CAPS.entries - 2);
    } finally {
      client.disconnect();
    }
    const ok = await t.request('PUT', `${SYNONYMS}/a`, { body: { synonyms: ['eins', 'zwei'] } });
    assert.equal(ok.status, 201, ok.text);
    const over = await t.request('PUT', `${SYNONYMS}/b`, { body: { synonyms: ['drei', 'vier'] } });
    assert.equal(over.status, 422, over.text);
    assert.equal(over.body.detail[0].type, 'too_many_synonym_entries');
    assert.equal((await t.request('PUT', `${SYNONYMS}/a`, { body: { synonyms: ['eins', 'zwei'] } })).status, 200, 'the same entries again fit');
    assert.equal((await t.request('PUT', `${SYNONYMS}/a`, { body: { synonyms: ['eins', 'zwei', 'drei'] } })).status, 422);
    assert.equal((await t.request('DELETE', `${SYNONYMS}/a`)).status, 204);
    assert.equal((await t.request('PUT', `${SYNONYMS}/b`, { body: { synonyms: ['drei', 'vier'] } })).status, 201, 'a deleted set frees its entries');
  });
});

describe('the cap on search rules', () => {
  test(`forty concurrent creations with ${RULES_PER_TENANT - 5} rules stored: five are made, the tenant keeps ${RULES_PER_TENANT}`, async () => {
    const t = await stack.tenant();
    const client = await stack.client();
    const now = new Date().toISOString();
    try {
      const fields: string[] = [];
      for (let i = 0; i < RULES_PER_TENANT - 5; i++) {
        const id = `seed${i}`;
        fields.push(id, JSON.stringify({
          id, site_id: null, query: `seed ${i}`, match: 'exact', pin: [], hide: [randomUUID()], filters: null, active_from: null, active_until: null,
          description: null, enabled: true, created_at: now, updated_at: now,
        }));
      }
      await client.hset(keys.searchRules(t.tenant.id), ...fields);
      await client.incr(keys.searchRulesVersion(t.tenant.id));
    } finally {
      client.disconnect();
    }
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) =>
      t.request('PUT', `/api/knowledge/search-rules/race${i}`, { body: { query: `race ${i}`, hide: [randomUUID()] } })));
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 5, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 422).length, 35, statuses.join(','));
    assert.ok(results.filter((r) => r.status === 422).every((r) => r.body.detail[0].type === 'too_many_rules'));
    const list = await t.request('GET', '/api/knowledge/search-rules?limit=1');
    assert.equal(list.headers['x-total-count'], String(RULES_PER_TENANT));
    // A rule that exists is replaced at the cap.
    assert.equal((await t.request('PUT', '/api/knowledge/search-rules/seed0', { body: { query: 'seed 0', hide: [randomUUID()] } })).status, 200);
  });
});
