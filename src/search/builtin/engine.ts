// The built-in engine for plain Redis / Valkey: every serve process holds a replica of each
// tenant's products and entries (text index + vectors), read from Redis at start and kept current
// from the change streams (ChangeFollower). Writes made by this process are applied before they
// are answered (refresh), so a 2xx write is searchable here at once.
import { fromBytes } from '../../store/vectorBytes.js';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/redis.js';
import type {
  DocumentRef, EngineProgress, EntryAccess, KnowledgeSearch, ProductSearch, RelatedRequest, RelatedResult, SearchEngine, SearchRequest, SearchResult, VariantStrategy,
} from '../engine.js';
import { ChangeFollower, type ChangedDoc, type FollowerSink, type RawVectors } from './follower.js';
import type { ServingModels } from '../servingModels.js';
import type { StoredEntry } from '../../store/knowledgeEntries.js';
import type { StoredProduct } from '../../store/products.js';
import type { DocInput } from './docTable.js';
import { EntryCollection, entryInput, type EntryFacts } from './entries.js';
import { ProductCollection, productInput, type ProductInput } from './products.js';

class TenantReplica {
  readonly products = new ProductCollection();
  readonly entries = new EntryCollection();
}

export interface BuiltinEngineOptions {
  /** Which model's vectors are kept per tenant. */
  models: ServingModels;
}

export class BuiltinEngine implements SearchEngine, FollowerSink {
  readonly name = 'builtin' as const;
  ready = false;
  private readonly replicas = new Map<string, TenantReplica>();
  /** Replicas being read again in full; they replace the served ones when complete. */
  private readonly reloading = new Map<string, TenantReplica>();
  private readonly follower: ChangeFollower;
  /** Per tenant, how many times its replica changed in this process (changeMark). */
  private readonly changes = new Map<string, number>();

  constructor(redis: Store, log: Logger, options: BuiltinEngineOptions) {
    this.follower = new ChangeFollower(redis, log, { sink: this, models: options.models });
  }

  async start(onProgress?: (p: EngineProgress) => void): Promise<void> {
    await this.follower.start(onProgress);
    this.ready = true;
  }

  async searchProducts(tenantId: string, search: ProductSearch): Promise<SearchResult> {
    const replica = await this.replica(tenantId);
    return replica.products.search(this.servable(tenantId, search));
  }

  async relatedProducts(tenantId: string, productId: string, request: RelatedRequest & { variantStrategy: VariantStrategy }): Promise<RelatedResult | null> {
    return (await this.replica(tenantId)).products.related(productId, request);
  }

  async searchKnowledge(tenantId: string, search: KnowledgeSearch): Promise<SearchResult> {
    const replica = await this.replica(tenantId);
    return replica.entries.search(this.servable(tenantId, search));
  }

  async relatedEntries(tenantId: string, entryId: string, request: RelatedRequest & { access: EntryAccess }): Promise<SearchResult | null> {
    return (await this.replica(tenantId)).entries.related(entryId, request);
  }

  async servingModel(tenantId: string): Promise<string | null> {
    await this.follower.ensure(tenantId);
    return this.follower.servedModel(tenantId);
  }

  /** The replica's own count of changes: it moves when a change is applied here, not when it is written. */
  changeMark(tenantId: string): string {
    return String(this.changes.get(tenantId) ?? 0);
  }

  refresh(tenantId: string, changed: DocumentRef[]): Promise<void> {
    return this.follower.refresh(tenantId, changed);
  }

  close(): Promise<void> {
    return this.follower.close();
  }

  apply(tenantId: string, docs: ChangedDoc[]): void {
    this.changed(tenantId);
    const replica = this.reloading.get(tenantId) ?? this.replicaOf(tenantId);
    // A batch names each document once, so deletes may go first. The others are parsed as the
    // table takes them: a scavenge then finds one parsed document alive, not the whole batch
    // (bench:replica: a re-apply −12 to −22%).
    for (const d of docs) {
      if (d.json) continue;
      if (d.kind === 'product') replica.products.table.delete(d.id);
      else replica.entries.table.delete(d.id);
    }
    replica.products.table.setMany(productInputs(docs));
    replica.entries.table.setMany(entryInputs(docs));
  }

  dropSite(tenantId: string, siteId: string): void {
    this.changed(tenantId);
    const table = this.replicaOf(tenantId).products.table;
    for (const set of table.withValues('site', [siteId])) for (const doc of [...set]) table.delete(table.ids[doc]);
  }

  beginReload(tenantId: string): void {
    this.reloading.set(tenantId, new TenantReplica());
  }

  endReload(tenantId: string, ok: boolean): void {
    const fresh = this.reloading.get(tenantId);
    this.reloading.delete(tenantId);
    this.changed(tenantId);
    if (ok && fresh) this.replicas.set(tenantId, fresh);
    else this.replicas.delete(tenantId);
  }

  private changed(tenantId: string): void {
    this.changes.set(tenantId, (this.changes.get(tenantId) ?? 0) + 1);
  }

  /** The tenant's replica once its documents are read (read on first use for a tenant created after start). */
  private async replica(tenantId: string): Promise<TenantReplica> {
    await this.follower.ensure(tenantId);
    return this.replicaOf(tenantId);
  }

  /** The search without its query vector when that is of another model than the replica's (it switched since). */
  private servable<S extends SearchRequest>(tenantId: string, search: S): S {
    return search.vector && search.model !== this.follower.servedModel(tenantId) ? { ...search, vector: null } : search;
  }

  private replicaOf(tenantId: string): TenantReplica {
    let replica = this.replicas.get(tenantId);
    if (!replica) this.replicas.set(tenantId, (replica = new TenantReplica()));
    return replica;
  }
}

/** The batch's stored products as inputs, each parsed as the table reaches it. */
function* productInputs(docs: ChangedDoc[]): Generator<ProductInput> {
  for (const d of docs) {
    if (d.kind === 'product' && d.json) yield productInput(JSON.parse(d.json.toString()) as StoredProduct, d.parentExternalId, vectorsOf(d.vectors));
  }
}

function* entryInputs(docs: ChangedDoc[]): Generator<DocInput<EntryFacts>> {
  for (const d of docs) if (d.kind === 'entry' && d.json) yield entryInput(JSON.parse(d.json.toString()) as StoredEntry, vectorsOf(d.vectors));
}

function vectorsOf(raw: RawVectors): DocInput<unknown>['vectors'] {
  return {
    ...(raw.content ? { content: fromBytes(raw.content) } : {}),
    ...(raw.anchor ? { anchor: fromBytes(raw.anchor) } : {}),
  };
}
