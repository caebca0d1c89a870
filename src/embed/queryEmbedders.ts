// Query embedders per model. Search embeds a query with the model of the vectors its tenant is
// served with: the configured one, or, while a re-embed with it runs, the tenant's previous model,
// built again here from its record (store/embeddingModels.ts) on first use.
import type { EmbedderSpec } from '../config.js';
import type { EmbeddingModelRegistry } from '../store/embeddingModels.js';
import type { Embedder } from './embedder.js';
import { QueryEmbedder } from './queryEmbedder.js';

export interface QueryEmbeddersOptions {
  configured: QueryEmbedder;
  registry: EmbeddingModelRegistry;
  /** The configured spec: a hosted endpoint's token (never recorded) is taken from it. */
  spec: EmbedderSpec;
  /** Builds the query model of a recorded spec (on threads of its own: embed/index.ts createQueryModel). */
  build: (spec: EmbedderSpec) => Embedder | null;
}

/** How long a model that could not be built is not tried again. */
const RETRY_MS = 60_000;

export class QueryEmbedders {
  private readonly others = new Map<string, { at: number; embedder: Promise<QueryEmbedder> }>();

  constructor(private readonly options: QueryEmbeddersOptions) {}

  get configured(): QueryEmbedder {
    return this.options.configured;
  }

  /** The query embedder of a model; rejects with why when the model cannot be built in this process. */
  forModel(modelId: string): Promise<QueryEmbedder> {
    const { configured } = this.options;
    if (modelId === configured.embedder.modelId) return Promise.resolve(configured);
    const known = this.others.get(modelId);
    if (known) return known.embedder;
    const embedder = this.build(modelId);
    const entry = { at: performance.now(), embedder };
    this.others.set(modelId, entry);
    embedder.catch(() => setTimeout(() => this.others.get(modelId) === entry && this.others.delete(modelId), RETRY_MS).unref());
    return embedder;
  }

  /** Stops every model's threads. */
  async close(): Promise<void> {
    const others = await Promise.allSettled([...this.others.values()].map((o) => o.embedder));
    await Promise.all([this.options.configured.close(), ...others.map((o) => (o.status === 'fulfilled' ? o.value.close() : undefined))]);
  }

  private async build(modelId: string): Promise<QueryEmbedder> {
    const record = await this.options.registry.get(modelId);
    if (!record) throw new Error(`the model ${modelId} is not recorded`);
    const { spec } = this.options;
    const token = spec.provider === 'hf' ? spec.token : undefined;
    const model = this.options.build(record.spec.provider === 'hf' ? { ...record.spec, token } : record.spec);
    if (!model) throw new Error(`the model ${modelId} embeds nothing`);
    // An onnx directory holds other weights now: its id (with their digest) differs.
    if (model.modelId !== modelId) {
      await model.close?.();
      throw new Error(`the model ${modelId} is no longer where it was recorded (found ${model.modelId})`);
    }
    return new QueryEmbedder(model);
  }
}
