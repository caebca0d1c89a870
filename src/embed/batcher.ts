// Gathers the texts of concurrent jobs into batches: one model call for many products.
import type { Embedder } from './embedder.js';

interface Waiting {
  texts: string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: unknown) => void;
}

export class MicroBatcher {
  private queue: Waiting[] = [];
  private queued = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly embedder: Embedder,
    private readonly maxBatch: number,
    private readonly maxWaitMs = 5,
  ) {}

  embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.queue.push({ texts, resolve, reject });
      this.queued += texts.length;
      if (this.queued >= this.maxBatch) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.maxWaitMs);
    });
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.queue;
    this.queue = [];
    this.queued = 0;
    if (batch.length === 0) return;
    // One model call at a time: the model is CPU-bound, parallel calls only contend.
    this.running = this.running.then(async () => {
      try {
        const vectors = await this.embedder.embed(batch.flatMap((w) => w.texts));
        let offset = 0;
        for (const waiting of batch) {
          waiting.resolve(vectors.slice(offset, offset + waiting.texts.length));
          offset += waiting.texts.length;
        }
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    });
  }
}
