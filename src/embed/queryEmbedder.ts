// Query vectors for search: each distinct query is embedded once and the most recent ones are kept
// (LRU), since storefront queries repeat heavily. Never-seen queries that arrive together are
// embedded in one model call (MicroBatcher), on the model's own threads where it runs in process
// (createQueryModel): the thread that serves HTTP never runs the model.
import { MicroBatcher } from './batcher.js';
import type { Embedder } from './embedder.js';

const DEFAULT_CAPACITY = 2000;
/** Queries gathered for one model call: those arriving within a millisecond, up to 32. */
const BATCH_WAIT_MS = 1;
const BATCH_TEXTS = 32;

/** Whether the model can embed a query without first loading: loading (at start), ready, or failed to load. */
export type QueryModelState = 'loading' | 'ready' | 'failed';

export class QueryEmbedder {
  private readonly cache = new Map<string, Promise<Float32Array>>();
  private readonly batcher: MicroBatcher;
  /** 'ready' until load() starts loading (a hosted model has nothing to load). */
  state: QueryModelState = 'ready';
  private closed = false;

  constructor(
    readonly embedder: Embedder,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {
    this.batcher = new MicroBatcher(embedder, BATCH_TEXTS, BATCH_WAIT_MS, { purpose: 'query', maxTexts: BATCH_TEXTS });
  }

  /** True when the model serves this language (a tag such as de-AT counts as de). */
  serves(language: string): boolean {
    return this.embedder.languages.includes(language.slice(0, 2).toLowerCase());
  }

  vector(query: string): Promise<Float32Array> {
    const key = query.trim().toLowerCase().replace(/\s+/g, ' ');
    let found = this.cache.get(key);
    if (found) {
      // Re-insert: a Map iterates in insertion order, so the first key is the least recently used.
      this.cache.delete(key);
      this.cache.set(key, found);
      return found;
    }
    found = this.batcher.embed([key]).then((vectors) => vectors[0]);
    found.catch(() => this.cache.delete(key));
    this.cache.set(key, found);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
    return found;
  }

  /**
   * Loads the model on every one of its threads at once (a query before waits for it), so that
   * no shopper's search is the first to load it: the first semantic search after a start waited
   * 5 s for the local model. Rejects when the model cannot be loaded (searches fall back to keyword).
   */
  async load(): Promise<void> {
    this.state = 'loading';
    try {
      await Promise.all(Array.from({ length: this.embedder.parallelism ?? 1 }, () => this.embedder.embed(['kcs'], 'query')));
      this.state = 'ready';
    } catch (error) {
      // Closed while loading (a stop soon after the start): nothing failed.
      if (this.closed) return;
      this.state = 'failed';
      throw error;
    }
  }

  /** Stops the model's threads. */
  async close(): Promise<void> {
    this.closed = true;
    this.batcher.close();
    await this.embedder.close?.();
  }
}
