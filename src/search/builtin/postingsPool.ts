// Every term's postings (document, generation, weight) and its bookkeeping in typed arrays by term
// id: no object per term. An object per term with three typed arrays of its own cost seven heap
// objects for each new word (a catalogue has one or more a product: model numbers, codes), each
// copied by the young-generation collections while new; the replica's first apply of a product
// cost ~15 µs more with such a word (bench:replica).
//
// Short lists (most terms: a word of a few products) share one pool: a full list moves to a region
// twice its size at the pool's end, and when the pool is full the regions in use are copied to a
// new one, which takes back the space of those left behind (as TermLists does for documents). A
// list outgrowing POOLED_MAX gets arrays of its own: moving the long lists of frequent words in the
// pool left so much behind that the pool was copied again and again.
const POOLED_MAX = 64;

/** A long list's own arrays. */
interface OwnLists {
  docs: Int32Array;
  gens: Int32Array;
  weights: Float32Array;
}

export class PostingsPool {
  private pool: OwnLists = { docs: new Int32Array(4096), gens: new Int32Array(4096), weights: new Float32Array(4096) };
  private used = 0;
  private waste = 0;
  /** Per term id: where its list starts in its arrays, their room for it, the postings in it. */
  private start = new Int32Array(1024);
  private capacity = new Int32Array(1024);
  length = new Int32Array(1024);
  /** Per term id: postings of older generations or removed documents, and live documents holding the term. */
  stale = new Int32Array(1024);
  df = new Int32Array(1024);
  /** Per term id: 0 for a list in the pool, else 1 + its slot in `own`. */
  private ownSlot = new Int32Array(1024);
  private readonly own: (OwnLists | null)[] = [];
  private readonly freeSlots: number[] = [];
  /** Term ids handed out so far. */
  private terms = 0;

  /** A new term id with an empty list. */
  add(): number {
    if (this.terms === this.start.length) this.growColumns();
    return this.terms++;
  }

  /** The arrays holding a term's list, which runs from offset(term) for length[term] postings (valid until the next push). */
  listsOf(term: number): OwnLists {
    const slot = this.ownSlot[term];
    return slot === 0 ? this.pool : this.own[slot - 1]!;
  }

  offset(term: number): number {
    return this.start[term];
  }

  push(term: number, doc: number, gen: number, weight: number): void {
    const length = this.length[term];
    if (length === this.capacity[term]) this.move(term, Math.max(2, length * 2));
    const lists = this.listsOf(term);
    const at = this.start[term] + length;
    lists.docs[at] = doc;
    lists.gens[at] = gen;
    lists.weights[at] = weight;
    this.length[term] = length + 1;
  }

  /** Empties a term's list (a term no document holds any more): its room goes back. */
  clear(term: number): void {
    const slot = this.ownSlot[term];
    if (slot === 0) {
      this.waste += this.capacity[term];
    } else {
      this.own[slot - 1] = null;
      this.freeSlots.push(slot - 1);
      this.ownSlot[term] = 0;
    }
    this.start[term] = 0;
    this.capacity[term] = 0;
    this.length[term] = 0;
    this.stale[term] = 0;
    this.df[term] = 0;
  }

  /** Drops a term's postings of older generations or removed documents, in place. */
  compact(term: number, docGen: Int32Array): void {
    const { docs, gens, weights } = this.listsOf(term);
    const from = this.start[term];
    const end = from + this.length[term];
    let w = from;
    for (let r = from; r < end; r++) {
      const doc = docs[r];
      if (gens[r] !== docGen[doc]) continue;
      docs[w] = doc;
      gens[w] = gens[r];
      weights[w] = weights[r];
      w++;
    }
    this.length[term] = w - from;
    this.stale[term] = 0;
  }

  /** Gives a term's list room for `size` postings: a region at the pool's end, or arrays of its own. */
  private move(term: number, size: number): void {
    if (size > POOLED_MAX) {
      const lists = { docs: new Int32Array(size), gens: new Int32Array(size), weights: new Float32Array(size) };
      this.copy(term, lists, 0);
      if (this.ownSlot[term] === 0) this.waste += this.capacity[term];
      const slot = this.ownSlot[term] || 1 + (this.freeSlots.pop() ?? this.own.push(null) - 1);
      this.own[slot - 1] = lists;
      this.ownSlot[term] = slot;
      this.start[term] = 0;
    } else {
      if (this.used + size > this.pool.docs.length) this.repack(size);
      this.copy(term, this.pool, this.used);
      this.waste += this.capacity[term];
      this.start[term] = this.used;
      this.used += size;
    }
    this.capacity[term] = size;
  }

  /** Copies a term's list to `to` at `at`. */
  private copy(term: number, to: OwnLists, at: number): void {
    const from = this.listsOf(term);
    const begin = this.start[term];
    const end = begin + this.length[term];
    to.docs.set(from.docs.subarray(begin, end), at);
    to.gens.set(from.gens.subarray(begin, end), at);
    to.weights.set(from.weights.subarray(begin, end), at);
  }

  /**
   * Copies the regions in use, in term order, into a new pool with room for `more`: twice what is
   * live, so that the moves between two repacks pay for it. A region keeps its room (a list packed
   * tight would move again at its next posting).
   */
  private repack(more: number): void {
    const live = this.used - this.waste;
    const size = Math.max(this.pool.docs.length, 2 * (live + more));
    const pool = { docs: new Int32Array(size), gens: new Int32Array(size), weights: new Float32Array(size) };
    let at = 0;
    for (let term = 0; term < this.terms; term++) {
      if (this.ownSlot[term] !== 0 || this.capacity[term] === 0) continue;
      const from = this.start[term];
      const end = from + this.length[term];
      // Element by element, not copy(): a repack walks every short list, and copy() makes three views of each.
      for (let r = from, w = at; r < end; r++, w++) {
        pool.docs[w] = this.pool.docs[r];
        pool.gens[w] = this.pool.gens[r];
        pool.weights[w] = this.pool.weights[r];
      }
      this.start[term] = at;
      at += this.capacity[term];
    }
    this.pool = pool;
    this.used = at;
    this.waste = 0;
  }

  private growColumns(): void {
    const size = this.start.length * 2;
    const grown = (from: Int32Array) => {
      const to = new Int32Array(size);
      to.set(from);
      return to;
    };
    this.start = grown(this.start);
    this.capacity = grown(this.capacity);
    this.length = grown(this.length);
    this.stale = grown(this.stale);
    this.df = grown(this.df);
    this.ownSlot = grown(this.ownSlot);
  }
}
