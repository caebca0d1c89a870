// The mark a cached search result is kept under (search/resultCache.ts): the newest entry of the
// tenant's change stream, which every write of a document the indexes read adds. None (null) while
// the engine may answer the tenant partly: until this process has found its documents projected and
// its indexes done reading them (its searches answer from what is read so far meanwhile).
import { keys } from '../../store/keys.js';
import type { Store } from '../../store/redis.js';
import type { ServingModels } from '../servingModels.js';
import type { ModelIndexes } from './modelIndexes.js';
import { PROJECTION_VERSION } from './schema.js';

export class ChangeMarks {
  /** Tenants whose documents this process found all projected. */
  private readonly projected = new Set<string>();

  constructor(
    private readonly redis: Store,
    private readonly indexes: ModelIndexes,
    private readonly models: ServingModels,
  ) {}

  async of(tenantId: string): Promise<string | null> {
    if (!this.indexes.of(await this.models.of(tenantId)).complete(tenantId)) return null;
    const last = this.redis.xrevrange(keys.changes(tenantId), '+', '-', 'COUNT', 1).then(([entry]) => entry?.[0] ?? '0-0');
    if (this.projected.has(tenantId)) return last;
    // Sent together: one round trip.
    const [marker, mark] = await Promise.all([this.redis.get(keys.searchProjection(tenantId)), last]);
    if (marker !== PROJECTION_VERSION) return null;
    this.projected.add(tenantId);
    return mark;
  }
}
