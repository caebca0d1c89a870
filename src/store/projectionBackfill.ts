// Writes the search projection (store/projection.ts) of a tenant's documents stored without it:
// written while another engine served search, or under an older layout (a product's search fields
// were in its own hash before layout 3: they move to its search and vector hashes). Runs as a
// maintenance job; each document is projected only while it is still at the revision read, since
// a write made meanwhile carries its own projection. Ends by marking the tenant projected.
import { allEntryIds, type StoredEntry } from './knowledgeEntries.js';
import { keys } from './keys.js';
import type { StoredProduct } from './products.js';
import type { DocumentProjection } from './projection.js';
import { readHashes, type Store } from './redis.js';
import { projectDocumentsCall, projectProductsCall, type ProjectDocumentsCall, type ProjectProductsCall } from './scriptCalls.js';

/** Documents per script call. */
const BATCH = 200;

export class ProjectionBackfill {
  constructor(
    private readonly redis: Store,
    private readonly projection: DocumentProjection,
  ) {}

  /** True when the tenant's documents all carry this projection. */
  async done(tenantId: string): Promise<boolean> {
    return (await this.redis.get(keys.searchProjection(tenantId))) === this.projection.version;
  }

  /** Projects every product and entry of the tenant, then marks it; the counts projected. */
  async run(tenantId: string): Promise<{ products: number; entries: number }> {
    const productIds = await this.redis.zrange(keys.products(tenantId), '0', '-1');
    let products = 0;
    for (let i = 0; i < productIds.length; i += BATCH) {
      const ids = productIds.slice(i, i + BATCH);
      const rows = await readHashes(this.redis, ids.map((id) => keys.product(tenantId, id)), ['doc', 'parent_external_id', 'rev']);
      const call: ProjectProductsCall['products'] = [];
      rows.forEach(([doc, parentExternalId, rev], k) => {
        if (doc === null || rev === null) return;
        const id = ids[k];
        call.push({
          hash: keys.product(tenantId, id), search: keys.productSearch(tenantId, id), vectors: keys.productVectors(tenantId, id), terms: keys.productTerms(tenantId), expectedRev: rev,
          fields: this.projection.product(JSON.parse(doc) as StoredProduct, parentExternalId || null),
        });
      });
      if (call.length > 0) products += await this.redis.projectProducts(...projectProductsCall({ products: call }));
    }
    const entryIds = await allEntryIds(this.redis, tenantId);
    const entries = await this.each(entryIds.map((id) => keys.entry(tenantId, id)), ['doc', 'rev'], ([doc]) => this.projection.entry(JSON.parse(doc) as StoredEntry));
    await this.redis.set(keys.searchProjection(tenantId), this.projection.version);
    return { products, entries };
  }

  /** Reads `fields` (the last one `rev`) of each hash, projects the present ones, batch by batch. */
  private async each(hashKeys: string[], fields: string[], project: (values: string[]) => string[]): Promise<number> {
    let projected = 0;
    for (let i = 0; i < hashKeys.length; i += BATCH) {
      const batch = hashKeys.slice(i, i + BATCH);
      const rows = await readHashes(this.redis, batch, fields);
      const documents: ProjectDocumentsCall['documents'] = [];
      rows.forEach((values, k) => {
        const rev = values[values.length - 1];
        if (values[0] === null || rev === null) return;
        documents.push({ hash: batch[k], expectedRev: rev, fields: project(values as string[]) });
      });
      if (documents.length > 0) {
        projected += await this.redis.projectDocuments(...projectDocumentsCall({ versionField: this.projection.versionField, version: this.projection.entryVersion, documents }));
      }
    }
    return projected;
  }
}
