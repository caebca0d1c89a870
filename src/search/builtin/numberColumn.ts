// A number per document number in a typed array that grows as documents are numbered: the
// replica's hot per-document facts (price, flags) without an object per document.
export class NumberColumn<A extends Float64Array | Uint8Array> {
  private values: A;

  constructor(
    private readonly kind: { new (size: number): A },
    private readonly missing: number,
  ) {
    this.values = new kind(1024).fill(missing) as A;
  }

  at(doc: number): number {
    return doc < this.values.length ? this.values[doc] : this.missing;
  }

  set(doc: number, value: number): void {
    if (doc >= this.values.length) {
      const grown = new this.kind(Math.max(doc + 1, this.values.length * 2)).fill(this.missing) as A;
      grown.set(this.values);
      this.values = grown;
    }
    this.values[doc] = value;
  }
}
