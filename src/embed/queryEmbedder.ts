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

export class QueryEmbedder {
  private readonly cache = new Map<string, Promise<Float32Array>>();
  private readonly batcher: MicroBatcher;

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

  /** Stops the model's threads. */
  async close(): Promise<void> {
    this.batcher.close();
    await this.embedder.close?.();
  }
}
