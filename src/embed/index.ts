import type { EmbeddingConfig } from '../config.js';
import type { Embedder } from './embedder.js';
import { HfEmbedder } from './hf.js';
import { LocalEmbedder } from './local.js';

/** The configured embedder, or null when embedding is off. */
export function createEmbedder(config: EmbeddingConfig): Embedder | null {
  switch (config.provider) {
    case 'local':
      return new LocalEmbedder();
    case 'hf':
      return new HfEmbedder(config);
    case 'none':
      return null;
  }
}
