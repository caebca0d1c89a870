// Text analysis for keyword search: tokens, case and diacritic folding, German and English
// Snowball stemming (@orama/stemmers), and German compounds split into their parts (compounds.ts).
// Documents are analysed in their own language; a query in the language it is asked in, or in
// every stemmed language when it names none, and matches either stem.
import { stemmer as germanStem } from '@orama/stemmers/german';
import { stemmer as englishStem } from '@orama/stemmers/english';
import { fold, GermanDecompounder } from './compounds.js';

export { fold } from './compounds.js';

const STEMMERS: Record<string, (word: string) => string> = { de: germanStem, en: englishStem };
/** Languages with a stemmer; other languages are folded but not stemmed. */
export const STEMMED_LANGUAGES = Object.keys(STEMMERS);

const WORD = /[\p{L}\p{N}]+/gu;

/** The base language of a tag such as de-AT or en_GB. */
export const baseLanguage = (language: string): string => language.slice(0, 2).toLowerCase();

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

let german: GermanDecompounder | null = null;
const tailCache = new Map<string, string[]>();
const COMPOUND_CACHE_LIMIT = 200_000;

/** Whether a language splits compounds (German). */
export const splitsCompounds = (language: string | null): boolean => language !== null && baseLanguage(language) === 'de';

const decompounder = () => (german ??= new GermanDecompounder());

/** A folded word's compound parts as they stand in it (null: no German compound). */
export const compoundParts = (word: string): readonly string[] | null => decompounder().split(fold(word));

/**
 * The index terms a German compound adds to its own: its tails, each a word of its own that the
 * compound is a kind of (German compounds are right-headed: a Mumienschlafsack is a Schlafsack
 * and a Sack). Its modifiers are not indexed: a Kopfhörerverstärker is no Kopfhörer.
 */
export function compoundTails(word: string, language: string): string[] {
  if (!splitsCompounds(language)) return NONE;
  let tails = tailCache.get(word);
  if (tails === undefined) {
    const parts = compoundParts(word);
    tails = parts ? parts.slice(1).map((_, i) => termOf(parts.slice(i + 1).join(''), 'de')) : NONE;
    if (tailCache.size >= COMPOUND_CACHE_LIMIT) tailCache.clear();
    tailCache.set(word, tails);
  }
  return tails;
}
const NONE: string[] = [];

/** Index terms of a text with its compounds' tails among them (a document's field as an index keeps it). */
export function analyzeWithCompounds(text: string | null | undefined, language: string): string[] {
  const terms = analyze(text, language);
  if (!text || !splitsCompounds(language)) return terms;
  for (const word of words(text)) terms.push(...compoundTails(word, language));
  return terms;
}

/**
 * A product title's focus: the thing it names, apart from what it is for or comes with. Words
 * after "für", "for", "mit", "with" (accessories: "Entkalker für Kaffeemaschinen") and the leading
 * elements of a hyphenated compound ("Kopfhörer-Ersatzpolster") are minor: a query for
 * Kaffeemaschine or Kopfhörer should find the product before its accessories.
 */
export function titleFocus(title: string): { subject: string; minor: string } {
  const subject: string[] = [];
  const minor: string[] = [];
  let tail = false;
  for (const token of title.split(/\s+/)) {
    if (!tail && CONNECTORS.has(token.toLowerCase().replace(/[^\p{L}]/gu, ''))) tail = true;
    if (tail) {
      minor.push(token);
      continue;
    }
    const elements = token.split('-');
    const hyphenated = elements.length > 1 && elements.every((e) => /^\p{L}{2,}/u.test(e));
    if (hyphenated) {
      minor.push(elements.slice(0, -1).join(' '));
      subject.push(elements[elements.length - 1]);
    } else subject.push(token);
  }
  return { subject: subject.join(' '), minor: minor.join(' ') };
}
const CONNECTORS = new Set(['für', 'fur', 'fuer', 'for', 'mit', 'with', 'passend', 'kompatibel', 'compatible', 'inkl', 'incl', 'inklusive', 'including']);

/** One word of a query: the terms it may match, and how loosely. */
export interface QueryWord {
  /** The word as typed (two words joined, when it reads two typed words as one compound). */
  word: string;
  /** Alternative index terms (stems in the candidate languages, and the plain folded word). */
  terms: string[];
  /**
   * The terms typo variants are sought for: the word as the index holds it in each candidate
   * language (its stems). Not the plain folded word: its variants reach longer words' stems
   * ("waschmaschine" is two letters from "waschmaschinenf", the stem of "waschmaschinenfest").
   */
  typoTerms: string[];
  /** Edits allowed: one for words of 5+ letters, two for 9+. */
  fuzzy: number;
  /** Search-as-you-type: for the last word, the folded word as typed also matches as a term prefix. */
  prefixes: string[];
  /**
   * Other readings of the word, each a list of words a document must hold all of: a German
   * compound's parts ("akkubohrschrauber": akku + bohrschrauber), or the two typed words that a
   * compound joins ("regen jacke": regen + jacke).
   */
  readings: QueryWord[][];
  /** The typed words it stands for (2 for two words read as one compound). */
  span: number;
  /**
   * A German adjective, or a word after "für", "mit", "for", "with": it refines what the query
   * names, and weighs less in its coverage ("günstige kaffeemaschine mit timer").
   */
  minor?: boolean;
  /** The synonym sets the word (or the run of typed words it stands for) matched: their alternatives are among its readings. */
  synonyms?: AppliedSynonym[];
}

/** A synonym set a query used: the query's words that equal one of its entries, and the entries they also stand for. */
export interface AppliedSynonym {
  id: string;
  matched: string;
  alternatives: string[];
}

/**
 * Synonyms as query analysis asks for them (search/synonyms.ts SynonymTable): for one word, or a
 * run of adjacent words, the sets whose entry they equal as analysed, and the readings (each a list
 * of words a document must hold all of) their alternatives add.
 */
export interface QuerySynonyms {
  /** The most words an entry has: longer runs are not looked up. */
  readonly maxWords: number;
  match(words: readonly QueryWord[], analysis: QueryAnalysis): { applied: AppliedSynonym[]; readings: QueryWord[][] } | null;
}

/** Shorter words are not completed: two letters stand for too much of a catalogue. */
const MIN_PREFIX = 3;
/** Compounds of more parts are read whole only (their readings would multiply). */
const MAX_READ_PARTS = 4;

export function typoBudget(word: string): number {
  const letters = [...word].length;
  return letters >= 9 ? 2 : letters >= 5 ? 1 : 0;
}

/** How a query is analysed. */
export interface QueryAnalysis {
  /** Stem in this language only; null: in every stemmed language (the query's language is a guess). */
  stemming: string | null;
  /** The query's language: German queries have their compounds split and ae/oe/ue read as umlauts. */
  language: string | null;
  /** False when the query ends with a space (the user finished the last word). */
  prefixLast?: boolean;
  /** The synonym sets that apply to the search (none: no synonyms). */
  synonyms?: QuerySynonyms | null;
}

/** ae, oe, ue written for ä, ö, ü ("kopfhoerer"); "que" and "eue" ("Quelle", "neue") are left alone. */
const SPELLED_UMLAUT = /ae|oe|(?<![qe])ue/g;
const UMLAUTS: Record<string, string> = { ae: 'ä', oe: 'ö', ue: 'ü' };

/** German and English words that only join others (a last word may be the start of another as typed: kept). */
export const STOPWORDS: ReadonlySet<string> = new Set([
  'für', 'fur', 'fuer', 'mit', 'und', 'oder', 'der', 'die', 'das', 'den', 'dem', 'des', 'ein', 'eine', 'einen', 'einem', 'einer',
  'im', 'in', 'am', 'an', 'auf', 'zu', 'zum', 'zur', 'von', 'vom', 'bei', 'aus',
  'for', 'with', 'and', 'or', 'the', 'a', 'an', 'of', 'on', 'to', 'by', 'in', 'at',
]);

/** An exact term as a query word (a compound's part). */
const exactWord = (word: string, term: string): QueryWord => ({ word, terms: [term], typoTerms: [], fuzzy: 0, prefixes: [], readings: [], span: 1 });

/** Query words with their alternative terms, typo budget, prefixes and compound readings. */
export function analyzeQuery(query: string, analysis: QueryAnalysis): QueryWord[] {
  const typed = words(query);
  // Words like "für" and "the" mean nothing to a match, unless they are all there is.
  const meaningful = typed.some((w) => !STOPWORDS.has(w));
  const prefixLast = analysis.prefixLast ?? !/\s$/.test(query);
  const out: QueryWord[] = [];
  let minor = false;
  typed.forEach((word, i) => {
    const last = i === typed.length - 1;
    // The first letters of a word being typed ("sleeping b") are too few to narrow anything yet.
    if (last && prefixLast && out.length > 0 && word.length < MIN_PREFIX && !endsSynonymRun(out, word, analysis)) return;
    if (meaningful && STOPWORDS.has(word) && !last) {
      minor ||= CONNECTORS.has(word);
      return;
    }
    const refines = minor || (splitsCompounds(analysis.language ?? analysis.stemming) && decompounder().isAdjective(fold(word)));
    out.push({ ...analyzeWord(word, analysis, prefixLast && last), ...(refines ? { minor: true } : {}) });
  });
  return analysis.synonyms ? withSynonymRuns(out, analysis.synonyms, analysis) : out;
}

/**
 * Runs of adjacent words equal to a multi-word synonym entry ("smart tv") read as one word: the
 * run itself apart, or any of its alternatives. The longest run wins.
 */
function withSynonymRuns(words: QueryWord[], synonyms: QuerySynonyms, analysis: QueryAnalysis): QueryWord[] {
  if (synonyms.maxWords < 2 || words.length < 2) return words;
  const out: QueryWord[] = [];
  for (let i = 0; i < words.length; ) {
    let run: QueryWord[] = [];
    let found: ReturnType<QuerySynonyms['match']> = null;
    for (let n = Math.min(synonyms.maxWords, words.length - i); n >= 2 && !found; n--) {
      run = words.slice(i, i + n);
      found = synonyms.match(run, analysis);
    }
    if (!found) {
      out.push(words[i++]);
      continue;
    }
    i += run.length;
    out.push({
      word: run.map((w) => w.word).join(' '), terms: [], typoTerms: [], fuzzy: 0, prefixes: [], readings: [run, ...found.readings],
      span: run.reduce((sum, w) => sum + w.span, 0), synonyms: found.applied, ...(run.every((w) => w.minor) ? { minor: true } : {}),
    });
  }
  return out;
}

/** Whether a short last word completes a multi-word synonym entry with the words before it ("smart tv"): then it is kept. */
function endsSynonymRun(before: QueryWord[], word: string, analysis: QueryAnalysis): boolean {
  const { synonyms } = analysis;
  if (!synonyms || synonyms.maxWords < 2) return false;
  const last = analyzeWord(word, analysis, false);
  for (let n = 1; n < synonyms.maxWords && n <= before.length; n++) if (synonyms.match([...before.slice(-n), last], analysis)) return true;
  return false;
}

/** A word's synonym alternatives added to its readings. */
function withSynonyms(word: QueryWord, analysis: QueryAnalysis): QueryWord {
  const found = analysis.synonyms?.match([word], analysis);
  return found ? { ...word, readings: [...word.readings, ...found.readings], synonyms: found.applied } : word;
}

/**
 * The words of a synonym entry as a query reads them when they stand in for another: each as an
 * exact word (its stems and compound parts; no typo variants, no prefix, no synonyms of its own).
 */
export function alternativeWords(entry: string, analysis: QueryAnalysis): QueryWord[] {
  const exact = { ...analysis, synonyms: null };
  return meaningfulWords(entry).map((w) => ({ ...analyzeWord(w, exact, false), typoTerms: [], fuzzy: 0 }));
}

/** The words of a text a query matches on: its stopwords left out, unless it has only those. */
export function meaningfulWords(text: string): string[] {
  const typed = words(text);
  const kept = typed.filter((w) => !STOPWORDS.has(w));
  return kept.length > 0 ? kept : typed;
}

/** Every term a word may be read as in a query: its spellings (umlauts spelled out read as umlauts), folded and stemmed in each stemmed language. */
export function readingsOfWord(word: string): string[] {
  const out = new Set<string>();
  const umlauts = word.replace(SPELLED_UMLAUT, (m) => UMLAUTS[m]);
  for (const spelling of umlauts === word ? [word] : [word, umlauts]) {
    out.add(fold(spelling));
    for (const lang of STEMMED_LANGUAGES) out.add(termOf(spelling, lang));
  }
  return [...out];
}

function analyzeWord(word: string, analysis: QueryAnalysis, last: boolean): QueryWord {
  const { stemming, language } = analysis;
  const german = splitsCompounds(language ?? stemming);
  const spellings = [word];
  if (german) {
    const umlauts = word.replace(SPELLED_UMLAUT, (m) => UMLAUTS[m]);
    if (umlauts !== word) spellings.push(umlauts);
  }
  const terms = new Set<string>();
  const typoTerms = new Set<string>();
  for (const spelling of spellings) {
    terms.add(fold(spelling));
    for (const lang of stemming ? [stemming] : STEMMED_LANGUAGES) {
      const term = termOf(spelling, lang);
      terms.add(term);
      typoTerms.add(term);
    }
  }
  const prefixes = last && word.length >= MIN_PREFIX ? [...new Set(spellings.map(fold))] : [];
  const readings: QueryWord[][] = [];
  for (const spelling of german ? spellings : []) {
    const parts = compoundParts(spelling);
    if (!parts || parts.length > MAX_READ_PARTS) continue;
    // Each part with its synonyms ("handyhülle": handy or smartphone, and hülle).
    for (const groups of segmentations(parts)) readings.push(groups.map((g) => withSynonyms(exactWord(g, termOf(g, 'de')), analysis)));
    break;
  }
  return withSynonyms({ word, terms: [...terms], typoTerms: [...typoTerms], fuzzy: typoBudget(word), prefixes, readings, span: 1 }, analysis);
}

/** Every way to read parts as two or more consecutive groups, each joined ("akku|bohr|schrauber" → akku + bohrschrauber, …). */
function segmentations(parts: readonly string[]): string[][] {
  const out: string[][] = [];
  // Bit i of a mask set: a cut after part i.
  for (let mask = 1; mask < 1 << (parts.length - 1); mask++) {
    const groups: string[] = [];
    let group = parts[0];
    for (let i = 1; i < parts.length; i++) {
      if (mask & (1 << (i - 1))) {
        groups.push(group);
        group = parts[i];
      } else group += parts[i];
    }
    groups.push(group);
    out.push(groups);
  }
  return out;
}

/**
 * Two adjacent query words read as one compound ("regen jacke" → regenjacke), or apart: the
 * engine joins them where its index knows the joined word.
 */
export function joinedWords(first: QueryWord, second: QueryWord, analysis: QueryAnalysis): QueryWord | null {
  // A run read as a synonym entry is no typed word to join.
  if (first.span > 1 || second.span > 1) return null;
  const joined = analyzeWord(first.word + second.word, analysis, second.prefixes.length > 0);
  return { ...joined, fuzzy: 0, readings: [[first, second]], span: first.span + second.span };
}
