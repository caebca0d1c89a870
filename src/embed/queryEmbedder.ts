// Query vectors for search: the serve process embeds each distinct query once and keeps the
// most recent ones (LRU), since storefront queries repeat heavily.
import type { Embedder } from './embedder.js';

const DEFAULT_CAPACITY = 2000;

export class QueryEmbedder {
  private readonly cache = new Map<string, Promise<Float32Array>>();

  constructor(
    readonly embedder: Embedder,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {}

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
    found = this.embedder.embed([key], 'query').then((vectors) => vectors[0]);
    found.catch(() => this.cache.delete(key));
    this.cache.set(key, found);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
    return found;
  }
}
