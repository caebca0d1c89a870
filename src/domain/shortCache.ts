// Lookups that many requests make and few writes change, kept for a short time per process. A
// failed lookup is not kept; concurrent requests for the same key share one lookup.
export class ShortCache {
  private readonly entries = new Map<string, { value: Promise<unknown>; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly limit = 10_000,
  ) {}

  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value as Promise<T>;
    const value = load();
    const entry = { value, until: now + this.ttlMs };
    // Re-inserted so the first key is the oldest, and the cache stays within its limit.
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
    value.catch(() => this.entries.get(key) === entry && this.entries.delete(key));
    return value;
  }

  /** Forgets every entry whose key starts with `prefix`. */
  forget(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}
