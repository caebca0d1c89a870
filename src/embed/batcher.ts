// Gathers the texts of concurrent jobs into batches: one model call for many products.
import type { Embedder } from './embedder.js';

interface Waiting {
  texts: string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: unknown) => void;
}

/** Characters of text per model call: about 0.7 s of the local model on one core (docs/BENCHMARKS.md). */
const MAX_CALL_CHARS = 6000;

/** The batcher was closed (the worker stops) before these texts reached the model. */
export class BatcherClosedError extends Error {
  constructor() {
    super('The embedding batcher is closed');
  }
}

export class MicroBatcher {
  private closed = false;
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
    if (this.closed) return Promise.reject(new BatcherClosedError());
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
      if (this.closed) return batch.forEach((waiting) => waiting.reject(new BatcherClosedError()));
      try {
        const vectors = await this.embedInCalls(batch.flatMap((w) => w.texts));
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

  /**
   * The model blocks the event loop for the length of a call: calls of at most MAX_CALL_CHARS,
   * with the event loop served between them, let a stop signal through within about a second.
   */
  private async embedInCalls(texts: string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; ) {
      if (this.closed) throw new BatcherClosedError();
      let end = start + 1;
      for (let chars = texts[start].length; end < texts.length && chars + texts[end].length <= MAX_CALL_CHARS; end++) chars += texts[end].length;
      vectors.push(...(await this.embedder.embed(texts.slice(start, end))));
      start = end;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return vectors;
  }

  /**
   * Refuses new texts and every batch that has not reached the model yet (BatcherClosedError),
   * so a stopping worker waits for one model call at most; the batch in the model completes.
   */
  close(): void {
    this.closed = true;
    this.flush();
  }
}
