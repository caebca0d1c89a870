// Top-k selection without sorting everything: a bounded min-heap on typed arrays.

/** Documents with their scores, best first. */
export interface Ranked {
  docs: number[];
  scores: number[];
}

/** The k best (doc, score) pairs seen: a min-heap on score. */
export class TopK {
  private readonly docs: Int32Array;
  private readonly scores: Float64Array;
  private n = 0;

  constructor(private readonly k: number) {
    this.docs = new Int32Array(Math.max(1, k));
    this.scores = new Float64Array(Math.max(1, k));
  }

  offer(doc: number, score: number): void {
    if (this.n < this.k) {
      let i = this.n++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.scores[parent] <= score) break;
        this.docs[i] = this.docs[parent];
        this.scores[i] = this.scores[parent];
        i = parent;
      }
      this.docs[i] = doc;
      this.scores[i] = score;
    } else if (this.k > 0 && score > this.scores[0]) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= this.n) break;
        const r = l + 1;
        const c = r < this.n && this.scores[r] < this.scores[l] ? r : l;
        if (this.scores[c] >= score) break;
        this.docs[i] = this.docs[c];
        this.scores[i] = this.scores[c];
        i = c;
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
