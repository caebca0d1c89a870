// Small ranking helpers shared by the replica's collections.
import { TopK, type Ranked } from './topK.js';

export const page = <T>(list: T[], offset: number, limit: number): T[] => list.slice(offset, offset + limit);

/** Two nearest-neighbour lists over disjoint documents, merged best first. */
export function mergeNearest(a: Ranked, b: Ranked, k: number): Ranked {
  const all = [...a.docs.map((doc, i) => [doc, a.scores[i]] as const), ...b.docs.map((doc, i) => [doc, b.scores[i]] as const)];
  all.sort((x, y) => y[1] - x[1] || x[0] - y[0]);
  const top = all.slice(0, k);
  return { docs: top.map(([doc]) => doc), scores: top.map(([, score]) => score) };
}

/** The k newest documents (browsing without a query). */
export function newestFirst(docs: Iterable<number>, createdMs: (doc: number) => number, k: number): Ranked {
  const top = new TopK(k);
  for (const doc of docs) top.offer(doc, createdMs(doc));
  const ranked = top.sorted();
  return { docs: ranked.docs, scores: ranked.docs.map(() => 0) };
}
