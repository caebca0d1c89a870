// The documents every search of a tenant reads (synonym sets, search rules), kept per process: a
// tenant's are read once, and its version counter (store/versionedDocs.ts) is checked at most once
// every CHECK_MS, so a write through another process applies here within that time; a write
// through this process forgets the tenant's copy at once. What a search needs of them (a synonym
// table of a site and language, the rules of a site) is built once per key and kept beside them;
// a large one is built in slices between turns of the event loop, so that no other request waits.

const CHECK_MS = 1000;
/** Tenants kept (the least recently loaded go first), and views per tenant (site × language). */
const TENANT_LIMIT = 10_000;
const VIEW_LIMIT = 1000;

/** Where the documents come from: store/versionedDocs.ts. */
export interface VersionedSource<T> {
  version(tenantId: string): Promise<number>;
  all(tenantId: string): Promise<T[]>;
}

interface TenantEntry<T, V> {
  version: number;
  docs: T[];
  checkedAt: number;
  /** The check or load in flight: concurrent searches share it. */
  pending: Promise<void> | null;
  /** Built, or being built (concurrent searches share the build). */
  views: Map<string, Promise<V>>;
}

export class TenantDocs<T, V> {
  private readonly tenants = new Map<string, TenantEntry<T, V>>();

  constructor(private readonly source: VersionedSource<T>) {}

  /** The view `key` of the tenant's current documents, built by `build` when not kept. */
  async viewFor<W extends V>(tenantId: string, key: string, build: (docs: readonly T[]) => W | Promise<W>): Promise<W> {
    const entry = await this.current(tenantId);
    // A key names one kind of view: its build is always the same.
    let view = entry.views.get(key) as Promise<W> | undefined;
    if (view === undefined) {
      const views = entry.views;
      view = Promise.resolve(build(entry.docs));
      // A failed build is not kept.
      view.catch(() => views.get(key) === view && views.delete(key));
      if (views.size >= VIEW_LIMIT) views.clear();
      views.set(key, view);
    }
    return view;
  }

  /** This process changed the tenant's documents: the next search reads them again. */
  changed(tenantId: string): void {
    this.tenants.delete(tenantId);
  }

  private async current(tenantId: string): Promise<TenantEntry<T, V>> {
    let entry = this.tenants.get(tenantId);
    if (!entry) {
      entry = { version: -1, docs: [], checkedAt: 0, pending: null, views: new Map() };
      this.tenants.set(tenantId, entry);
      if (this.tenants.size > TENANT_LIMIT) this.tenants.delete(this.tenants.keys().next().value!);
    }
    if (Date.now() - entry.checkedAt >= CHECK_MS) {
      const checking = entry;
      checking.pending ??= this.refresh(checking, tenantId).finally(() => (checking.pending = null));
      await checking.pending;
    }
    return entry;
  }

  private async refresh(entry: TenantEntry<T, V>, tenantId: string): Promise<void> {
    const version = await this.source.version(tenantId);
    if (version !== entry.version) {
      // Read the documents after the version: a change between the two reads is seen at the next check.
      const docs = await this.source.all(tenantId);
      Object.assign(entry, { version, docs, views: new Map() });
    }
    entry.checkedAt = Date.now();
  }
}
