// A sorted search of the replica (search/productSort.ts): the tiers of the relevance order (every
// word or an exact code, enough words, semantic only), each in the sort fields' order with ties by
// relevance, the first k of each read through a bounded max-heap whose root is the last document
// kept, so each further document costs one comparison unless it belongs in the top k.
import type { Hit } from '../engine.js';
import type { Ranked } from './topK.js';

/** Negative when document a comes before b. */
export type DocOrder = (a: number, b: number) => number;

/** The first k of `docs` in `order`, in order. */
export function sortedTopK(docs: Iterable<number>, k: number, order: DocOrder): number[] {
  const heap: number[] = [];
  if (k <= 0) return heap;
  for (const doc of docs) {
    if (heap.length < k) {
      heap.push(doc);
      up(heap, heap.length - 1, order);
    } else if (order(doc, heap[0]) < 0) {
      heap[0] = doc;
      down(heap, 0, order);
    }
  }
  return heap.sort(order);
}

/** The heap's root is the document that comes last. */
function up(heap: number[], i: number, order: DocOrder): void {
  const doc = heap[i];
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (order(heap[parent], doc) >= 0) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = doc;
}

function down(heap: number[], i: number, order: DocOrder): void {
  const doc = heap[i];
  for (;;) {
    const l = 2 * i + 1;
    if (l >= heap.length) break;
    const r = l + 1;
    const later = r < heap.length && order(heap[r], heap[l]) > 0 ? r : l;
    if (order(heap[later], doc) <= 0) break;
    heap[i] = heap[later];
    i = later;
  }
  heap[i] = doc;
}

/** What a search found, as a sorted search reads it. */
export interface TierInput {
  /** Every keyword match (browsing: every allowed document). */
  keywordAll: ArrayLike<number> & Iterable<number>;
  /** The keyword matches' tiers and scores (null: browsing, or no keyword search). */
  matches: { tier(doc: number): 0 | 1; score(doc: number): number } | null;
  semantic: Ranked | null;
  inKeyword: (doc: number) => boolean;
  /** Whether a keyword search (or browsing) ran. */
  ran: boolean;
  createdMs: (doc: number) => number;
}

/** The first k hits of a sorted search, the total, and the matched documents (for facets). */
export function sortedTiers(
  k: number, order: DocOrder, { keywordAll, matches, semantic, inKeyword, ran, createdMs }: TierInput,
): { list: { doc: number; score: number; ranks: Hit['ranks'] }[]; total: number; matched: Iterable<number>[] } {
  const semanticRank = new Map((semantic?.docs ?? []).map((doc, i) => [doc, i + 1]));
  const tiers: { docs: number[]; relevance: (doc: number) => number; signal: 'keyword' | 'semantic' }[] = [];
  if (matches) {
    const first: number[] = [];
    const rest: number[] = [];
    for (const doc of keywordAll) (matches.tier(doc) === 0 ? first : rest).push(doc);
    tiers.push({ docs: first, relevance: matches.score, signal: 'keyword' }, { docs: rest, relevance: matches.score, signal: 'keyword' });
  } else if (ran) {
    // Browsing: newest first where the sort fields tie.
    tiers.push({ docs: Array.from(keywordAll), relevance: createdMs, signal: 'keyword' });
  }
  const extra = semantic ? semantic.docs.filter((doc) => !ran || !inKeyword(doc)) : [];
  if (semantic) tiers.push({ docs: extra, relevance: (doc) => -semanticRank.get(doc)!, signal: 'semantic' });
  const list: { doc: number; score: number; ranks: Hit['ranks'] }[] = [];
  let keywordPosition = 0;
  for (const tier of tiers) {
    if (list.length >= k) break;
    const cmp = (a: number, b: number) => order(a, b) || tier.relevance(b) - tier.relevance(a) || a - b;
    for (const doc of sortedTopK(tier.docs, k - list.length, cmp)) {
      const keywordRank = tier.signal === 'keyword' ? ++keywordPosition : null;
      const score = tier.signal === 'semantic' ? semantic!.scores[semanticRank.get(doc)! - 1] : matches ? matches.score(doc) : 0;
      list.push({ doc, score, ranks: { keyword: keywordRank, semantic: semanticRank.get(doc) ?? null } });
    }
  }
  return { list, total: ran ? keywordAll.length + extra.length : extra.length, matched: ran ? [keywordAll, extra] : [extra] };
}
