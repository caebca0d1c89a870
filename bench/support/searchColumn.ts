// One column of the search benchmark: an engine, the Redis server it runs on, and the benchmark's
// tenant there with its copy of the catalogue. The built-in engine's column is a private Redis
// (searchBuiltinColumn.ts); the Redis Query Engine's a fresh tenant on BENCH_REDIS_URL
// (searchQueryEngineColumn.ts). What differs between the engines lives there; every measurement is
// the same code for both.
import type { Services } from '../../src/app.js';
import { SCOPES } from '../../src/schemas/scopes.js';
import type { ProductSearch, SearchEngine } from '../../src/search/engine.js';
import type { EngineKind } from '../../src/search/index.js';
import type { RedisAt, Store } from '../../src/store/redis.js';
import { SITES, siteSlug } from './searchConfig.js';
import type { Direct } from './searchDirect.js';
import type { MiniSearchCopy } from './searchMiniSearch.js';
import type { Summary } from './searchSummary.js';

export interface BenchTenant {
  id: string;
  slug: string;
  /** An API key with every scope. */
  key: string;
  /** Site id by site number. */
  siteIds: string[];
}

/** What an engine's column gives. */
export interface ColumnParts {
  engine: EngineKind;
  /** The server and its version, e.g. "Redis 7.4.1, RediSearch 2.10.32". */
  server: string;
  store: Store;
  services: Services;
  tenant: BenchTenant;
  /** Where the Redis is (its `kcs serve` processes are started there). */
  redis: RedisAt;
  /** The redis-server process holding the tenant's keys, when it runs on this machine (its CPU share is shown). */
  redisPid: number | undefined;
  /** The most a serve child may take from listening to /readyz 200 (null: no target). */
  readyTargetMs: number | null;
  /** Prints and notes what the written catalogue takes on the Redis server. */
  reportMemory(summary: Summary): Promise<void>;
  /** An engine over the stored catalogue; notes its build (`rebuild` false: the Query Engine's indexes are taken as they are). */
  buildEngine(summary: Summary, options?: { rebuild: boolean }): Promise<SearchEngine>;
  /** Waits for the server's work on the writes so far (the Query Engine's garbage collection), so that a step's CPU includes it. */
  settle?(): Promise<void>;
  /** The Query Engine's floor: the same products and searches used directly on the same server (searchDirect.ts). */
  direct?: Direct;
  /** The built-in engine's baseline: MiniSearch over the same products in a plain node:http server (searchMiniSearch.ts). */
  miniSearch?: MiniSearchCopy;
  /** KCS_SEARCH_ENGINE of this column's `kcs serve` processes. */
  searchEngine: 'builtin' | 'redis';
}

export interface Column extends ColumnParts {
  heading: string;
  /** Product id and text hash by catalogue row, filled as the catalogue is written. */
  ids: string[];
  textHash: string[];
  /** The catalogue row of a product id (-1: not one of the catalogue's). */
  rowOf(id: string): number;
  /** The search with its site slug (queries are generated once for both servers) as this server's site id. */
  bind(s: ProductSearch): ProductSearch;
}

export function column(parts: ColumnParts): Column {
  const siteIdOf = new Map(parts.tenant.siteIds.map((id, s) => [siteSlug(s), id]));
  let rows: Map<string, number> | null = null;
  const ids: string[] = [];
  return {
    ...parts,
    heading: `${parts.engine} (${parts.server})`,
    ids,
    textHash: [],
    // Made again once a stage has written more rows.
    rowOf: (id) => (rows?.size === ids.length ? rows : (rows = new Map(ids.map((productId, row) => [productId, row])))).get(id) ?? -1,
    bind: (s) => {
      if (!s.filters.siteId) return s;
      const siteId = siteIdOf.get(s.filters.siteId);
      if (!siteId) throw new Error(`no site ${s.filters.siteId}`);
      return { ...s, filters: { ...s.filters, siteId } };
    },
  };
}

/** The benchmark's tenant: an all-scopes key and SITES sites with the same slugs on every server. */
export async function setUpTenant(services: Services, slug: string): Promise<BenchTenant> {
  // The catalogue's color and size facet on the search page (searchHttpBench.ts searchPage).
  const tenant = await services.tenants.create(slug, 'Search benchmark', { facet_attributes: ['color', 'size'] });
  const user = await services.users.create(tenant.id, { email: 'bench@bench.test', name: 'Bench' });
  const { key } = await services.apiKeys.create(tenant.id, { userId: user.id, name: 'bench', scopes: [...SCOPES] });
  const siteIds: string[] = [];
  // The first site (the tenant's default: the language of a search without one) is English.
  for (let s = 0; s < SITES; s++) {
    siteIds.push((await services.sites.create(tenant.id, { slug: siteSlug(s), name: `Shop ${s}`, language: s % 7 === 6 ? 'de' : 'en' })).id);
  }
  return { id: tenant.id, slug, key, siteIds };
}
