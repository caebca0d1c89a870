// Related products without vectors on the built-in engine (search/moreLikeThis.ts): the product's
// like terms scored over the text index (BM25F, as a keyword search scores them) with each shared
// attribute value worth its idf among the site's products, best first.
import { analyzeWithCompounds, STEMMED_LANGUAGES, type QueryWord } from '../analysis.js';
import type { Hit, RelatedRequest } from '../engine.js';
import { idf, likeTerms, MAX_LIKE_ATTRIBUTES } from '../moreLikeThis.js';
import type { DocTable } from './docTable.js';
import { page } from './ranking.js';
import { TopK } from './topK.js';

/** What the replica holds of the product: its title (as sorted: folded), brand and category, and attribute pairs. */
export interface LikedProduct {
  texts: (string | null)[];
  /** Flat lower-case name, value pairs (productValues.ts attributePairs). */
  attributes: string[];
}

/** An exact index term as a query word: no typo variants, prefix or compound readings. */
const termWord = (term: string): QueryWord => ({ word: term, terms: [term], typoTerms: [], fuzzy: 0, prefixes: [], readings: [], span: 1 });

export function moreLikeThis<M extends { attributes: string[] }, C>(
  table: DocTable<M, C>, origin: number, liked: LikedProduct,
  { offset, limit, allows, docs }: RelatedRequest & { allows: (doc: number) => boolean; docs: number[] },
): { hits: Hit[]; total: number } {
  // The replica keeps no language per document, only its sets: a language without a stemmer is folded only.
  const language = STEMMED_LANGUAGES.find((l) => table.withValues('baseLanguage', [l])[0]?.has(origin)) ?? '';
  const terms = likeTerms(liked.texts.map((text) => analyzeWithCompounds(text, language)), language);
  // Scores by document number (typed arrays: a common term or value scores tens of thousands).
  const scores = new Float64Array(table.ids.length);
  const scored: number[] = [];
  const add = (doc: number, score: number) => {
    if (scores[doc] === 0) scored.push(doc);
    scores[doc] += score;
  };
  if (terms.length > 0) {
    const m = table.text.match(terms.map(termWord));
    for (let i = 0; i < m.count; i++) if (allows(m.docs[i])) add(m.docs[i], m.scores[m.docs[i]]);
  }
  addAttributeScores(table, liked.attributes, { allows, docs, add });
  const top = new TopK(offset + limit);
  for (const doc of scored) top.offer(doc, scores[doc]);
  const ranked = top.sorted();
  const hits = ranked.docs.map((doc, i) => ({ id: table.ids[doc], score: ranked.scores[i], ranks: { keyword: i + 1, semantic: null } }));
  return { hits: page(hits, offset, limit), total: scored.length };
}

/** Adds to each allowed document's score the idf (among `docs`, the site's products) of every attribute value it shares. */
function addAttributeScores<M extends { attributes: string[] }, C>(
  table: DocTable<M, C>, pairs: string[], { allows, docs, add }: { allows: (doc: number) => boolean; docs: number[]; add: (doc: number, score: number) => void },
): void {
  // By name, then value: the scan of the site's products looks each of their pairs up without making a string.
  const liked = new Map<string, Map<string, number>>();
  let count = 0;
  for (let i = 0; i < pairs.length && count < MAX_LIKE_ATTRIBUTES; i += 2) {
    let values = liked.get(pairs[i]);
    if (!values) liked.set(pairs[i], (values = new Map()));
    if (!values.has(pairs[i + 1])) values.set(pairs[i + 1], count++);
  }
  if (count === 0) return;
  // Per product of the site, the liked values it holds as bits (MAX_LIKE_ATTRIBUTES ≤ 32).
  const held = new Uint32Array(docs.length);
  const df = new Array<number>(count).fill(0);
  for (let j = 0; j < docs.length; j++) {
    const attributes = table.meta[docs[j]]?.attributes;
    if (!attributes) continue;
    let bits = 0;
    for (let i = 0; i < attributes.length; i += 2) {
      const at = liked.get(attributes[i])?.get(attributes[i + 1]);
      if (at !== undefined) bits |= 1 << at;
    }
    held[j] = bits;
    for (let at = 0; bits !== 0; at++, bits >>>= 1) if (bits & 1) df[at]++;
  }
  const weights = df.map((n) => idf(n, docs.length));
  for (let j = 0; j < docs.length; j++) {
    if (held[j] === 0 || !allows(docs[j])) continue;
    let score = 0;
    for (let at = 0, bits = held[j]; bits !== 0; at++, bits >>>= 1) if (bits & 1) score += weights[at];
    add(docs[j], score);
  }
}
