// Shared by the search API suites (api-routes.test.ts, api-writes.test.ts), embedding off: the
// stack, the answer's keys, a shop (two sites with the fixture catalogue) and a library (entries of
// every visibility, two users' personal ones, an expired memory), with helpers that answer fixture
// keys for hit ids.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before } from 'node:test';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { SEARCH_KNOWLEDGE, SEARCH_PRODUCTS, createSiteHttp, searchIds, writeCatalogueHttp } from './fixtures.js';

export const ENTRIES = '/api/knowledge/knowledge-entries';
export const PRODUCTS = '/api/knowledge/products';
export const EMBEDDING_OFF = 'embedding is off (KCS_EMBEDDER=none)';
export const ANSWER_KEYS = ['engine', 'facets', 'hits', 'mode', 'semantic_fallback', 'took_ms', 'total'];
/** The hit's fields the answer documents (hits[{id, score, ranks, product|entry}]). */
export const hasHitFields = (hit: Record<string, unknown>, doc: 'product' | 'entry') =>
  ['id', 'score', 'ranks', doc].forEach((k) => assert.ok(k in hit, `hit.${k}`));

/** The file's stack (no embedder), started by useStack() before its tests and closed after them. */
export let stack: Stack;
export function useStack(): void {
  before(async () => {
    stack = await startStack({ KCS_EMBEDDER: 'none' });
  });
  after(() => stack.close());
}

export interface Shop {
  t: TenantFixture;
  sites: { en: { id: string; slug: string }; de: { id: string; slug: string } };
  /** Fixture key → product (as answered by the upsert). */
  product: Record<string, any>;
  key: Record<string, string>;
}

export async function shop(): Promise<Shop> {
  const t = await stack.tenant();
  const sites = { en: await createSiteHttp(t, 'shop-en', 'en'), de: await createSiteHttp(t, 'shop-de', 'de') };
  const product = await writeCatalogueHttp(t, { en: sites.en.slug, de: sites.de.slug });
  const key = Object.fromEntries(Object.entries(product).map(([k, p]) => [p.id, k]));
  return { t, sites, product, key };
}

export const keysOfIds = (s: Shop, ids: string[]) => ids.map((id) => s.key[id] ?? id);
export const productKeys = async (s: Shop, body: Record<string, unknown>, key?: string) => keysOfIds(s, await searchIds(s.t, SEARCH_PRODUCTS, body, { key }));

export interface Library {
  category: string;
  /** Entry key → entry (as created). */
  entry: Record<string, any>;
  key: Record<string, string>;
  other: { userId: string; key: string };
}

/** Entries of every visibility (all holding "policy"), the owner's and a second user's personal ones, an expired memory. */
export async function library(t: TenantFixture): Promise<Library> {
  const category = (await t.request('POST', '/api/knowledge/categories', { body: { name: `guides-${randomUUID().slice(0, 6)}` } })).body.id;
  const user = await stack.services.users.create(t.tenant.id, { email: `other-${randomUUID().slice(0, 6)}@x.test`, name: 'Other' });
  const otherKey = (await stack.services.apiKeys.create(t.tenant.id, { userId: user.id, name: 'other', scopes: ['knowledge:read', 'knowledge:write'] })).key;
  const create = async (body: Record<string, unknown>, key?: string) => {
    const personal = body.visibility === 'personal';
    const res = await t.request('POST', personal ? `${ENTRIES}/personal` : ENTRIES, {
      body: { category_id: category, language: 'en', ...body }, ...(key ? { key } : {}),
    });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const entry: Record<string, any> = {
    public: await create({ title: 'Returns policy', content: 'Send goods back.', visibility: 'public' }),
    community: await create({ title: 'Community policy', content: 'Forum rules.', visibility: 'community' }),
    internal: await create({ title: 'Internal policy', content: 'Margins.', visibility: 'internal' }),
    workspace: await create({ title: 'Workspace policy', content: 'Desks.', visibility: 'workspace' }),
    restricted: await create({ title: 'Restricted policy', content: 'Board.', visibility: 'restricted' }),
    mine: await create({ title: 'My policy notes', content: 'Reminders.', visibility: 'personal' }),
    theirs: await create({ title: 'Their policy notes', content: 'Reminders.', visibility: 'personal' }, otherKey),
    expired: await create({ title: 'Expired policy memory', content: 'Once.', visibility: 'public', type: 'memory', metadata: { expires_at: '2001-01-01T00:00:00Z' } }),
  };
  const key = Object.fromEntries(Object.entries(entry).map(([k, e]) => [e.id, k]));
  return { category, entry, key, other: { userId: user.id, key: otherKey } };
}

export const entryKeys = async (t: TenantFixture, lib: Library, body: Record<string, unknown>, options: { key?: string; headers?: Record<string, string> } = {}) =>
  (await searchIds(t, SEARCH_KNOWLEDGE, body, options)).map((id) => lib.key[id] ?? id);

export const err = (loc: (string | number)[], msg: string, type: string) => ({ loc, msg, type });
