// German compound splitting. German names products by joining words ("Regenjacke", "Akku-
// Bohrschrauber", "Kopfhörerverstärker"), and shoppers type them joined, split or in part
// ("regen jacke", "akkubohrschrauber", "jacke"). A word is split into parts that are words of the
// igerman98 Hunspell dictionary (npm `dictionary-de`, the dictionary LibreOffice and Firefox use):
// its stems, verb stems and the compound-only forms it lists. Between parts a linking element
// (Fugen-s, -n, -en, -e, -er, -es, -ens) may stand; the last part, the head, may be inflected.
// The head names what the thing is (a Regenjacke is a Jacke); the parts before it modify it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * A compound's parts in order, folded as index terms are (lower case, ä → a, ß → ss), each as it
 * stands in the word (linking elements included): joined, they are the word.
 */
export type CompoundParts = readonly string[];

/** Parts shorter than this are not split off ("ei", "öl" would split too much). */
const MIN_PART = 3;
/** A word this short is not a compound of two parts. */
const MIN_WORD = MIN_PART * 2;
/** With a modifier the dictionary does not know ("Softshelljacke"), both sides must be this long. */
const MIN_UNKNOWN_SIDE = 4;
/** Linking elements between two parts, longest first. */
const LINKS = ['ens', 'es', 'en', 'er', 's', 'n', 'e'];
/** Endings an inflected head may carry ("Jacken", "Schuhe", "Säcke"). */
const ENDINGS = ['ern', 'en', 'er', 'es', 'e', 'n', 's'];
const ADJECTIVE_ENDINGS = ['e', 'en', 'er', 'es', 'em'];
const CACHE_LIMIT = 100_000;

const MARKS = /\p{M}+/gu;
/** Lower case without diacritics; ß → ss (the folding of analysis.ts). */
export const fold = (word: string): string => word.toLowerCase().replace(/ß/g, 'ss').normalize('NFD').replace(MARKS, '');

interface Lexicon {
  /** Every stem and compound form the dictionary lists, folded. */
  words: Set<string>;
  /** The nouns among them (listed capitalised): heads of a compound whose modifier is unknown. */
  nouns: Set<string>;
  /** The adjectives (flag A: the adjective endings). */
  adjectives: Set<string>;
}

let lexicon: Lexicon | null = null;

/** The dictionary's words, read once per process (~75,000 lines, ~30 ms). */
function loadLexicon(): Lexicon {
  if (lexicon) return lexicon;
  const file = join(dirname(createRequire(import.meta.url).resolve('dictionary-de')), 'index.dic');
  const words = new Set<string>();
  const nouns = new Set<string>();
  const adjectives = new Set<string>();
  const lines = readFileSync(file, 'utf8').split('\n');
  // Line 1 is the count; comment lines start with a tab.
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line === '' || line.startsWith('\t')) continue;
    const slash = line.indexOf('/');
    const word = slash < 0 ? line.trim() : line.slice(0, slash);
    const flags = slash < 0 ? '' : line.slice(slash + 1);
    // 'd' marks forbidden words; dotted and hyphenated entries are abbreviations and affixes.
    if (word.length < MIN_PART || flags.includes('d') || /[^\p{L}]/u.test(word)) continue;
    const folded = /^[a-z]+$/.test(word) ? word : fold(word);
    if (folded.length < MIN_PART) continue;
    words.add(folded);
    if (word[0] !== word[0].toLowerCase()) nouns.add(folded);
    else if (flags.includes('A')) adjectives.add(folded);
  }
  return (lexicon = { words, nouns, adjectives });
}

export class GermanDecompounder {
  private readonly cache = new Map<string, CompoundParts | null>();
  private readonly lexicon = loadLexicon();

  /** The parts of a folded lower-case word, or null when it is not a compound the dictionary explains. */
  split(word: string): CompoundParts | null {
    let parts = this.cache.get(word);
    if (parts === undefined) {
      parts = this.compute(word);
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(word, parts);
    }
    return parts;
  }

  private compute(word: string): CompoundParts | null {
    if (word.length < MIN_WORD || !/^[a-z]+$/.test(word) || this.isWord(word)) return null;
    return this.bestSplit(word) ?? this.unknownModifier(word);
  }

  /** Whether a folded lower-case word is a German adjective, inflected or not ("günstige", "blau"). */
  isAdjective(word: string): boolean {
    const { adjectives } = this.lexicon;
    return adjectives.has(word) || ADJECTIVE_ENDINGS.some((e) => word.endsWith(e) && adjectives.has(word.slice(0, -e.length)));
  }

  /** A listed word, or one with an inflection ending on a listed word. */
  private isWord(part: string): boolean {
    if (this.lexicon.words.has(part)) return true;
    return ENDINGS.some((e) => part.length - e.length >= MIN_PART && part.endsWith(e) && this.lexicon.words.has(part.slice(0, -e.length)));
  }

  /** A listed word, or one followed by a linking element: the modifier as it stands in the compound. */
  private isModifier(part: string): boolean {
    if (this.lexicon.words.has(part)) return true;
    return LINKS.some((l) => part.length - l.length >= MIN_PART && part.endsWith(l) && this.lexicon.words.has(part.slice(0, -l.length)));
  }

  /**
   * The split into the fewest known parts, then the longest head, then the longest shortest part
   * ("bohr|schrauber", not "bohrsch|rauber"): a dynamic programme over the word's suffixes.
   */
  private bestSplit(word: string): string[] | null {
    const n = word.length;
    // best[i]: the best parts of word[i..], or null when it splits into none.
    const best: (string[] | null)[] = new Array(n + 1).fill(null);
    for (let i = n - MIN_PART; i >= 0; i--) {
      let chosen: string[] | null = null;
      const consider = (parts: string[]) => {
        if (!chosen || better(parts, chosen)) chosen = parts;
      };
      // The head: the rest of the word as one part (never the whole word: that is no compound).
      if (i > 0 && this.isWord(word.slice(i))) consider([word.slice(i)]);
      for (let j = i + MIN_PART; j <= n - MIN_PART; j++) {
        const rest = best[j];
        if (rest && this.isModifier(word.slice(i, j))) consider([word.slice(i, j), ...rest]);
      }
      best[i] = chosen;
    }
    const parts = best[0];
    return parts && parts.length >= 2 ? parts : null;
  }

  /**
   * A loan or brand word before a known noun ("Softshelljacke", "Trailrunningschuhe"): the longest
   * noun ending the word is its head.
   */
  private unknownModifier(word: string): string[] | null {
    for (let i = MIN_UNKNOWN_SIDE; i <= word.length - MIN_UNKNOWN_SIDE; i++) {
      const head = word.slice(i);
      const noun = this.lexicon.nouns.has(head) || ENDINGS.some((e) => head.endsWith(e) && this.lexicon.nouns.has(head.slice(0, -e.length)));
      if (noun) return [word.slice(0, i), head];
    }
    return null;
  }
}

const shortest = (parts: string[]): number => Math.min(...parts.map((p) => p.length));

/** Whether split `a` explains a word better than `b` (fewer parts, longer head, longer shortest part). */
function better(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return a.length < b.length;
  const headA = a[a.length - 1].length;
  const headB = b[b.length - 1].length;
  if (headA !== headB) return headA > headB;
  return shortest(a) > shortest(b);
}
