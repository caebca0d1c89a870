// Sorting a large list without holding up other requests: a merge sort whose runs are sorted and
// merged a slice at a time, between turns of the event loop. 100,000 synonym sets take ~200 ms to
// sort at once; here no slice takes more than a few milliseconds.
import { setImmediate as nextTurn } from 'node:timers/promises';

interface Keyed<T> {
  key: string;
  item: T;
}

const byKey = <T>(a: Keyed<T>, b: Keyed<T>) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** `items` in the order of their keys (string order), the sort spread over turns of the event loop. */
export async function sortInTurns<T>(items: readonly T[], keyOf: (item: T) => string, slice = 2000): Promise<T[]> {
  let runs: Keyed<T>[][] = [];
  for (let from = 0; from < items.length; from += slice) {
    if (from > 0) await nextTurn();
    runs.push(items.slice(from, from + slice).map((item) => ({ key: keyOf(item), item })).sort(byKey));
  }
  while (runs.length > 1) {
    const merged: Keyed<T>[][] = [];
    for (let i = 0; i < runs.length; i += 2) merged.push(i + 1 < runs.length ? await merge(runs[i], runs[i + 1], slice * 10) : runs[i]);
    runs = merged;
  }
  return (runs[0] ?? []).map((k) => k.item);
}

async function merge<T>(a: Keyed<T>[], b: Keyed<T>[], perTurn: number): Promise<Keyed<T>[]> {
  const out: Keyed<T>[] = new Array(a.length + b.length);
  let [i, j] = [0, 0];
  for (let k = 0; k < out.length; k++) {
    out[k] = j >= b.length || (i < a.length && a[i].key <= b[j].key) ? a[i++] : b[j++];
    if (k % perTurn === perTurn - 1) await nextTurn();
  }
  return out;
}
