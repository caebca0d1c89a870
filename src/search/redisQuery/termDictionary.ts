// A tenant's product term dictionary (keys.productTerms: term → how many products hold it, kept by
// every product write: store/lua/lib/searchTerms.lua), as a search plans its words from it
// (termStatistics.ts): a term's document frequency is one HMGET away instead of an FT.SPELLCHECK or
// a count query, and a copy read whole once (a snapshot) answers the terms a search has not seen
// yet without any round trip.
//
// The dictionary serves a tenant once every product of it is counted: its projection mark is at
// PROJECTION_VERSION (a tenant still being projected is planned by asking the index, as before).
// A snapshot is held only where it fits beside the others (maxTerms, the least recently used go
// first) and is read again in the background once older than reloadMs.
import { keys } from '../../store/keys.js';
import type { IndexRouter } from './router.js';
import { PROJECTION_VERSION } from './schema.js';

export interface TermDictionaryOptions {
  /** Terms held in snapshots at most, all tenants together (a larger dictionary is read term by term). */
  maxTerms?: number;
  /** A snapshot older than this is read again in the background (ms). */
  reloadMs?: number;
}

/** A tenant's dictionary as read whole at `at` (ms). */
export interface TermSnapshot {
  terms: ReadonlyMap<string, number>;
  at: number;
}

interface TenantState {
  /** Whether every product of the tenant is counted (its projection mark is current). */
  served: boolean;
  snapshot: TermSnapshot | null;
  /** When the state was read (ms); the read in flight. */
  at: number;
  reading: Promise<void> | null;
}

const DEFAULTS = { maxTerms: 1_000_000, reloadMs: 600_000 };
/** A tenant still being projected is checked again after this long (ms). */
const UNSERVED_RECHECK_MS = 10_000;
/** A snapshot outdated by this process's writes is read again at most this often (ms). */
const MIN_RELOAD_MS = 30_000;
/** Terms a HSCAN page asks for. */
const SCAN_COUNT = 10_000;

export class TermDictionary {
  /** Per tenant, the most recently used last. */
  private readonly tenants = new Map<string, TenantState>();
  private heldTerms = 0;
  private readonly maxTerms: number;
  private readonly reloadMs: number;

  constructor(
    private readonly router: IndexRouter,
    options: TermDictionaryOptions = {},
  ) {
    this.maxTerms = options.maxTerms ?? DEFAULTS.maxTerms;
    this.reloadMs = options.reloadMs ?? DEFAULTS.reloadMs;
  }

  /**
   * Whether the dictionary serves the tenant, as last read (undefined: not read yet; a read starts);
   * with the snapshot held, if any. Reads again in the background where that is due.
   */
  state(tenantId: string): { served: boolean; snapshot: TermSnapshot | null } | undefined {
    const state = this.tenants.get(tenantId);
    if (!state) {
      this.read(tenantId, { served: false, snapshot: null, at: 0, reading: null });
      return undefined;
    }
    this.tenants.delete(tenantId);
    this.tenants.set(tenantId, state);
    const age = Date.now() - state.at;
    if (!state.reading && age > (state.served ? this.reloadMs : UNSERVED_RECHECK_MS)) this.read(tenantId, state);
    return state.at === 0 ? undefined : state;
  }

  /** The document frequencies of `terms` as stored now (0: no product holds the term). */
  async frequencies(tenantId: string, terms: readonly string[]): Promise<number[]> {
    const values = await this.router.readKeys(tenantId, (r) => r.hmget(keys.productTerms(tenantId), ...terms));
    return values.map((v) => (v === null ? 0 : Number(v)));
  }

  /**
   * This process changed the tenant's products: a snapshot taken before is read again, at most
   * once every MIN_RELOAD_MS (meanwhile the terms a search asks are read term by term).
   */
  changed(tenantId: string): void {
    const state = this.tenants.get(tenantId);
    if (state?.snapshot && !state.reading && Date.now() - state.snapshot.at > MIN_RELOAD_MS) this.read(tenantId, state);
  }

  private read(tenantId: string, state: TenantState): void {
    this.tenants.set(tenantId, state);
    state.reading = this.load(tenantId)
      .then(({ served, snapshot }) => {
        this.drop(state);
        state.served = served;
        state.snapshot = snapshot;
        if (snapshot) this.hold(state, snapshot.terms.size);
        state.at = Date.now();
      })
      // Unreadable now (Redis down, a failover): the state stays as it was and is read again when next asked.
      .catch(() => undefined)
      .finally(() => (state.reading = null));
  }

  /** Whether the tenant is served, and its dictionary read whole where it fits. */
  private async load(tenantId: string): Promise<{ served: boolean; snapshot: TermSnapshot | null }> {
    const at = Date.now();
    const [mark, size] = await this.router.readKeys(tenantId, (r) => Promise.all([r.get(keys.searchProjection(tenantId)), r.hlen(keys.productTerms(tenantId))]));
    if (mark !== PROJECTION_VERSION) return { served: false, snapshot: null };
    if (size > this.maxTerms) return { served: true, snapshot: null };
    const terms = new Map<string, number>();
    let cursor = '0';
    do {
      const [next, page] = await this.router.readKeys(tenantId, (r) => r.hscan(keys.productTerms(tenantId), cursor, 'COUNT', SCAN_COUNT));
      for (let i = 0; i < page.length; i += 2) terms.set(page[i], Number(page[i + 1]));
      cursor = next;
    } while (cursor !== '0');
    return { served: true, snapshot: { terms, at } };
  }

  /** Counts a snapshot's terms as held, dropping the least recently used others while there are too many. */
  private hold(state: TenantState, size: number): void {
    this.heldTerms += size;
    for (const other of this.tenants.values()) {
      if (this.heldTerms <= this.maxTerms) break;
      if (other !== state) this.drop(other);
    }
    if (this.heldTerms > this.maxTerms) this.drop(state);
  }

  private drop(state: TenantState): void {
    if (!state.snapshot) return;
    this.heldTerms -= state.snapshot.terms.size;
    state.snapshot = null;
  }
}
