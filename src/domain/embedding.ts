// Where a tenant's embeddings stand, as the status route and bulk jobs tell it (docs/API.md).
import type { Static } from '@sinclair/typebox';
import type { EmbeddingOverview } from '../schemas/embedding.js';
import type { EmbeddingProgressRepository } from '../store/embeddingProgress.js';
import type { ReembedRepository } from '../store/reembed.js';

/** The model kcs embeds with: its id and languages (null: embedding is off). */
export interface ConfiguredModel {
  modelId: string;
  languages: readonly string[];
}

/** Seconds until `pending` documents are embedded at `ratePerSecond` (null: none pending, or no rate). */
export const etaSeconds = (pending: number, ratePerSecond: number): number | null =>
  pending > 0 && ratePerSecond > 0 ? Math.ceil(pending / ratePerSecond) : null;

export interface EmbeddingStatusOptions {
  progress: EmbeddingProgressRepository;
  reembed: ReembedRepository;
  model: ConfiguredModel | null;
}

export class EmbeddingStatusService {
  constructor(private readonly options: EmbeddingStatusOptions) {}

  async overview(tenantId: string): Promise<Static<typeof EmbeddingOverview>> {
    const [{ products, entries, ratePerSecond }, reembed] = await Promise.all([this.options.progress.read(tenantId), this.options.reembed.progress(tenantId)]);
    const { model } = this.options;
    return {
      model: model?.modelId ?? null,
      languages: [...(model?.languages ?? [])],
      products,
      entries,
      rate_per_s: ratePerSecond,
      eta_s: etaSeconds(products.pending + entries.pending + (reembed && !reembed.finishedAt ? reembed.total - reembed.done : 0), ratePerSecond),
      reembedding: reembed && !reembed.finishedAt ? { model: reembed.model, done: reembed.done, total: reembed.total, started_at: reembed.startedAt } : null,
    };
  }

  /** The tenant's embedding rate now (documents per second); a job's view adds its own ETA (`etaSeconds`). */
  async ratePerSecond(tenantId: string): Promise<number> {
    return (await this.options.progress.read(tenantId)).ratePerSecond;
  }
}
