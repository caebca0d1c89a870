// Recent product search results of this process, per tenant, as Elasticsearch's request cache and
// Typesense's use_cache keep them: storefront traffic repeats, and the most frequent queries are
// most of it. An entry is the engine's result (ids, scores, ranks, facets, total), never the
// documents: those are read fresh for every answer, so a product's sync time or embedding status
// is never stale. It is found only under the tenant's change mark read before the search (the
// engine's: SearchEngine.changeMark), and any write to the tenant's documents moves that mark, so
// an answered write is never followed by a cached result from before it; while the engine may
// answer the tenant partly (its indexes still reading), nothing is kept. Bounded in bytes, least
// recently used first out; never shared across tenants (the tenant is part of the key), and a
// product search reads nothing a key's visibility narrows.
import type { ProductSearch, SearchEngine, SearchResult } from './engine.js';

/** Estimated heap bytes of an entry beyond its hits and facet values (key, Map slot, objects). */
const ENTRY_OVERHEAD = 400;
const HIT_BYTES = 120;
const FACET_VALUE_BYTES = 64;

interface Entry {
  result: SearchResult;
  bytes: number;
}

export interface ResultCacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
}

export class ResultCache {
  private readonly entries = new Map<string, Entry>();
  /** Each synonym table object a search used gets a number: the key names the table, not its content. */
  private readonly tableIds = new WeakMap<object, number>();
  private nextTableId = 1;
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  /** `maxBytes`: what the entries may take together (KCS_SEARCH_CACHE_MB). */
  constructor(private readonly maxBytes: number) {}

  /** The engine's result of `search`, from the cache where the tenant has not changed since it was stored. */
  async searchProducts(engine: SearchEngine, tenantId: string, search: ProductSearch): Promise<SearchResult> {
    const mark = await engine.changeMark(tenantId);
    if (mark === null) {
      // The engine may answer partly now: nothing is kept.
      this.misses++;
      return engine.searchProducts(tenantId, search);
    }
    const key = `${tenantId}\n${mark}\n${this.fingerprint(search)}`;
    const found = this.entries.get(key);
    if (found) {
      this.hits++;
      // Most recently used goes last: eviction takes from the front.
      this.entries.delete(key);
      this.entries.set(key, found);
      return found.result;
    }
    this.misses++;
    const result = await engine.searchProducts(tenantId, search);
    this.store(key, result);
    return result;
  }

  stats(): ResultCacheStats {
    return { entries: this.entries.size, bytes: this.bytes, hits: this.hits, misses: this.misses };
  }

  private store(key: string, result: SearchResult): void {
    const bytes = sizeOf(key, result);
    if (bytes > this.maxBytes / 4) return;
    const previous = this.entries.get(key);
    if (previous) this.bytes -= previous.bytes;
    this.entries.set(key, { result, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  /**
   * Everything the engine's result depends on besides the tenant's documents: the request as the
   * engine gets it, with the query vector left out (the query, its mode and model make it) and the
   * synonym table named by its number.
   */
  private fingerprint(search: ProductSearch): string {
    const { vector, synonyms, ...rest } = search;
    return JSON.stringify(rest) + (vector ? '\nv' : '\n-') + (synonyms ? `\ns${this.tableId(synonyms)}` : '');
  }

  private tableId(table: object): number {
    let id = this.tableIds.get(table);
    if (id === undefined) this.tableIds.set(table, (id = this.nextTableId++));
    return id;
  }
}

function sizeOf(key: string, result: SearchResult): number {
  let bytes = ENTRY_OVERHEAD + key.length * 2 + result.hits.length * HIT_BYTES;
  for (const values of Object.values(result.facets)) for (const v of values ?? []) bytes += FACET_VALUE_BYTES + v.value.length * 2;
  return bytes;
}
