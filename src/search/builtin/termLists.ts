// Each document's distinct term ids in one shared Int32Array: 4 bytes a term and no object per
// document (a JavaScript array per document cost ~400 bytes and a copy in every young-generation
// collection while it was new). A re-indexed document's new list is appended; when the pool is
// full, the live lists are copied to a new one, which takes back the space of those that went.
export class TermLists {
  private pool = new Int32Array(4096);
  private used = 0;
  private waste = 0;
  /** Per document: where its list starts, and its length (-1: no list). */
  private starts = new Int32Array(1024);
  private lengths = new Int32Array(1024).fill(-1);

  has(doc: number): boolean {
    return doc < this.lengths.length && this.lengths[doc] >= 0;
  }

  /** The document's list: a view into the pool, which later sets leave as it is (they append, or compact into a new pool). */
  get(doc: number): Int32Array {
    return this.pool.subarray(this.starts[doc], this.starts[doc] + this.lengths[doc]);
  }

  set(doc: number, ids: readonly number[]): void {
    this.drop(doc);
    if (this.used + ids.length > this.pool.length) this.compact(ids.length);
    this.ensureDoc(doc);
    this.starts[doc] = this.used;
    this.lengths[doc] = ids.length;
    for (let i = 0; i < ids.length; i++) this.pool[this.used + i] = ids[i];
    this.used += ids.length;
  }

  drop(doc: number): void {
    if (!this.has(doc)) return;
    this.waste += this.lengths[doc];
    this.lengths[doc] = -1;
  }

  /**
   * Copies the live lists, in document order, into a new pool with room for `more`: twice what
   * is live, so that appends between compactions pay for each one, and never smaller than now.
   */
  private compact(more: number): void {
    const pool = new Int32Array(Math.max(this.pool.length, 2 * (this.used - this.waste + more)));
    let at = 0;
    for (let doc = 0; doc < this.lengths.length; doc++) {
      const length = this.lengths[doc];
      if (length < 0) continue;
      pool.set(this.pool.subarray(this.starts[doc], this.starts[doc] + length), at);
      this.starts[doc] = at;
      at += length;
    }
    this.pool = pool;
    this.used = at;
    this.waste = 0;
  }

  private ensureDoc(doc: number): void {
    if (doc < this.lengths.length) return;
    const size = Math.max(doc + 1, this.lengths.length * 2);
    const starts = new Int32Array(size);
    starts.set(this.starts);
    const lengths = new Int32Array(size).fill(-1);
    lengths.set(this.lengths);
    this.starts = starts;
    this.lengths = lengths;
  }
}
