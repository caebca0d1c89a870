// Shared by the modules of the SearchEngine contract: the engine target, the suite's data and engine
// (set by useContractData() before a suite's cases, closed after them; the suites of one file run
// one after another, each with its own), the search helpers and the assertions the cases share.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { ProductInput } from '../../../src/domain/products.js';
import { createLogger, type Logger } from '../../../src/log.js';
import type { EngineProgress, Hit, SearchEngine } from '../../../src/search/engine.js';
import type { EngineKind } from '../../../src/search/index.js';
import { connectRedis, type Store } from '../../../src/store/redis.js';
import {
  DIM, MODEL, axis, keysOf, knowledgeSearch, openDomain, productSearch, randomUnit, seeded, sorted, storeVectors, uniqueSlug,
  writeCatalogue, writeKnowledge,
  type Catalogue, type Domain, type KnowledgeBase, type KnowledgeSearchOver, type PrivateRedis, type ProductSearchOver,
} from '../fixtures.js';

export interface EngineTarget {
  /** Shown in the suite's name. */
  name: string;
  /** The Redis the documents are written to and the engine runs against. */
  redis(): Promise<PrivateRedis>;
  /** A new, unstarted engine on this connection, searching vectors of model MODEL (dimension DIM). */
  create(redis: Store, log: Logger, options: { modelId: string; dimension: number }): Promise<SearchEngine> | SearchEngine;
  /** The engine documents are written for (their search fields, a new tenant's indexes). */
  kind: EngineKind;
}

/** How long another process may take to see a write (DESIGN: within 1 s; slack for a loaded 2-core machine). */
export const OTHER_PROCESS_MS = 1500;

export interface TenantData {
  tenantId: string;
  ownerId: string;
  cat: Catalogue;
  kb: KnowledgeBase;
}

export const ranksOf = (hits: Hit[]) => hits.map((h) => h.ranks);

/** Scores best first (ties allowed). */
export function assertDescending(hits: Hit[], what: string): void {
  for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score, `${what}: scores descend at ${i}: ${hits[i - 1].score} < ${hits[i].score}`);
}

/** Keyword-only hits: ranks 1..n (after the offset), no semantic rank. */
export function assertKeywordRanks(hits: Hit[], offset = 0): void {
  hits.forEach((h, i) => assert.deepEqual(h.ranks, { keyword: offset + i + 1, semantic: null }, `hit ${i}`));
}

/** `actual` is the exact nearest-first order of `expected` (ids with their exact cosine), allowing swaps of near-ties. */
export function assertExactNearest(actual: string[], expected: { id: string; score: number }[], k: number, eps = 2e-3): void {
  const want = [...expected].sort((a, b) => b.score - a.score).slice(0, k);
  assert.equal(actual.length, want.length, `${want.length} hits`);
  const scoreOf = new Map(expected.map((e) => [e.id, e.score]));
  actual.forEach((id, i) => {
    assert.ok(scoreOf.has(id), `hit ${i} (${id}) is one of the allowed documents`);
    assert.ok(Math.abs(scoreOf.get(id)! - want[i].score) <= eps, `hit ${i}: cosine ${scoreOf.get(id)} where the exact ${i + 1}. nearest has ${want[i].score}`);
  });
  assert.equal(new Set(actual).size, actual.length, 'no duplicates');
}

/** The last axis: only products of the "another process" test point there. */
export const unitTail = () => axis(DIM - 1);

// ---- the suite's data and engine ----------------------------------------------------------

/** Writes answered by "this process": the services call the engine's refresh. */
export let domain: Domain;
/** Writes of "another process": no refresh, the engine hears of them through the change streams. */
export let other: Domain;
export let engine: SearchEngine;
export let readyBeforeStart: boolean;
export const progress: EngineProgress[] = [];
export let A: TenantData;
export let B: TenantData;
/** Selectivity tenant: 1000 products on a big site, 10 on a small one, 10 of the big site "rare". */
export let C: { tenantId: string; small: string; vectors: Map<string, Float32Array>; smallIds: string[]; rareIds: string[] };

/** The suite's hooks: the data written, the engine built and started before its cases; all closed after them. */
export function useContractData(target: EngineTarget): void {
  const log = createLogger('silent', 'search-contract');
  let backend: PrivateRedis;
  let engineRedis: Store;
  let engineRef: SearchEngine | null = null;

  const tenantData = async (prefix: string): Promise<TenantData> => {
    const tenant = await domain.services.tenants.create(uniqueSlug(prefix), prefix);
    const owner = await domain.services.users.create(tenant.id, { email: `owner@${tenant.slug}.test`, name: 'Owner' });
    const cat = await writeCatalogue(domain, tenant.id);
    const kb = await writeKnowledge(domain, tenant.id, owner.id);
    return { tenantId: tenant.id, ownerId: owner.id, cat, kb };
  };

  before(async () => {
    progress.length = 0;
    backend = await target.redis();
    domain = await openDomain(backend.url, (tenantId, changed) => engineRef?.refresh(tenantId, changed) ?? Promise.resolve(), target.kind);
    other = await openDomain(backend.url, undefined, target.kind);
    A = await tenantData('ca');
    B = await tenantData('cb');

    const tenant = await domain.services.tenants.create(uniqueSlug('cc'), 'selectivity');
    const big = await domain.services.sites.create(tenant.id, { slug: 'big', name: 'Big', language: 'en' });
    const small = await domain.services.sites.create(tenant.id, { slug: 'small', name: 'Small', language: 'en' });
    const rand = seeded(42);
    const requests = Array.from({ length: 1010 }, (_, i) => {
      const inSmall = i >= 1000;
      const rare = !inSmall && i % 100 === 7;
      const input = { title: `Item number ${i}`, language: 'en', external_id: `item-${i}`, attributes: { edition: rare ? 'rare' : 'common' } } as ProductInput;
      return { siteId: inSmall ? small.id : big.id, input, source: 'api' };
    });
    const ids: string[] = [];
    for (let i = 0; i < requests.length; i += 250) ids.push(...(await other.services.products.upsertMany(tenant.id, requests.slice(i, i + 250))).map((o) => o.id));
    const vectors = new Map<string, Float32Array>();
    await Promise.all(ids.map((id) => {
      const v = randomUnit(rand);
      vectors.set(id, v);
      return storeVectors(other.redis, tenant.id, 'product', id, { description: v });
    }));
    C = {
      tenantId: tenant.id, small: small.id, vectors,
      smallIds: ids.slice(1000),
      rareIds: ids.filter((_, i) => i < 1000 && i % 100 === 7),
    };

    engineRedis = connectRedis(backend.url);
    await engineRedis.connect();
    engine = await target.create(engineRedis, log, { modelId: MODEL, dimension: DIM });
    readyBeforeStart = engine.ready;
    await engine.start((p) => progress.push({ ...p }));
    engineRef = engine;
  });

  after(async () => {
    engineRef = null;
    await engine?.close();
    engineRedis?.disconnect();
    domain?.close();
    other?.close();
    await backend?.stop();
  });
}

export const products = (t: TenantData, search: ProductSearchOver) => engine.searchProducts(t.tenantId, productSearch(search));
export const productKeys = async (t: TenantData, search: ProductSearchOver) => keysOf((await products(t, search)).hits, t.cat.key);
export const browse = async (filters: ProductSearchOver['filters']) => sorted(await productKeys(A, { filters }));
export const entries = (t: TenantData, search: KnowledgeSearchOver) => engine.searchKnowledge(t.tenantId, knowledgeSearch(search));
export const entryKeys = async (t: TenantData, search: KnowledgeSearchOver) => keysOf((await entries(t, search)).hits, t.kb.key);
