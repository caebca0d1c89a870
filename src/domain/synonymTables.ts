// The synonym tables of the tenants this process searches: a tenant's sets are read once and kept,
// and its version counter (store/synonyms.ts) is checked at most once every CHECK_MS, so a set
// written through another process applies here within that time; a write through this process
// forgets the tenant's copy at once. A table is built per site and language a search asks for.
import { baseLanguage } from '../search/analysis.js';
import { SynonymTable } from '../search/synonyms.js';
import type { StoredSynonymSet, SynonymRepository } from '../store/synonyms.js';

const CHECK_MS = 1000;
/** Tenants kept (the least recently loaded go first), and tables per tenant (site × language). */
const TENANT_LIMIT = 10_000;
const TABLE_LIMIT = 1000;

interface TenantSets {
  version: number;
  sets: StoredSynonymSet[];
  checkedAt: number;
  /** The check or load in flight: concurrent searches share it. */
  pending: Promise<void> | null;
  tables: Map<string, SynonymTable | null>;
}

export class SynonymTables {
  private readonly tenants = new Map<string, TenantSets>();

  constructor(private readonly repo: SynonymRepository) {}

  /** The table of the sets a search of this site (none: no site) and language applies; null when none applies. */
  async tableFor(tenantId: string, { siteId, language }: { siteId?: string; language: string }): Promise<SynonymTable | null> {
    const sets = await this.current(tenantId);
    if (sets.sets.length === 0) return null;
    const base = baseLanguage(language);
    const key = `${siteId ?? ''} ${base}`;
    let table = sets.tables.get(key);
    if (table === undefined) {
      const applying = sets.sets.filter((s) => (s.site_id === null || s.site_id === siteId) && (s.language === null || baseLanguage(s.language) === base));
      table = applying.length > 0 ? new SynonymTable(applying) : null;
      if (sets.tables.size >= TABLE_LIMIT) sets.tables.clear();
      sets.tables.set(key, table);
    }
    return table;
  }

  /** This process changed the tenant's sets: the next search reads them again. */
  changed(tenantId: string): void {
    this.tenants.delete(tenantId);
  }

  private async current(tenantId: string): Promise<TenantSets> {
    let entry = this.tenants.get(tenantId);
    if (!entry) {
      entry = { version: -1, sets: [], checkedAt: 0, pending: null, tables: new Map() };
      this.tenants.set(tenantId, entry);
      if (this.tenants.size > TENANT_LIMIT) this.tenants.delete(this.tenants.keys().next().value!);
    }
    if (Date.now() - entry.checkedAt >= CHECK_MS) {
      entry.pending ??= this.refresh(entry, tenantId).finally(() => (entry.pending = null));
      await entry.pending;
    }
    return entry;
  }

  private async refresh(entry: TenantSets, tenantId: string): Promise<void> {
    const version = await this.repo.version(tenantId);
    if (version !== entry.version) {
      // Read the sets after the version: a change between the two reads is seen at the next check.
      const sets = await this.repo.all(tenantId);
      Object.assign(entry, { version, sets, tables: new Map() });
    }
    entry.checkedAt = Date.now();
  }
}
