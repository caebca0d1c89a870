// Text analysis for keyword search: tokens, case and diacritic folding, German and English
// Snowball stemming (@orama/stemmers). Documents are analysed in their own language; a query
// without a language is analysed in both and matches either stem.
import { stemmer as germanStem } from '@orama/stemmers/german';
import { stemmer as englishStem } from '@orama/stemmers/english';

const STEMMERS: Record<string, (word: string) => string> = { de: germanStem, en: englishStem };
/** Languages with a stemmer; other languages are folded but not stemmed. */
export const STEMMED_LANGUAGES = Object.keys(STEMMERS);

const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;

/** The base language of a tag such as de-AT or en_GB. */
export const baseLanguage = (language: string): string => language.slice(0, 2).toLowerCase();

/** Lower case without diacritics; ß → ss (ä → a: the German stemmer folds umlauts the same way). */
export function fold(word: string): string {
  return word.toLowerCase().replace(/ß/g, 'ss').normalize('NFD').replace(MARKS, '');
}

/** The words of a text, lower-cased, in order. */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** Terms already computed, per language: a catalogue repeats a small vocabulary very often. */
const termCache = new Map<string, Map<string, string>>();
const TERM_CACHE_LIMIT = 200_000;

/** The index term of one lower-case word in a language: stemmed (when the language has a stemmer), then folded. */
export function termOf(word: string, language: string | null): string {
  return termIn(termsOf(language ? baseLanguage(language) : ''), word);
}

/** The term cache of a base language ('' none). */
function termsOf(base: string): { cache: Map<string, string>; stem: ((word: string) => string) | undefined } {
  let cache = termCache.get(base);
  if (!cache) termCache.set(base, (cache = new Map()));
  return { cache, stem: STEMMERS[base] as ((word: string) => string) | undefined };
}

function termIn({ cache, stem }: ReturnType<typeof termsOf>, word: string): string {
  let term = cache.get(word);
  if (term === undefined) {
    term = fold(stem && word.length > 2 ? stem(word) : word);
    // A bounded cache: start over rather than grow without end on an open vocabulary.
    if (cache.size >= TERM_CACHE_LIMIT) cache.clear();
    cache.set(word, term);
  }
  return term;
}

/** Index terms of a text in a document's language. */
export function analyze(text: string | null | undefined, language: string): string[] {
  if (!text) return [];
  const terms = termsOf(baseLanguage(language));
  const list = words(text);
  for (let i = 0; i < list.length; i++) list[i] = termIn(terms, list[i]);
  return list;
}

/** One word of a query: the terms it may match, and how loosely. */
export interface QueryWord {
  word: string;
  /** Alternative index terms (stems in the candidate languages, and the plain folded word). */
  terms: string[];
  /** Edits allowed: one for words of 5+ letters, two for 9+. */
  fuzzy: number;
  /** Search-as-you-type: for the last word, the folded word as typed also matches as a term prefix. */
  prefix: string | null;
}

/** Shorter words are not completed: two letters stand for too much of a catalogue. */
const MIN_PREFIX = 3;

export function typoBudget(word: string): number {
  const letters = [...word].length;
  return letters >= 9 ? 2 : letters >= 5 ? 1 : 0;
}

/**
 * Query words analysed for the given language, or for every stemmed language when none is given.
 * `prefixLast` is false when the query ends with a space (the user finished the word).
 */
export function analyzeQuery(query: string, language: string | null, prefixLast = !/\s$/.test(query)): QueryWord[] {
  const list = words(query);
  const languages = language ? [language] : STEMMED_LANGUAGES;
  return list.map((word, i) => {
    const terms = new Set<string>([fold(word)]);
    for (const lang of languages) terms.add(termOf(word, lang));
    const prefix = prefixLast && i === list.length - 1 && word.length >= MIN_PREFIX ? fold(word) : null;
    return { word, terms: [...terms], fuzzy: typoBudget(word), prefix };
  });
}
