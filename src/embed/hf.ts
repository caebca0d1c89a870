// Feature extraction through @huggingface/inference: a hosted model, or a self-hosted endpoint
// (Text Embeddings Inference, Inference Endpoints) given as endpointUrl.
import { InferenceClient } from '@huggingface/inference';
import { DEFAULT_MIN_SIMILARITY, normalize, type Embedder } from './embedder.js';

export interface HfOptions {
  model: string;
  endpointUrl?: string;
  token?: string;
  dimension: number;
  languages: string[];
  minSimilarity?: number;
}

export class HfEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimension: number;
  readonly languages: readonly string[];
  readonly minSimilarity: number;
  private readonly client: InferenceClient;

  constructor(private readonly options: HfOptions) {
    this.modelId = `hf:${options.model}`;
    this.dimension = options.dimension;
    this.languages = options.languages;
    this.minSimilarity = options.minSimilarity ?? DEFAULT_MIN_SIMILARITY;
    this.client = new InferenceClient(options.token, options.endpointUrl ? { endpointUrl: options.endpointUrl } : {});
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    // retry_on_error: false: the library would re-send a 503 at once, without end; a failed call
    // fails the embed job instead, which BullMQ retries with backoff.
    const output = (await this.client.featureExtraction({ model: this.options.model, inputs: texts }, { retry_on_error: false })) as unknown as number[][];
    if (!Array.isArray(output) || output.length !== texts.length) throw new Error('unexpected feature-extraction response shape');
    return output.map((vector) => {
      if (vector.length !== this.dimension) throw new Error(`expected ${this.dimension} dimensions, got ${vector.length}`);
      return normalize(vector);
    });
  }
}
