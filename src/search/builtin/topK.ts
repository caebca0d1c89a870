// Top-k selection without sorting everything: a bounded min-heap on typed arrays.

/** Documents with their scores, best first. */
export interface Ranked {
  docs: number[];
  scores: number[];
}

/**
 * The k best (doc, score) pairs seen: a min-heap whose root is the worst kept pair. Pairs are
 * ordered by score, then by document number (lower first), so the top k is always a prefix of
 * the top k + n and pages of equal scores neither overlap nor skip.
 */
export class TopK {
  private readonly docs: Int32Array;
  private readonly scores: Float64Array;
  private n = 0;

  constructor(private readonly k: number) {
    this.docs = new Int32Array(Math.max(1, k));
    this.scores = new Float64Array(Math.max(1, k));
  }

  /** True when pair i ranks below (doc, score). */
  private below(i: number, doc: number, score: number): boolean {
    return this.scores[i] < score || (this.scores[i] === score && this.docs[i] > doc);
  }

  offer(doc: number, score: number): void {
    if (this.n < this.k) {
      let i = this.n++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        // Stop once the parent ranks below the new pair: the root stays the worst.
        if (this.below(parent, doc, score)) break;
        this.docs[i] = this.docs[parent];
        this.scores[i] = this.scores[parent];
        i = parent;
      }
      this.docs[i] = doc;
      this.scores[i] = score;
    } else if (this.k > 0 && this.below(0, doc, score)) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= this.n) break;
        const r = l + 1;
        const worse = r < this.n && this.below(r, this.docs[l], this.scores[l]) ? r : l;
        if (!this.below(worse, doc, score)) break;
        this.docs[i] = this.docs[worse];
        this.scores[i] = this.scores[worse];
        i = worse;
      }
      this.docs[i] = doc;
      this.scores[i] = score;
    }
  }

  /** Best first; equal scores in document order. */
  sorted(): Ranked {
    const order = Array.from({ length: this.n }, (_, i) => i).sort(
      (a, b) => this.scores[b] - this.scores[a] || this.docs[a] - this.docs[b],
    );
    return { docs: order.map((i) => this.docs[i]), scores: order.map((i) => this.scores[i]) };
  }
}
