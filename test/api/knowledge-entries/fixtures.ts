// Shared by the knowledge entry suites: the stack, routes and enums, exact 422 detail builders, request wrappers.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../../helpers/stack.js';
import { withKey } from '../../helpers/fixtures.js';

/** The file's stack (no embedder), started by useStack() before its tests and closed after them. */
export let stack: Stack;
export function useStack(): void {
  before(async () => {
    stack = await startStack({ KCS_EMBEDDER: 'none' });
  });
  after(() => stack.close());
}

export const ENTRIES = '/api/knowledge/knowledge-entries';
export const CATEGORIES = '/api/knowledge/categories';
export const ENTRY_KEYS = [
  'id', 'tenant_id', 'title', 'content', 'category_id', 'visibility', 'summary', 'layer', 'tags', 'type', 'language',
  'metadata', 'source', 'source_reference', 'similarity_text', 'search_keywords', 'project_ids', 'version',
  'translation_group_id', 'embedding_model', 'embedding_status', 'workspace_id', 'created_by_user_id', 'created_at', 'updated_at',
].sort();
export const VISIBILITIES = ['public', 'internal', 'personal', 'restricted', 'community', 'workspace'] as const;
export const TYPES = ['knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap', 'skill_index'] as const;
export const FULL_SCOPES = ['knowledge:read', 'knowledge:write'];

export type Body = Record<string, unknown>;
type Loc = (string | number)[];
export const x = (n: number, ch = 'a') => ch.repeat(n);
let counter = 0;
const uniq = (prefix = 'x') => `${prefix}-${++counter}`;

export const err = (loc: Loc, msg: string, type: string) => ({ loc, msg, type });
export const tooShort = (loc: Loc, n: number) => err(loc, `String should have at least ${n} character${n === 1 ? '' : 's'}`, 'string_too_short');
export const tooLong = (loc: Loc, n: number) => err(loc, `String should have at most ${n} characters`, 'string_too_long');
export const enumOf = (loc: Loc, values: readonly string[]) =>
  err(loc, `Input should be ${values.slice(0, -1).map((v) => `'${v}'`).join(', ')} or '${values[values.length - 1]}'`, 'enum');
export const uuidParsing = (loc: Loc) => err(loc, 'Input should be a valid UUID', 'uuid_parsing');
export const listType = (loc: Loc) => err(loc, 'Input should be a valid list', 'list_type');
export const stringType = (loc: Loc) => err(loc, 'Input should be a valid string', 'string_type');
export const ge = (loc: Loc, n: number) => err(loc, `Input should be greater than or equal to ${n}`, 'greater_than_equal');
export const le = (loc: Loc, n: number) => err(loc, `Input should be less than or equal to ${n}`, 'less_than_equal');
export const categoryNotFound = err(['body', 'category_id'], 'Category not found', 'value_error');

export const entryBody = (categoryId: string, over: Body = {}): Body => ({
  title: uniq('Entry'), content: 'Some content', category_id: categoryId, visibility: 'public', ...over,
});

/** Creates an entry (POST /personal when the visibility is personal) and returns it. */
export async function create(t: TenantFixture, categoryId: string, over: Body = {}, key?: string): Promise<any> {
  const personal = over.visibility === 'personal';
  const res = await t.request('POST', personal ? `${ENTRIES}/personal` : ENTRIES, withKey(key, { body: entryBody(categoryId, over) }));
  assert.equal(res.status, 201, res.text);
  return res.body;
}

export function get(t: TenantFixture, id: string, key?: string, query = ''): Promise<HttpResult> {
  return t.request('GET', `${ENTRIES}/${id}${query}`, withKey(key));
}

export async function getOk(t: TenantFixture, id: string, key?: string, query = ''): Promise<any> {
  const res = await get(t, id, key, query);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

export function put(t: TenantFixture, id: string, body: unknown, key?: string, headers?: Record<string, string>): Promise<HttpResult> {
  return t.request('PUT', `${ENTRIES}/${id}`, withKey(key, { body, headers }));
}

export async function putOk(t: TenantFixture, id: string, body: unknown, key?: string, headers?: Record<string, string>): Promise<any> {
  const res = await put(t, id, body, key, headers);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

export function del(t: TenantFixture, id: string, key?: string, headers?: Record<string, string>): Promise<HttpResult> {
  return t.request('DELETE', `${ENTRIES}/${id}`, withKey(key, { headers }));
}

export async function list(t: TenantFixture, query = '', key?: string, headers?: Record<string, string>): Promise<{ items: any[]; total: number; ids: string[] }> {
  const res = await t.request('GET', `${ENTRIES}${query}`, withKey(key, { headers }));
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.body), res.text);
  const total = res.headers['x-total-count'];
  assert.equal(typeof total, 'string', 'X-Total-Count is missing');
  return { items: res.body, total: Number(total), ids: res.body.map((e: any) => e.id) };
}

export const sorted = (ids: string[]) => [...ids].sort();

/** A second user of the tenant with a key of these scopes. */
export async function otherUser(t: TenantFixture): Promise<{ userId: string; keyWith(scopes: string[]): Promise<string> }> {
  const user = await stack.services.users.create(t.tenant.id, { email: `${uniq('other')}@${t.tenant.slug}.test`, name: 'Other' });
  return {
    userId: user.id,
    keyWith: async (scopes) => (await stack.services.apiKeys.create(t.tenant.id, { userId: user.id, name: 'other', scopes })).key,
  };
}
