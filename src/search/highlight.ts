// Search-result highlighting: which words of a hit matched the query, marked in its title, brand
// and description, with a snippet of the description around the best-matching passage. Both
// engines (built-in and the Query Engine) highlight through this module, so a hit marks the same
// words whichever engine found it. A word matches as keyword search matches it (analysis.ts): by
// its index terms (stems, a German compound's tails, folding), the query's last word as a prefix
// while it is being typed, typo variants within a word's budget, and a compound's parts or two
// typed words joined into one. Also: a facet value with a typed prefix marked (facet value search).
import { analyzeQuery, analyzeWithCompounds, fold, joinedWords, typoBudget, type QueryAnalysis, type QuerySynonyms, type QueryWord } from './analysis.js';

export interface HighlightOptions {
  /** The query's language (request, site or tenant default): documents' words are analysed in it too. */
  language: string;
  /** Inserted verbatim before and after each matched word (not escaped). */
  preTag: string;
  postTag: string;
  /** About how many words the snippet holds. */
  snippetWords: number;
  /** The search's synonym sets: their alternatives are marked as matches too. */
  synonyms?: QuerySynonyms | null;
}

/** A hit's fields escaped with matched words marked (null where the product has no such field). */
export interface ProductHighlight {
  title: string | null;
  brand: string | null;
  description: string | null;
  /** About snippetWords words of the description around its best-matching passage, "…" where cut. */
  snippet: string | null;
  /** The document words that matched, lower-cased, distinct, in order of first appearance. */
  matched_words: string[];
}

/** Letters and digits: a word, as analysis.ts splits text. */
const WORD = /[\p{L}\p{N}]+/gu;
const ELLIPSIS = '…';
/** Document words' matches kept across hits; past this many it starts over. */
const WORD_CACHE_LIMIT = 10_000;

/**
 * One thing a document word may match: a query word, two adjacent query words joined into a
 * compound ("regen jacke" → regenjacke), or one part of a query compound's reading.
 */
interface Matcher {
  terms: string[];
  /** Terms typo variants are sought for, each with its edit budget (> 0). */
  typoTerms: { term: string; edits: number }[];
  /** The word as typed, folded, and its budget against documents' spellings (0: none). */
  spelling: string;
  spellingEdits: number;
  prefixes: string[];
  /** For a compound's part: its reading (an index into readings), which holds only when every part matched. */
  reading: number | null;
}

/** How one document word matched: the matchers (by index) it meets exactly, as a prefix, and by a typo variant. */
interface WordMatch {
  exact: readonly number[];
  prefix: readonly number[];
  typo: readonly number[];
}
const NO_MATCH: WordMatch = { exact: [], prefix: [], typo: [] };

/** A piece of a field's text: a word (with its lower-case form) or the text between words. */
interface Piece {
  text: string;
  word: string | null;
}

/** The query's analysed words, prepared once per search (not per hit). */
export class QueryHighlighter {
  private readonly matchers: Matcher[] = [];
  /** Per reading of a query compound: the matchers of its parts. */
  private readonly readings: number[][] = [];
  /** Index term → the matchers that hold it. */
  private readonly byTerm = new Map<string, number[]>();
  private readonly wordMatches = new Map<string, WordMatch>();

  constructor(
    query: string,
    private readonly options: HighlightOptions,
  ) {
    // Stemmed in every language, as keyword search does when no language filter narrows it: a superset of its matches.
    const analysis: QueryAnalysis = { stemming: null, language: options.language, synonyms: options.synonyms ?? null };
    const words = analyzeQuery(query, analysis);
    for (const word of words) this.addWord(word);
    for (let i = 0; i + 1 < words.length; i++) {
      const joined = joinedWords(words[i], words[i + 1], analysis);
      if (joined) this.addWord(joined, { withReadings: false });
    }
    this.matchers.forEach((m, id) => {
      for (const term of m.terms) {
        const list = this.byTerm.get(term);
        if (!list) this.byTerm.set(term, [id]);
        else if (!list.includes(id)) list.push(id);
      }
    });
  }

  product(doc: { title: string | null; brand: string | null; description: string | null }): ProductHighlight {
    const fields = [doc.title, doc.brand, doc.description].map((text) => (text === null ? null : pieces(text)));
    const matches = new Map<string, WordMatch>();
    for (const list of fields) for (const p of list ?? []) if (p.word !== null && !matches.has(p.word)) matches.set(p.word, this.match(p.word));

    // Typo variants count only for a query word this product does not hold as typed (as the
    // engines seek them only for words the index lacks); a compound's parts only all together.
    const exact = new Set<number>();
    for (const m of matches.values()) for (const id of m.exact) exact.add(id);
    const readingHolds = this.readings.map((parts) => parts.every((id) => exact.has(id)));
    const counts = (id: number) => {
      const reading = this.matchers[id].reading;
      return reading === null || readingHolds[reading];
    };
    const matched = new Set<string>();
    for (const [word, m] of matches) {
      if (m.exact.some(counts) || m.prefix.some(counts) || m.typo.some((id) => !exact.has(id) && counts(id))) matched.add(word);
    }

    const matchedWords: string[] = [];
    const seen = new Set<string>();
    for (const list of fields) {
      for (const p of list ?? []) {
        if (p.word === null || !matched.has(p.word) || seen.has(p.word)) continue;
        seen.add(p.word);
        matchedWords.push(p.word);
      }
    }
    const [title, brand, description] = fields.map((list) => (list === null ? null : this.render(list, matched)));
    return { title, brand, description, snippet: fields[2] === null ? null : this.snippet(fields[2], matched), matched_words: matchedWords };
  }

  private addWord(word: QueryWord, { withReadings = true } = {}): void {
    this.matchers.push(matcherOf(word, null));
    if (!withReadings) return;
    this.addReadings(word);
  }

  /** A word's readings, each holding when all its parts match; a part's own readings (a synonym of a compound's part) as readings of their own. */
  private addReadings(word: QueryWord): void {
    for (const reading of word.readings) {
      const index = this.readings.length;
      this.readings.push(reading.map((part) => this.matchers.push(matcherOf(part, index)) - 1));
      for (const part of reading) this.addReadings(part);
    }
  }

  /** How a lower-case document word matches the query (cached across hits, bounded). */
  private match(word: string): WordMatch {
    const known = this.wordMatches.get(word);
    if (known) return known;
    const terms = analyzeWithCompounds(word, this.options.language);
    const spelling = fold(word);
    const exact = new Set<number>();
    const prefix: number[] = [];
    const typo: number[] = [];
    for (const term of terms) for (const id of this.byTerm.get(term) ?? []) exact.add(id);
    this.matchers.forEach((m, id) => {
      if (exact.has(id)) return;
      if (m.prefixes.some((p) => spelling.startsWith(p) || terms.some((t) => t.startsWith(p)))) prefix.push(id);
      else if (
        m.typoTerms.some(({ term, edits }) => terms.some((t) => withinEdits(term, t, edits))) ||
        (m.spellingEdits > 0 && withinEdits(m.spelling, spelling, m.spellingEdits))
      )
        typo.push(id);
    });
    const found = exact.size + prefix.length + typo.length === 0 ? NO_MATCH : { exact: [...exact], prefix, typo };
    if (this.wordMatches.size >= WORD_CACHE_LIMIT) this.wordMatches.clear();
    this.wordMatches.set(word, found);
    return found;
  }

  /** Pieces escaped, matched words wrapped in the tags. */
  private render(list: readonly Piece[], matched: ReadonlySet<string>): string {
    let out = '';
    for (const p of list) out += p.word !== null && matched.has(p.word) ? this.options.preTag + escapeHtml(p.text) + this.options.postTag : escapeHtml(p.text);
    return out;
  }

  /**
   * About snippetWords words of a description: the window holding the most matched words (the
   * earliest of equals), shifted to centre them; with none, the first words. "…" where cut.
   */
  private snippet(list: readonly Piece[], matched: ReadonlySet<string>): string | null {
    const wordAt: number[] = [];
    list.forEach((p, i) => p.word !== null && wordAt.push(i));
    if (wordAt.length === 0) return null;
    const size = Math.max(1, Math.min(Math.floor(this.options.snippetWords), wordAt.length));
    const hit = wordAt.map((i) => (matched.has(list[i].word!) ? 1 : 0));
    let count = 0;
    for (let w = 0; w < size; w++) count += hit[w];
    let best = 0;
    let bestCount = count;
    for (let start = 1; start + size <= wordAt.length; start++) {
      count += hit[start + size - 1] - hit[start - 1];
      if (count > bestCount) [best, bestCount] = [start, count];
    }
    let start = best;
    if (bestCount > 0) {
      let first = best;
      while (!hit[first]) first++;
      let last = best + size - 1;
      while (!hit[last]) last--;
      // Centred on its matches; the window still holds them all, so as many as the best.
      start = Math.max(0, Math.min(first - Math.floor((size - (last - first + 1)) / 2), wordAt.length - size));
    }
    const end = start + size - 1;
    const from = start === 0 ? 0 : wordAt[start];
    const to = end === wordAt.length - 1 ? list.length - 1 : wordAt[end];
    // The text between words on one line, as a snippet shows it.
    const window = list.slice(from, to + 1).map((p, i, all) => {
      if (p.word !== null) return p;
      let text = p.text.replace(/\s+/g, ' ');
      if (i === 0) text = text.trimStart();
      if (i === all.length - 1) text = text.trimEnd();
      return { text, word: null };
    });
    const text = this.render(window, matched);
    return (start > 0 ? ELLIPSIS : '') + text + (end < wordAt.length - 1 ? ELLIPSIS : '');
  }
}

/** A query word as the highlighter matches it; typo variants as keyword search seeks them (builtin/textMatch.ts). */
function matcherOf(word: QueryWord, reading: number | null): Matcher {
  const typoTerms: Matcher['typoTerms'] = [];
  for (const term of word.typoTerms) {
    // A stem shorter than the word has the budget of its own length ("haus" of "Häuser": none).
    const edits = Math.min(word.fuzzy, typoBudget(term));
    if (edits > 0) typoTerms.push({ term, edits });
  }
  return { terms: word.terms, typoTerms, spelling: word.terms[0] ?? '', spellingEdits: word.fuzzy, prefixes: word.prefixes, reading };
}

/** A text split into words and the text between them; joined, the pieces are the text. */
function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  let at = 0;
  for (const m of text.matchAll(WORD)) {
    if (m.index > at) out.push({ text: text.slice(at, m.index), word: null });
    out.push({ text: m[0], word: m[0].toLowerCase() });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ text: text.slice(at), word: null });
  return out;
}

/** Whether two terms are at most `max` edits apart (Levenshtein, as the engines' typo lookups count). */
function withinEdits(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  if (a === b) return true;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const d = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
      row.push(d);
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return false;
    previous = row;
  }
  return previous[b.length] <= max;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text as HTML: & < > " ' escaped. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * A value with a typed prefix marked (facet value search): prefix matched case/accent-insensitively
 * at the start of the value or of any word in it; null when it does not match. Every such
 * occurrence is marked; an empty prefix matches the value unmarked.
 */
export function markPrefix(value: string, prefix: string, tags: { preTag: string; postTag: string }): string | null {
  const wanted = fold(prefix);
  if (wanted === '') return escapeHtml(value);
  const chars = [...value];
  const folded = chars.map((c) => fold(c));
  // Marks count as word characters: a letter's combining accent ("U\u0308ber") starts no word.
  const isWordChar = chars.map((c) => /[\p{L}\p{N}\p{M}]/u.test(c));
  let out = '';
  let plain = 0;
  let found = false;
  for (let i = 0; i < chars.length; i++) {
    if (i > 0 && !(isWordChar[i] && !isWordChar[i - 1])) continue;
    const end = prefixEnd(folded, i, wanted);
    if (end === null) continue;
    out += escapeHtml(chars.slice(plain, i).join('')) + tags.preTag + escapeHtml(chars.slice(i, end).join('')) + tags.postTag;
    plain = end;
    i = end - 1;
    found = true;
  }
  return found ? out + escapeHtml(chars.slice(plain).join('')) : null;
}

/** Where the characters from `start` on, folded one by one, have spelled `wanted` (past any marks it leaves), or null. */
function prefixEnd(folded: readonly string[], start: number, wanted: string): number | null {
  let spelled = '';
  let i = start;
  while (spelled.length < wanted.length && i < folded.length) spelled += folded[i++];
  if (!spelled.startsWith(wanted)) return null;
  // Combining marks fold to nothing: keep them with the letter they belong to.
  while (i < folded.length && folded[i] === '') i++;
  return i;
}
