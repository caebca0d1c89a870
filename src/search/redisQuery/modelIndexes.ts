// The tenants' indexes per model: each model's vectors are searched in indexes of their own.
import type { Logger } from '../../log.js';
import type { Store } from '../../store/redis.js';
import type { IndexRouter } from './router.js';
import type { IndexOptions } from './schema.js';
import { TenantIndexes } from './tenantIndexes.js';

export class ModelIndexes {
  private readonly byModel = new Map<string, TenantIndexes>();

  constructor(
    private readonly redis: Store,
    private readonly router: IndexRouter,
    private readonly log?: Logger,
  ) {}

  of(model: IndexOptions): TenantIndexes {
    let indexes = this.byModel.get(model.modelId ?? '');
    if (!indexes) this.byModel.set(model.modelId ?? '', (indexes = new TenantIndexes(this.redis, this.router, model, this.log)));
    return indexes;
  }

  /** Forgets what this process knows of the tenant's indexes, under every model. */
  forget(tenantId: string): void {
    for (const indexes of this.byModel.values()) indexes.forget(tenantId);
  }
}
