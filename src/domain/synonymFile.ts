// Synonym sets as a Solr synonyms file (SynonymGraphFilter's format), for import and export: a line
// `a, b, c` is a multi-way set, `a => b, c` a one-way set; `#` starts a comment line, blank lines
// are skipped, and a backslash escapes the next character (`\,` a comma inside an entry).
import type { ErrorItem } from '../schemas/errorItem.js';

/** One line's set, before it is checked as a set (domain/synonyms.ts). */
export interface ParsedSynonymLine {
  line: number;
  root: string | null;
  synonyms: string[];
}

/**
 * The sets of some of a file's lines (the first at index `first`, 0-based, of the file; an import
 * reads a file a slice of lines at a time), or the errors of its bad lines (loc: the 1-based line
 * number). A line with several entries left of `=>` (`a, b => c`) makes one one-way set per entry,
 * as Solr maps each.
 */
export function parseSynonymLines(lines: readonly string[], first: number): { sets: ParsedSynonymLine[]; errors: ErrorItem[] } {
  const sets: ParsedSynonymLine[] = [];
  const errors: ErrorItem[] = [];
  lines.forEach((raw, i) => {
    const line = first + i + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const sides = splitLine(trimmed);
    if (sides.length > 2) return void errors.push(lineError(line, 'holds "=>" more than once'));
    const [left, right] = sides;
    if ([left, right ?? []].some((side) => side.some((e) => e === ''))) return void errors.push(lineError(line, 'has an empty entry (two commas in a row, or one at an end)'));
    if (right === undefined) return void sets.push({ line, root: null, synonyms: left });
    for (const root of left) sets.push({ line, root, synonyms: right });
  });
  return { sets, errors };
}

/** A line's sides (split at an unescaped `=>`), each its entries (split at unescaped commas), trimmed and unescaped. */
function splitLine(line: string): string[][] {
  const sides: string[][] = [[]];
  let entry = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\' && i + 1 < line.length) entry += line[++i];
    else if (c === ',') {
      sides[sides.length - 1].push(entry.trim());
      entry = '';
    } else if (c === '=' && line[i + 1] === '>') {
      sides[sides.length - 1].push(entry.trim());
      entry = '';
      sides.push([]);
      i++;
    } else entry += c;
  }
  sides[sides.length - 1].push(entry.trim());
  return sides;
}

export const lineError = (line: number, msg: string, type = 'value_error'): ErrorItem => ({ loc: [line], msg: `Line ${line}: ${msg}`, type });

/** An entry as a file holds it: backslash, comma and `=>` escaped. */
const escapeEntry = (entry: string): string => entry.replace(/[\\,]/g, (c) => `\\${c}`).replace(/=>/g, '\\=>');

/** One set as a line of the file; a leading `#` escaped (`\#`), or the line would read back as a comment. */
export function synonymLine(set: { root: string | null; synonyms: readonly string[] }): string {
  const list = set.synonyms.map(escapeEntry).join(', ');
  const line = set.root === null ? list : `${escapeEntry(set.root)} => ${list}`;
  return line.startsWith('#') ? `\\${line}` : line;
}
