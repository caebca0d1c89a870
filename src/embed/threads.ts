// Runs a model on a pool of threads below the priority of everything else in the process: the
// embed worker uses the cores serving and importing leave idle, and gives them back at once when
// those need them. One call per thread at a time; each thread holds its own copy of the model.
import { Worker } from 'node:worker_threads';
import type { EmbedderSpec } from '../config.js';
import type { EmbedPurpose, Embedder } from './embedder.js';

export interface EmbedThreadData {
  spec: EmbedderSpec;
  nice: number;
  idle: boolean;
}
export interface EmbedThreadCall {
  id: number;
  texts: string[];
  purpose: EmbedPurpose;
}
export type EmbedThreadReply = { id: number; vectors: Float32Array[] } | { id: number; error: string };

interface Pending {
  call: EmbedThreadCall;
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: Error) => void;
}

export interface ThreadPoolOptions {
  threads: number;
  nice: number;
  /** SCHED_IDLE as well (src/embed/priority.ts). */
  idle: boolean;
}

export class ThreadedEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimension: number;
  readonly languages: readonly string[];
  readonly minSimilarity: number;
  readonly parallelism: number;
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private started = 0;
  private nextId = 0;
  private closed = false;

  /** `model` describes the spec's model (built in this thread, never called). */
  constructor(
    private readonly spec: EmbedderSpec,
    model: Embedder,
    private readonly options: ThreadPoolOptions,
  ) {
    this.modelId = model.modelId;
    this.dimension = model.dimension;
    this.languages = model.languages;
    this.minSimilarity = model.minSimilarity;
    this.parallelism = options.threads;
  }

  embed(texts: string[], purpose: EmbedPurpose = 'document'): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new Error('the embedding threads are closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ call: { id: this.nextId++, texts, purpose }, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiting of this.queue.splice(0)) waiting.reject(new Error('the embedding threads are closed'));
    await Promise.all([...this.idle.splice(0), ...this.busy.keys()].map((worker) => worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.started < this.options.threads ? this.start() : null);
      if (!worker) return;
      const pending = this.queue.shift()!;
      this.busy.set(worker, pending);
      worker.postMessage(pending.call);
    }
  }

  /** Threads start on the first calls, so a process that never embeds holds none. */
  private start(): Worker {
    this.started++;
    const data: EmbedThreadData = { spec: this.spec, nice: this.options.nice, idle: this.options.idle };
    const worker = new Worker(new URL('./thread.mjs', import.meta.url), { workerData: data });
    worker.on('message', (reply: EmbedThreadReply) => {
      const pending = this.busy.get(worker);
      this.busy.delete(worker);
      if (!this.closed) this.idle.push(worker);
      if (pending) {
        if ('error' in reply) pending.reject(new Error(reply.error));
        else pending.resolve(reply.vectors);
      }
      this.dispatch();
    });
    worker.on('error', (error) => this.busy.get(worker)?.reject(error));
    // A thread that dies (its model failed to load, out of memory) fails its call; the next call starts another.
    worker.once('exit', () => {
      const pending = this.busy.get(worker);
      this.busy.delete(worker);
      this.started--;
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      pending?.reject(new Error('an embedding thread exited'));
      if (!this.closed) this.dispatch();
    });
    return worker;
  }
}
