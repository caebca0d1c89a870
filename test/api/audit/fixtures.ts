// Shared by the audit suites: the stack (no embedder), routes, the event's keys and shape, entry
// writes through the API, reading the log, and the newest-first order of stream ids.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { startStack, type Stack, type TenantFixture } from '../../helpers/stack.js';
import { withKey } from '../../helpers/fixtures.js';

/** The file's stack (no embedder), started by useStack() before its tests and closed after them. */
export let stack: Stack;
export function useStack(): void {
  before(async () => {
    stack = await startStack({ KCS_EMBEDDER: 'none' });
  });
  after(() => stack.close());
}

export const AUDIT = '/api/knowledge/audit';
export const ENTRIES = '/api/knowledge/knowledge-entries';
const EVENT_ID = /^\d+-\d+$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const EVENT_KEYS = ['id', 'at', 'action', 'entity_type', 'entity_id', 'version', 'user_id', 'credential_id', 'client_id', 'audit_source'].sort();
export const ENTRY_EVENTS = '?entity_type=knowledge_entry';

type Body = Record<string, unknown>;
let counter = 0;
const uniq = (prefix = 'x') => `${prefix}-${++counter}`;

/** The id of an API key: `kcs_<key id>_<secret>`. */
export const keyId = (key: string) => key.split('_')[1];

export async function createEntry(t: TenantFixture, cat: string, over: Body = {}, key?: string, headers?: Record<string, string>): Promise<any> {
  const path = over.visibility === 'personal' ? `${ENTRIES}/personal` : ENTRIES;
  const res = await t.request('POST', path, withKey(key, { body: { title: uniq('E'), content: 'c', category_id: cat, visibility: 'public', ...over }, headers }));
  assert.equal(res.status, 201, res.text);
  return res.body;
}

export async function updateEntry(t: TenantFixture, id: string, body: Body, key?: string, headers?: Record<string, string>): Promise<any> {
  const res = await t.request('PUT', `${ENTRIES}/${id}`, withKey(key, { body, headers }));
  assert.equal(res.status, 200, res.text);
  return res.body;
}

export async function deleteEntry(t: TenantFixture, id: string, key?: string, headers?: Record<string, string>): Promise<void> {
  const res = await t.request('DELETE', `${ENTRIES}/${id}`, withKey(key, { headers }));
  assert.equal(res.status, 204, res.text);
}

export async function audit(t: TenantFixture, query = ''): Promise<any[]> {
  const res = await t.request('GET', `${AUDIT}${query}`);
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.body), res.text);
  for (const event of res.body) assertEventShape(event);
  return res.body;
}

function assertEventShape(event: any): void {
  const { details, ...rest } = event;
  assert.deepEqual(Object.keys(rest).sort(), EVENT_KEYS);
  assert.ok(details === undefined || event.entity_type === 'bulk_job', 'only a bulk job carries details');
  assert.match(event.id, EVENT_ID);
  assert.match(event.at, ISO);
  assert.ok(['create', 'update', 'delete'].includes(event.action), event.action);
}

/** Stream ids compare as (milliseconds, sequence). */
const compareIds = (a: string, b: string) => {
  const [am, as] = a.split('-').map(BigInt);
  const [bm, bs] = b.split('-').map(BigInt);
  return am !== bm ? (am < bm ? -1 : 1) : as === bs ? 0 : as < bs ? -1 : 1;
};

export function assertNewestFirst(events: any[]): void {
  for (let i = 1; i < events.length; i++) assert.equal(compareIds(events[i - 1].id, events[i].id), 1, 'events are not newest first');
}
