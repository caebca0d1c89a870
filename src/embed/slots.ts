// A first-come bound on work in flight: the embed worker's documents between reading their texts
// and storing their vectors. BullMQ hands the worker whole jobs (up to KCS_EMBED_BATCH of them, a
// bulk import's of 128 documents each), so without it every document of every job taken had its
// texts read at once: thousands, minutes before the model reached them (texts changed meanwhile
// were embedded and then refused), and in one burst when the worker resumed after an import.

export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  /** Runs `work` once a slot is free (in the order asked), and frees it when the work settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((start) => this.waiting.push(start));
    try {
      return await work();
    } finally {
      // The slot passes to the next in line, or is free again.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
