// Which model's vectors a tenant is searched with. A tenant's own model (store/reembed.ts: the one
// all its embedded documents have vectors of) stays served while a re-embed with the configured
// model runs; the re-embed's last document makes the new model the tenant's, and search switches.
import { EmbeddingModelRegistry } from '../store/embeddingModels.js';
import { keys } from '../store/keys.js';
import type { Store } from '../store/redis.js';

/** A model whose vectors are searched, and their dimension (both null: no vectors). */
export interface ServedModel {
  modelId: string | null;
  dimension: number | null;
}

export interface ServingModelsOptions {
  /** The model this process embeds with (null: embedding is off, no vectors are searched). */
  configured: ServedModel;
  /** How long an answer is reused (0: asked every time). */
  cacheMs?: number;
}

export class ServingModels {
  private readonly registry: EmbeddingModelRegistry;
  private readonly cache = new Map<string, { at: number; model: Promise<ServedModel> }>();

  constructor(
    private readonly redis: Store,
    private readonly options: ServingModelsOptions,
  ) {
    this.registry = new EmbeddingModelRegistry(redis);
  }

  get configured(): ServedModel {
    return this.options.configured;
  }

  /** The tenant's model, when it is another than the configured one and known (recorded), else the configured one. */
  of(tenantId: string): Promise<ServedModel> {
    const cacheMs = this.options.cacheMs ?? 0;
    const cached = this.cache.get(tenantId);
    if (cached && performance.now() - cached.at < cacheMs) return cached.model;
    const model = this.read(tenantId);
    if (cacheMs > 0) {
      this.cache.set(tenantId, { at: performance.now(), model });
      model.catch(() => this.cache.delete(tenantId));
    }
    return model;
  }

  private async read(tenantId: string): Promise<ServedModel> {
    const { configured } = this.options;
    if (!configured.modelId) return configured;
    const own = await this.redis.get(keys.embeddingModel(tenantId));
    if (!own || own === configured.modelId) return configured;
    const record = await this.registry.get(own);
    return record ? { modelId: own, dimension: record.dimension } : configured;
  }
}
