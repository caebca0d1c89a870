import type { EmbedderSpec, EmbeddingConfig } from '../config.js';
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

/** The threads a serve process embeds queries on. */
export interface QueryThreads {
  threads: number;
  nice: number;
}

/**
 * The model a serve process embeds queries with: local and onnx models on threads of their own
 * (KCS_QUERY_EMBED_THREADS, at KCS_QUERY_EMBED_NICE, a little below serving), so a never-seen
 * query never holds the thread that serves HTTP; a hosted model (hf) is a network call as it is.
 */
export function createQueryModel(spec: EmbedderSpec, { threads, nice }: QueryThreads): Embedder | null {
  const model = buildEmbedder(spec);
  if (!model || spec.provider === 'hf') return model;
  return new ThreadedEmbedder(spec, model, { threads, nice, idle: false });
}
