// A write refused because the entry moved on: PUT and DELETE send `If-Match: <version read>` and
// the API answers 412 when the entry is at another version (docs/API.md, Versions). The page then
// says so plainly, with the version it read and the one now stored, and offers a reload.
import { ApiError, get } from '../../api.js';
import { href } from '../../router.js';
import type { KnowledgeEntry } from '../../types.js';

export interface Stale {
  /** The version the page read. */
  read: number;
  /** The version stored now; null when the entry is gone (or no longer readable). */
  now: number | null;
}

export const entryPath = (id: string) => `/api/knowledge/knowledge-entries/${encodeURIComponent(id)}`;

/** Reads an entry; expired memories too, since a page may have one open. */
export const readEntry = (id: string) => get<KnowledgeEntry>(entryPath(id), { include_expired: true });

/** The Stale of a 412 (the entry's version now), or null when the error is another. */
export async function staleOf(error: unknown, id: string, read: number): Promise<Stale | null> {
  if (!(error instanceof ApiError) || error.status !== 412) return null;
  try {
    return { read, now: (await readEntry(id)).version };
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return { read, now: null };
    throw e;
  }
}

/**
 * For useSubmit's `recover`: a write refused because the entry read at `read` moved on is shown
 * (`show`) as its Stale; any other failure stays an error.
 */
export const recoverStale = (id: string, read: number, show: (stale: Stale) => void) => async (failure: unknown) => {
  const stale = await staleOf(failure, id, read).catch(() => null);
  if (stale) show(stale);
  return stale !== null;
};

export function ConflictBox({ stale, onReload }: { stale: Stale; onReload: () => void }) {
  return (
    <div class="error conflict" role="alert">
      {stale.now === null
        ? <p>This entry was deleted since you opened it (version {stale.read}).</p>
        : <p>This entry was changed since you opened it (version {stale.read}, now {stale.now}). Reload to see the changes.</p>}
      {stale.now === null ? <a href={href('knowledge')}>Back to the list</a> : <button type="button" onClick={onReload}>Reload</button>}
    </div>
  );
}
