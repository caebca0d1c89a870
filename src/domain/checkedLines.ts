// The bulk lines this process found valid lately, by the SHA-256 of their bytes. A catalogue sync
// re-sends mostly the lines it sent last time; the same bytes pass the same check (the item schema
// is fixed for the process's life), so such a line skips its parse and check: on the unchanged
// path those are the serve process's largest cost (a third of its CPU an unchanged item, a fifth
// of the whole import's, in `npm run bench:ingest`).
import { hash } from 'node:crypto';

/** Lines remembered per generation: between this many and twice as many of the latest valid lines are known. */
export const CHECKED_LINES_PER_GENERATION = 100_000;

export class CheckedLines {
  /**
   * Two generations, an approximate LRU at a Map operation a line: a line found in the older one
   * moves to the newer one; when the newer one is full it becomes the older, and the older is dropped.
   */
  private current = new Map<string, string>();
  private previous = new Map<string, string>();

  constructor(private readonly perGeneration = CHECKED_LINES_PER_GENERATION) {}

  /**
   * The key of a line: its SHA-256, as a 32-character binary string (one byte a character). Not
   * SHA-1: a line sharing a valid line's key skips its check, and SHA-1 collisions can be made (the
   * two cost the same here, ~0.7 µs a line).
   */
  keyOf(line: Buffer): string {
    return hash('sha256', line, 'binary');
  }

  /** The external_id of a line found valid before ('' for none), or undefined when it was not. */
  externalIdOf(key: string): string | undefined {
    const externalId = this.current.get(key);
    if (externalId !== undefined) return externalId;
    const older = this.previous.get(key);
    if (older !== undefined) this.add(key, older);
    return older;
  }

  /** Records a line that passed the check. */
  add(key: string, externalId: string): void {
    if (this.current.size >= this.perGeneration) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, externalId);
  }
}
