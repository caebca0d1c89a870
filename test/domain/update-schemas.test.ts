// Every update body (a schema whose $id ends with Update) is partial: validating `{}` yields `{}`,
// no create default filled in for a field left out (issue 64: a partial settings update reset
// the omitted settings to their defaults). Finds the schemas by reading every module of
// src/schemas, so a new update body is covered without touching this file.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import type { TSchema } from '@sinclair/typebox';
import { validate } from '../../src/schemas/validate.js';
import { ROOT } from '../helpers/process.js';

const SCHEMAS = join(ROOT, 'src', 'schemas');

async function updateSchemas(): Promise<Map<string, TSchema>> {
  const found = new Map<string, TSchema>();
  for (const name of readdirSync(SCHEMAS).filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts'))) {
    const module = (await import(pathToFileURL(join(SCHEMAS, name)).href)) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      const id = typeof value === 'object' && value !== null ? (value as TSchema).$id : undefined;
      if (typeof id === 'string' && id.endsWith('Update')) found.set(id, value as TSchema);
    }
  }
  return found;
}

test('validating {} against every update body yields {}: no defaults filled in', async () => {
  const schemas = await updateSchemas();
  for (const id of ['TenantSettingsUpdate', 'SiteUpdate', 'CategoryUpdate', 'KnowledgeEntryUpdate']) assert.ok(schemas.has(id), `${id} is found`);
  for (const [id, schema] of schemas) {
    assert.deepEqual(validate(schema, {}, { root: 'body' }), { ok: true, value: {} }, id);
  }
});

test('an update body keeps just the fields sent', async () => {
  const { TenantSettingsUpdate } = await import('../../src/schemas/tenants.js');
  assert.deepEqual(validate(TenantSettingsUpdate, { variant_strategy: 'all' }, { root: 'body' }), { ok: true, value: { variant_strategy: 'all' } });
});
