// The embedder a spec names, built in this thread (the pool's threads build theirs the same way).
import type { EmbedderSpec } from '../config.js';
import type { Embedder } from './embedder.js';
import { HfEmbedder } from './hf.js';
import { LocalEmbedder } from './local.js';
import { OnnxEmbedder } from './onnx.js';

export function buildEmbedder(spec: EmbedderSpec): Embedder | null {
  switch (spec.provider) {
    case 'local':
      return new LocalEmbedder();
    case 'onnx':
      return new OnnxEmbedder(spec);
    case 'hf':
      return new HfEmbedder(spec);
    case 'none':
      return null;
  }
}
