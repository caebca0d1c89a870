/** The keys of one script call, each named once; scripts refer to them by position (1-based). */
export class KeyTable {
  readonly keys: string[];
  private readonly positions = new Map<string, number>();

  constructor(fixed: string[] = []) {
    this.keys = [...fixed];
    fixed.forEach((k, i) => this.positions.set(k, i + 1));
  }

  ref(key: string): number {
    let position = this.positions.get(key);
    if (position === undefined) {
      position = this.keys.push(key);
      this.positions.set(key, position);
    }
    return position;
  }
}
