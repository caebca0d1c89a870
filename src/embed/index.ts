import type { EmbeddingConfig } from '../config.js';
import { buildEmbedder } from './build.js';
import type { Embedder } from './embedder.js';
import { ThreadedEmbedder } from './threads.js';

/**
 * The configured embedder, or null when embedding is off. `threaded`: the embed worker's pool of
 * low-priority threads (local and onnx models); otherwise in this thread (query embeddings, which
 * a searcher waits for).
 */
export function createEmbedder(config: EmbeddingConfig, { threaded = false } = {}): Embedder | null {
  const model = buildEmbedder(config);
  if (!model || !threaded || config.provider === 'hf') return model;
  return new ThreadedEmbedder(config, model, { threads: config.threads, nice: config.nice, idle: config.idle });
}
