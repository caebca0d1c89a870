// The embedding models whose vectors are stored: each model id with what builds it again. A tenant
// keeps being searched with its vectors' model while a re-embed with a new one runs (DESIGN §7),
// so a process configured with the new model must still embed queries with the old one.
import type { EmbedderSpec } from '../config.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';

/** A model as recorded: its spec (secrets left out), dimension and languages. */
export interface EmbeddingModelRecord {
  modelId: string;
  spec: EmbedderSpec;
  dimension: number;
  languages: readonly string[];
}

export class EmbeddingModelRegistry {
  constructor(private readonly redis: Store) {}

  /** Records the model a process runs with (every start; the latest spec of an id wins). */
  async record(model: EmbeddingModelRecord): Promise<void> {
    const spec = { ...model.spec } as EmbedderSpec & { token?: string };
    delete spec.token; // a hosted endpoint's token stays in the configuration that holds it
    await this.redis.hset(keys.embeddingModels, model.modelId, JSON.stringify({ ...model, spec }));
  }

  async get(modelId: string): Promise<EmbeddingModelRecord | null> {
    const json = await this.redis.hget(keys.embeddingModels, modelId);
    return json ? (JSON.parse(json) as EmbeddingModelRecord) : null;
  }
}
