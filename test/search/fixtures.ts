// Shared fixtures of the search suites: a private redis-server with the real domain services on it,
// a small catalogue and knowledge base whose expected search results are written down by hand,
// deterministic unit vectors stored through the real VectorRepository path, and HTTP helpers.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices, type Services } from '../../src/app.js';
import type { Caller } from '../../src/domain/knowledgeEntries.js';
import type { ProductInput } from '../../src/domain/products.js';
import { noSearchRefresh, type SearchRefresh } from '../../src/domain/searchRefresh.js';
import type { EntryAccess, Hit, ProductFilters, ProductSearch, KnowledgeSearch, EntryFilters } from '../../src/search/engine.js';
import { startEmbeddedRedis } from '../../src/store/embeddedRedis.js';
import { keys } from '../../src/store/keys.js';
import { searchWrites, type EngineKind } from '../../src/search/index.js';
import { connectRedis, type RedisAt, type Store } from '../../src/store/redis.js';
import { VectorRepository } from '../../src/store/vectors.js';
import type { HttpResult, TenantFixture } from '../helpers/stack.js';

/** The engine a stack of this run serves search with: the built-in one, or the Query Engine under `npm run test:rqe`. */
export const EXPECTED_ENGINE = process.env.KCS_SEARCH_ENGINE === 'redis' ? 'redis-query-engine' : 'builtin';

// ---- vectors ------------------------------------------------------------------------------------

/** The engine option modelId and the model id the fixtures store their vectors under. */
export const MODEL = 'test-model';
export const DIM = 16;

/** A unit vector of DIM dimensions from (axis, weight) pairs. */
export function unit(...parts: [axis: number, weight: number][]): Float32Array {
  const v = new Float32Array(DIM);
  for (const [axis, weight] of parts) v[axis] += weight;
  return normalise(v);
}
export const axis = (i: number): Float32Array => unit([i, 1]);

export function normalise(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return v.map((x) => x / norm);
}

export const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i], 0);

/** mulberry32: a seeded PRNG, so "random" vectors are the same on every run. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomUnit(rand: () => number): Float32Array {
  return normalise(Float32Array.from({ length: DIM }, () => rand() * 2 - 1));
}

/**
 * Stores vectors for a product or entry through VectorRepository.store (the Lua script the embed
 * worker uses, which also adds the change stream entry), for the text hash stored on the document.
 */
export async function storeVectors(
  redis: Store,
  tenantId: string,
  kind: 'product' | 'entry',
  id: string,
  vectors: Record<string, Float32Array>,
  model = MODEL,
): Promise<void> {
  const textHash = await redis.hget(kind === 'product' ? keys.product(tenantId, id) : keys.entry(tenantId, id), 'text_hash');
  assert.ok(textHash, `the ${kind} ${id} has a stored textHash`);
  const stored = await new VectorRepository(redis).store(tenantId, { kind, id }, { textHash, model, vectors });
  assert.equal(stored, true, `vectors of ${kind} ${id} stored`);
}

// ---- a private redis with the domain services ---------------------------------------------------

export interface PrivateRedis {
  url: RedisAt;
  stop(): Promise<void>;
}

/** A private redis-server (random port, temp dir), gone after stop(). */
export async function privateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'kcs-search-'));
  const redis = await startEmbeddedRedis(dir, { persist: false });
  return {
    url: redis.url,
    async stop() {
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Domain {
  redis: Store;
  services: Services;
  close(): void;
}

/**
 * The real services on their own connection; `refresh` is the read-your-writes hook (none: another
 * process); documents are written as they are for `engine` (its search fields and, for a new
 * tenant, its indexes, for vectors of MODEL).
 */
export async function openDomain(url: RedisAt, refresh: SearchRefresh = noSearchRefresh, engine: EngineKind = 'builtin'): Promise<Domain> {
  const redis = connectRedis(url);
  await redis.connect();
  const services = createServices(redis, { searchRefresh: refresh, search: searchWrites(engine, redis, { modelId: MODEL, dimension: DIM }) });
  return { redis, services, close: () => redis.disconnect() };
}

/** A domain-level caller (what callerOf makes of an authenticated request). */
export const caller = (tenantId: string, userId: string, scopes: string[]): Caller => ({
  tenantId, userId, scopes: new Set(scopes), credentialId: null, clientId: null, source: 'api',
});

export const uniqueSlug = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

// ---- the catalogue ------------------------------------------------------------------------------

export interface ProductSpec {
  key: string;
  site: 'en' | 'de';
  body: ProductInput;
  /** Description vector and similarity anchor vector, when embedded. */
  vector?: Float32Array;
  anchor?: Float32Array;
}

const p = (key: string, site: 'en' | 'de', body: Omit<ProductInput, 'language'>, vectors: Pick<ProductSpec, 'vector' | 'anchor'> = {}): ProductSpec => ({
  key, site, body: { language: site, external_id: key, ...body } as ProductInput, ...vectors,
});

/**
 * Two sites: English (en) and German (de). Axis 0 is "camping light", 3 "shoes", 4 "laces",
 * 6 "fleece"; the German house shares axis 0 with the lantern and the German shoe axis 4 with the
 * laces (same vectors, other language and site).
 */
export const CATALOGUE: ProductSpec[] = [
  p('lantern', 'en', {
    title: 'Camping Lantern', description: 'A bright LED lantern for the campsite.', brand: 'Lumo', category: 'Lighting',
    availability: 'InStock', price_current: '24.90', attributes: { color: 'black' },
  }, { vector: axis(0) }),
  p('tent', 'en', {
    title: 'Dome Tent', description: 'Roomy tent for two, with a hook for a lantern.', brand: 'Acme', category: 'Tents',
    availability: 'OutOfStock', price_current: '199.00', attributes: { color: ['green', 'grey'] },
  }, { vector: unit([0, 0.8], [1, 0.6]) }),
  p('jacket', 'en', {
    title: 'Rain Jacket', description: 'Waterproof shell for wet days.', search_keywords: ['anorak', 'windbreaker'], brand: 'Acme',
    category: 'Clothing', availability: 'InStock', price_current: '79.00', attributes: { color: 'red', size: ['M', 'L'] },
  }, { vector: axis(2) }),
  p('shoes', 'en', {
    title: 'Trail Running Shoes', description: 'Grippy soles for muddy paths.', sku: 'ACME-TR-001', gtin: '4006381333931', brand: 'Acme',
    category: 'Footwear', availability: 'https://schema.org/InStock', price_current: '89.90', attributes: { color: 'red', size: '42' },
    similarity_text: 'laces and accessories',
  }, { vector: axis(3), anchor: axis(4) }),
  p('laces', 'en', {
    title: 'Shoe Laces', description: 'Replacement laces that fit the ACME TR 001 and other models.', brand: 'Bolt', category: 'Footwear',
    availability: 'LimitedAvailability', price_current: '4.50',
  }, { vector: axis(4) }),
  p('socks', 'en', {
    title: 'Merino Socks', description: 'Warm wool for cold feet.', brand: 'Lumo', category: 'Clothing',
    availability: 'InStock', price_current: '15.00', attributes: { color: 'grey' },
  }, { vector: axis(3) }),
  p('hoodie', 'en', {
    title: 'Fleece Hoodie', description: 'Soft fleece with a hood.', brand: 'Acme', category: 'Clothing',
    availability: 'InStock', price_current: '59.00', attributes: { color: 'blue' }, is_parent: true,
  }, { vector: axis(6) }),
  p('hoodie-s', 'en', {
    title: 'Fleece Hoodie S', description: 'Soft fleece with a hood, size S.', brand: 'Acme', category: 'Clothing',
    availability: 'InStock', price_current: '59.00', attributes: { color: 'blue', size: 'S' }, is_variant: true, parent_external_id: 'hoodie',
  }, { vector: axis(6) }),
  p('hoodie-m', 'en', {
    title: 'Fleece Hoodie M', description: 'Soft fleece with a hood, size M.', brand: 'Acme', category: 'Clothing',
    availability: 'OutOfStock', price_current: '61.00', attributes: { color: 'blue', size: 'M' }, is_variant: true, parent_external_id: 'hoodie',
  }, { vector: axis(6) }),
  p('vest', 'en', {
    title: 'Fleece Vest', description: 'Keeps the core warm.', brand: 'Bolt', category: 'Clothing',
  }, { vector: unit([6, 0.9], [7, 0.436]) }),
  p('haus', 'de', {
    title: 'Haus für den Garten', description: 'Ein kleines Spielhaus aus Holz.', brand: 'Holzwerk', category: 'Garten',
    availability: 'lieferbar', price_current: '499.00',
  }, { vector: axis(0) }),
  p('schuh', 'de', {
    title: 'Leichter Schuh', description: 'Bequem für jeden Tag.', brand: 'Läufer', category: 'Schuhe',
    availability: 'InStock', price_current: '49.00',
  }, { vector: axis(4) }),
  p('schuhe', 'de', { title: 'Schuhe für Kinder', description: 'Robust und bunt.', brand: 'Läufer', category: 'Schuhe', availability: 'OutOfStock' }),
  p('giesskanne', 'de', { title: 'Gießkanne aus Zink', description: 'Fasst zehn Liter.', brand: 'Holzwerk', category: 'Garten' }),
  p('fussball', 'de', { title: 'Fussball Größe 5', description: 'Für Training und Spiel.', brand: 'Kicker', category: 'Sport' }),
  p('fahrrad', 'de', { title: 'Fahrrad mit Korb', description: 'Sieben Gänge.', brand: 'Kicker', category: 'Sport' }),
  p('taschenlampe', 'de', { title: 'Taschenlampe LED', description: 'Wasserdicht.', brand: 'Lumo', category: 'Garten' }),
];

export const EN_KEYS = CATALOGUE.filter((s) => s.site === 'en').map((s) => s.key);
export const DE_KEYS = CATALOGUE.filter((s) => s.site === 'de').map((s) => s.key);

export interface Catalogue {
  sites: { en: string; de: string };
  /** fixture key → product id, and back. */
  id: Record<string, string>;
  key: Record<string, string>;
}

/** Writes the catalogue through ProductService (and its vectors through VectorRepository). */
export async function writeCatalogue(domain: Domain, tenantId: string, withVectors = true): Promise<Catalogue> {
  const { sites, products } = domain.services;
  const en = await sites.create(tenantId, { slug: 'shop-en', name: 'Shop EN', language: 'en' });
  const de = await sites.create(tenantId, { slug: 'shop-de', name: 'Shop DE', language: 'de' });
  const out: Catalogue = { sites: { en: en.id, de: de.id }, id: {}, key: {} };
  for (const spec of CATALOGUE) {
    const { id } = await products.upsert(tenantId, { siteId: spec.site === 'en' ? en.id : de.id, input: spec.body, source: 'api' });
    out.id[spec.key] = id;
    out.key[id] = spec.key;
    if (withVectors && spec.vector) {
      await storeVectors(domain.redis, tenantId, 'product', id, { description: spec.vector, ...(spec.anchor ? { anchor: spec.anchor } : {}) });
    }
  }
  return out;
}

// ---- knowledge entries --------------------------------------------------------------------------

export interface EntrySpec {
  key: string;
  /** Who writes it: the tenant's owner user or a second user. */
  author: 'owner' | 'other';
  body: Record<string, unknown> & { title: string; content: string; visibility: string };
  vector?: Float32Array;
  anchor?: Float32Array;
}

const PAST = '2001-01-01T00:00:00.000Z';
const e = (key: string, author: EntrySpec['author'], body: EntrySpec['body'], vectors: Pick<EntrySpec, 'vector' | 'anchor'> = {}): EntrySpec => ({
  key, author, body: { language: 'en', ...body }, ...vectors,
});

/** Every entry holds the word "policy"; "glossary" sits in a second category. Axis 8 is "returns". */
export const ENTRIES: EntrySpec[] = [
  e('public', 'owner', { title: 'Returns policy', content: 'How customers send goods back.', visibility: 'public' }, { vector: axis(8) }),
  e('community', 'owner', { title: 'Community policy', content: 'Rules of the forum.', visibility: 'community' }, { vector: unit([8, 0.9], [9, 0.436]) }),
  e('internal', 'owner', { title: 'Internal pricing policy', content: 'Margins per category.', visibility: 'internal' }, { vector: unit([8, 0.8], [10, 0.6]) }),
  e('workspace', 'owner', { title: 'Workspace policy', content: 'Desk booking.', visibility: 'workspace' }, { vector: axis(11) }),
  e('restricted', 'owner', { title: 'Restricted policy', content: 'Board matters.', visibility: 'restricted' }, { vector: axis(8) }),
  e('mine', 'owner', { title: 'My policy notes', content: 'Personal reminders.', visibility: 'personal' }, { vector: unit([8, 0.7], [12, 0.714]) }),
  e('theirs', 'other', { title: 'Their policy notes', content: 'Someone else\'s reminders.', visibility: 'personal' }, { vector: axis(8) }),
  e('expired', 'owner', {
    title: 'Expired policy memory', content: 'Remembered once.', visibility: 'public', type: 'memory', metadata: { expires_at: PAST },
  }, { vector: axis(8) }),
  e('fresh', 'owner', {
    title: 'Fresh policy memory', content: 'Remembered now.', visibility: 'public', type: 'memory', metadata: { ttl_seconds: 86_400 },
  }, { vector: axis(13) }),
  e('glossary', 'owner', {
    title: 'Glossar Richtlinie policy', content: 'Begriffe.', visibility: 'public', type: 'glossary', tags: ['faq', 'terms'], layer: 'core', language: 'de',
  }, { vector: axis(14) }),
];

/** Scopes that may write (and read) every visibility. */
export const ALL_VISIBILITY = ['knowledge:read', 'knowledge:write', 'visibility:restricted'];

export interface KnowledgeBase {
  owner: string;
  other: string;
  categories: { main: string; glossary: string };
  projectId: string;
  id: Record<string, string>;
  key: Record<string, string>;
}

/** Writes the entries through KnowledgeEntryService as their authors (and their vectors through VectorRepository). */
export async function writeKnowledge(domain: Domain, tenantId: string, ownerId: string, withVectors = true): Promise<KnowledgeBase> {
  const { users, categories, knowledgeEntries } = domain.services;
  const other = await users.create(tenantId, { email: `other-${randomUUID().slice(0, 6)}@example.test`, name: 'Other' });
  const main = await categories.create(tenantId, { name: 'Guides' });
  const glossary = await categories.create(tenantId, { name: 'Glossary' });
  const projectId = randomUUID();
  const out: KnowledgeBase = { owner: ownerId, other: other.id, categories: { main: main.id, glossary: glossary.id }, projectId, id: {}, key: {} };
  for (const spec of ENTRIES) {
    const author = caller(tenantId, spec.author === 'owner' ? ownerId : other.id, ALL_VISIBILITY);
    const isGlossary = spec.key === 'glossary';
    const input = {
      ...spec.body,
      category_id: isGlossary ? glossary.id : main.id,
      ...(isGlossary ? { project_ids: [projectId] } : {}),
    };
    const view = await knowledgeEntries.create(author, input as never, spec.body.visibility === 'personal');
    out.id[spec.key] = view.id;
    out.key[view.id] = spec.key;
    if (withVectors && spec.vector) {
      await storeVectors(domain.redis, tenantId, 'entry', view.id, { content: spec.vector, ...(spec.anchor ? { anchor: spec.anchor } : {}) });
    }
  }
  return out;
}

/** The shared visibilities each ceiling reads (workspace counts as internal). */
export const VISIBLE_UNDER = {
  public: ['public'],
  community: ['public', 'community'],
  internal: ['public', 'community', 'internal', 'workspace'],
  restricted: ['public', 'community', 'internal', 'workspace', 'restricted'],
} as const;

// ---- engine requests ----------------------------------------------------------------------------

export type ProductSearchOver = Partial<Omit<ProductSearch, 'filters'>> & { filters?: Partial<ProductFilters> };

/** A product search: keyword, no vector, English semantic, the first 100 hits, unless said otherwise. */
export const productSearch = (over: ProductSearchOver = {}): ProductSearch => ({
  query: '', mode: 'keyword', vector: null, model: MODEL, semanticLanguages: ['en'], language: 'en', minSimilarity: -1, limit: 100, offset: 0, facets: [],
  ...over,
  filters: { variantStrategy: 'all', ...over.filters },
});

export type KnowledgeSearchOver = Partial<Omit<KnowledgeSearch, 'filters'>> & { filters: Partial<EntryFilters> & { access: EntryAccess } };

export const knowledgeSearch = (over: KnowledgeSearchOver): KnowledgeSearch => ({
  query: '', mode: 'keyword', vector: null, model: MODEL, semanticLanguages: ['en'], language: 'en', minSimilarity: -1, limit: 100, offset: 0,
  ...over,
});

export const access = (userId: string, visibilities: readonly string[], includeExpired = false): EntryAccess => ({
  userId, visibilities: [...visibilities], includeExpired, now: Date.now(),
});

/** Fixture keys of hits (ids the fixture does not know stay as they are, so a stray id shows). */
export const keysOf = (hits: Pick<Hit, 'id'>[], names: Record<string, string>): string[] => hits.map((h) => names[h.id] ?? h.id);
export const sorted = <T>(list: T[]): T[] => [...list].sort();

/** Polls `check` until it returns true; the time it took in ms, or throws after `ms`. */
export async function within(ms: number, what: string, check: () => Promise<boolean>, every = 10): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}

// ---- HTTP ---------------------------------------------------------------------------------------

export const SEARCH_PRODUCTS = '/api/knowledge/search/products';
export const SEARCH_KNOWLEDGE = '/api/knowledge/search/knowledge';
export const relatedProductsPath = (id: string, query = '') => `/api/knowledge/products/${id}/related${query}`;
export const relatedEntriesPath = (id: string, query = '') => `/api/knowledge/knowledge-entries/${id}/related${query}`;

export async function createSiteHttp(t: TenantFixture, slug: string, language: string): Promise<{ id: string; slug: string }> {
  const res = await t.request('POST', '/api/knowledge/sites', { body: { slug, name: slug, language } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** POST /products: the product (201 created or 200 updated). */
export async function upsertHttp(t: TenantFixture, site: string, body: Record<string, unknown>): Promise<any> {
  const res = await t.request('POST', `/api/knowledge/products?site_id=${encodeURIComponent(site)}`, { body });
  assert.ok(res.status === 201 || res.status === 200, res.text);
  return res.body;
}

/** Writes the catalogue over HTTP; fixture key → product. */
export async function writeCatalogueHttp(t: TenantFixture, sites: { en: string; de: string }): Promise<Record<string, any>> {
  const out: Record<string, any> = {};
  for (const spec of CATALOGUE) out[spec.key] = await upsertHttp(t, sites[spec.site], spec.body as Record<string, unknown>);
  return out;
}

export async function searchHttp(t: TenantFixture, path: string, body: unknown, options: { key?: string; headers?: Record<string, string> } = {}): Promise<HttpResult> {
  return t.request('POST', path, { body, ...(options.key ? { key: options.key } : {}), ...(options.headers ? { headers: options.headers } : {}) });
}

/** A 200 search answer's hits' ids. */
export async function searchIds(t: TenantFixture, path: string, body: unknown, options: { key?: string; headers?: Record<string, string> } = {}): Promise<string[]> {
  const res = await searchHttp(t, path, body, options);
  assert.equal(res.status, 200, res.text);
  return res.body.hits.map((h: { id: string }) => h.id);
}
