// Gathers the texts of concurrent jobs into batches: one model call for many products, as many
// calls at once as the embedder has threads.
import type { EmbedPurpose, Embedder } from './embedder.js';

interface Waiting {
  texts: string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Bounds of one model call: about 0.15 s of the local model on one core, so that a hold for an
 * import (or a stopping worker) waits that long at most, and a batch spreads over every thread.
 * The local model embeds as many texts a second in calls of 4 as in calls of 16 (~0.6 s each),
 * and so does an ONNX transformer of multilingual-e5-small's shape: a larger call only keeps the
 * cores longer.
 */
const MAX_CALL_CHARS = 1500;
const MAX_CALL_TEXTS = 4;

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
  /** Model calls under way, and those waiting for a free thread. */
  private calls = 0;
  private readonly waitingCalls: (() => void)[] = [];
  /** While set, no model call starts (hold): resolved by release. */
  private held: { released: Promise<void>; release: () => void } | null = null;

  constructor(
    private readonly embedder: Embedder,
    private readonly maxBatch: number,
    private readonly maxWaitMs = 5,
    /** Queries: short texts, many to a call, embedded as queries (e5 prefixes them differently). */
    private readonly callShape = { purpose: 'document' as EmbedPurpose, maxTexts: MAX_CALL_TEXTS },
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

  /** No model call starts until release(); those under way complete. */
  hold(): void {
    if (this.held) return;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.held = { released, release };
  }

  release(): void {
    this.held?.release();
    this.held = null;
    for (const start of this.waitingCalls.splice(0)) start();
  }

  /**
   * Refuses new texts and every call that has not reached the model yet (BatcherClosedError), so
   * a stopping worker waits for the calls in the model only.
   */
  close(): void {
    this.closed = true;
    this.release();
    this.flush();
    for (const start of this.waitingCalls.splice(0)) start();
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.queue;
    this.queue = [];
    this.queued = 0;
    if (batch.length === 0) return;
    const texts = batch.flatMap((w) => w.texts);
    Promise.all(callsOf(texts, this.callShape.maxTexts).map(([start, end]) => this.call(texts.slice(start, end)))).then(
      (parts) => {
        const vectors = parts.flat();
        let offset = 0;
        for (const waiting of batch) {
          waiting.resolve(vectors.slice(offset, offset + waiting.texts.length));
          offset += waiting.texts.length;
        }
      },
      (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
    );
  }

  /** One model call, once a thread is free (the model is CPU-bound: more calls only contend). */
  private async call(texts: string[]): Promise<Float32Array[]> {
    // A hold also stops the calls that were waiting for a thread when it began: each looks again
    // once woken (a call that ends wakes one; a release, or close, wakes them all).
    for (;;) {
      while (this.held) await this.held.released;
      if (this.closed || this.calls < (this.embedder.parallelism ?? 1)) break;
      await new Promise<void>((start) => this.waitingCalls.push(start));
    }
    if (this.closed) throw new BatcherClosedError();
    this.calls++;
    try {
      return await this.embedder.embed(texts, this.callShape.purpose);
    } finally {
      this.calls--;
      this.waitingCalls.shift()?.();
    }
  }
}

/** [start, end) of each call: at most `maxTexts` texts and MAX_CALL_CHARS characters (one at least). */
function callsOf(texts: string[], maxTexts: number): [number, number][] {
  const calls: [number, number][] = [];
  for (let start = 0; start < texts.length; ) {
    let end = start + 1;
    for (let chars = texts[start].length; end < texts.length && end - start < maxTexts && chars + texts[end].length <= MAX_CALL_CHARS; end++) chars += texts[end].length;
    calls.push([start, end]);
    start = end;
  }
  return calls;
}
