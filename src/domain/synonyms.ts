// Synonym sets without HTTP (DESIGN §6 merchandising): their rules (2–50 entries, a root apart from
// its synonyms, a site named by UUID or slug), import and export as a Solr file, and the table of
// the sets that apply to one search (kept per process by domain/tenantDocs.ts).
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Static } from '@sinclair/typebox';
import { SYNONYM_ENTRIES, type SynonymSetWrite } from '../schemas/synonyms.js';
import type { ErrorItem } from '../schemas/errorItem.js';
import { baseLanguage } from '../search/analysis.js';
import { SynonymTable } from '../search/synonyms.js';
import { SYSTEM_ACTOR, type AuditActor } from '../store/audit.js';
import type { Page } from '../store/docs.js';
import { entriesOf, SYNONYM_CAPS, type StoredSynonymSet, type SynonymRepository } from '../store/synonyms.js';
import { VersionedChangedError } from '../store/versionedDocs.js';
import { ConflictError, InvalidError, NotFoundError } from './errors.js';
import type { SiteService } from './sites.js';
import { sortInTurns } from './sortInTurns.js';
import { lineError, parseSynonymLines, synonymLine } from './synonymFile.js';
import { TenantDocs } from './tenantDocs.js';

export type SynonymSetView = StoredSynonymSet;
type SynonymInput = Static<typeof SynonymSetWrite>;

/** Which sets a list or an export holds: those of a site, of a language (none given: all). */
export interface SynonymFilter {
  siteId?: string;
  language?: string;
}

/** The sets a search applies: the tenant's, its site's and its language's. */
export interface SynonymScope {
  siteId?: string;
  language: string;
}

/** Lines of a file read (or written) between two turns of the event loop: a few milliseconds' work. */
const LINES_PER_TURN = 250;
/** The bad lines an import's 422 names at most. */
const MAX_LINE_ERRORS = 1000;

/** An entry's characters that a query could match: a letter or a digit. */
const HAS_WORD = /[\p{L}\p{N}]/u;
/** A control character (NUL, tab, a line break, …): no entry holds one. */
const CONTROL = /\p{Cc}/u;

export class SynonymService {
  /** Per tenant, the table of each site and language searched (null: no set applies), and the sets sorted for lists. */
  private readonly tables: TenantDocs<StoredSynonymSet, SynonymTable | null | StoredSynonymSet[]>;
  /**
   * Per list of a tenant's sets as read, its tables by the sets they hold: sites and languages
   * that no set names apart share one (a catalogue of 100 sites with tenant-wide sets builds one table, not 100).
   */
  private readonly shared = new WeakMap<readonly StoredSynonymSet[], Map<string, Promise<SynonymTable>>>();

  constructor(
    private readonly repo: SynonymRepository,
    private readonly sites: SiteService,
  ) {
    this.tables = new TenantDocs(repo);
  }

  /** Creates or replaces the set `id`; `created` says which. Past the tenant's caps: an InvalidError. */
  async put(tenantId: string, id: string, input: SynonymInput, actor: AuditActor = SYSTEM_ACTOR): Promise<{ set: SynonymSetView; created: boolean }> {
    const checked = checkSet(input.root ?? null, input.synonyms);
    if ('errors' in checked) throw new InvalidError(checked.errors);
    const siteId = await this.sites.referencedId(tenantId, input.site_id ?? null, ['site_id']);
    const now = new Date().toISOString();
    const previous = await this.repo.get(tenantId, id);
    const set: StoredSynonymSet = {
      id, type: checked.root === null ? 'multi-way' : 'one-way', root: checked.root, synonyms: checked.synonyms,
      site_id: siteId, language: input.language?.toLowerCase() ?? null, created_at: previous?.created_at ?? now, updated_at: now,
    };
    // The caps are checked by the write itself: concurrent writes cannot pass them together.
    const result = await this.repo.put(tenantId, set, actor);
    if ('over' in result) throw capError(['id'], result.over, await this.repo.usage(tenantId), { sets: previous ? 0 : 1, entries: entriesOf(set) });
    this.tables.changed(tenantId);
    return { set, created: result.ok === 'created' };
  }

  async get(tenantId: string, id: string): Promise<SynonymSetView> {
    const set = await this.repo.get(tenantId, id);
    if (!set) throw new NotFoundError('Synonym set not found');
    return set;
  }

  /** Oldest first (created_at, id). An unknown site is a NotFoundError. */
  async list(tenantId: string, filter: SynonymFilter, { offset, limit }: Page): Promise<{ items: SynonymSetView[]; total: number }> {
    const all = await this.matching(tenantId, filter);
    return { items: limit < 0 ? all.slice(offset) : all.slice(offset, offset + limit), total: all.length };
  }

  async delete(tenantId: string, id: string, actor: AuditActor = SYSTEM_ACTOR): Promise<void> {
    const deleted = await this.repo.delete(tenantId, id, actor);
    this.tables.changed(tenantId);
    if (!deleted) throw new NotFoundError('Synonym set not found');
  }

  /** The sets as a Solr synonyms file, each line after a comment naming its id and scope. */
  async exportFile(tenantId: string, filter: SynonymFilter): Promise<string> {
    const sets = await this.matching(tenantId, filter);
    const parts: string[] = [];
    for (let from = 0; from < sets.length; from += LINES_PER_TURN) {
      if (from > 0) await nextTurn();
      const lines: string[] = [];
      for (const set of sets.slice(from, from + LINES_PER_TURN)) {
        const scope = [set.site_id ? ` site_id=${set.site_id}` : '', set.language ? ` language=${set.language}` : ''].join('');
        lines.push(`# id=${set.id}${scope}`, synonymLine(set));
      }
      parts.push(`${lines.join('\n')}\n`);
    }
    return parts.join('');
  }

  /**
   * Imports a Solr synonyms file: each line a new set with a generated id, for the site and
   * language given (none: the tenant's). All or nothing: a bad line, or a file that would take
   * the tenant past its caps, is an InvalidError and nothing is stored; the errors name the bad
   * lines (the first MAX_LINE_ERRORS). The lines are read in slices between turns of the event
   * loop, and the sets written in slices (store/versionedDocs.ts), so that other requests are
   * served meanwhile. One audit event tells of the import. The number of sets made.
   */
  async importFile(tenantId: string, text: string, scope: { siteId?: string; language?: string }, actor: AuditActor = SYSTEM_ACTOR): Promise<number> {
    const siteId = await this.sites.referencedId(tenantId, scope.siteId ?? null, ['site_id']);
    const usage = await this.repo.usage(tenantId);
    const lines = text.split(/\r?\n/);
    const now = new Date().toISOString();
    const language = scope.language?.toLowerCase() ?? null;
    const errors: ErrorItem[] = [];
    const made: StoredSynonymSet[] = [];
    let entries = 0;
    for (let from = 0; from < lines.length; from += LINES_PER_TURN) {
      if (from > 0) await nextTurn();
      const parsed = parseSynonymLines(lines.slice(from, from + LINES_PER_TURN), from);
      errors.push(...parsed.errors);
      for (const line of parsed.sets) {
        const checked = checkSet(line.root, line.synonyms);
        if ('errors' in checked) {
          errors.push(...checked.errors.map((e) => lineError(line.line, `${e.msg} (${e.loc.join('.')})`, e.type)));
          continue;
        }
        const set: StoredSynonymSet = {
          id: randomUUID(), type: checked.root === null ? 'multi-way' : 'one-way', root: checked.root, synonyms: checked.synonyms,
          site_id: siteId, language, created_at: now, updated_at: now,
        };
        made.push(set);
        entries += entriesOf(set);
        // Past a cap the rest is not read: a file's sets are held in memory until written.
        const over = usage.docs + made.length > SYNONYM_CAPS.sets ? 'docs' : usage.weight + entries > SYNONYM_CAPS.entries ? 'weight' : null;
        if (over) throw capError([], over, usage, { sets: made.length, entries }, line.line);
      }
      if (errors.length >= MAX_LINE_ERRORS) break;
    }
    if (errors.length > 0) throw new InvalidError(errors.sort((a, b) => Number(a.loc[0]) - Number(b.loc[0])).slice(0, MAX_LINE_ERRORS));
    const event = {
      action: 'create' as const, entityType: 'synonym_set' as const, entityId: randomUUID(),
      details: { import: true, sets: made.length, entries, site_id: siteId, language },
    };
    const result = await this.repo.addMany(tenantId, made, actor, event).catch((error: unknown) => {
      if (error instanceof VersionedChangedError) throw new ConflictError(error.message);
      throw error;
    });
    if ('over' in result) throw capError([], result.over, await this.repo.usage(tenantId), { sets: made.length, entries });
    this.tables.changed(tenantId);
    return made.length;
  }

  /** The table of the sets a search applies (null: none apply). */
  tableFor(tenantId: string, { siteId, language }: SynonymScope): Promise<SynonymTable | null> {
    const base = baseLanguage(language);
    return this.tables.viewFor(tenantId, `${siteId ?? ''} ${base}`, (sets) => {
      const applying = sets.filter((s) => (s.site_id === null || s.site_id === siteId) && (s.language === null || baseLanguage(s.language) === base));
      if (applying.length === 0) return null;
      let tables = this.shared.get(sets);
      if (!tables) this.shared.set(sets, (tables = new Map()));
      const which = applying.map((s) => s.id).join('\n');
      let table = tables.get(which);
      if (!table) tables.set(which, (table = SynonymTable.build(applying)));
      return table;
    });
  }

  /** The sets of a list or export, oldest first; the tenant's sets sorted once per version. */
  private async matching(tenantId: string, filter: SynonymFilter): Promise<StoredSynonymSet[]> {
    const siteId = filter.siteId === undefined ? undefined : (await this.sites.resolve(tenantId, filter.siteId)).id;
    const language = filter.language?.toLowerCase();
    const sorted = await this.tables.viewFor(tenantId, '\u0000sorted', oldestFirst);
    if (siteId === undefined && language === undefined) return sorted;
    return sorted.filter((s) => (siteId === undefined || s.site_id === siteId) && (language === undefined || s.language === language));
  }
}

/** Sets oldest first (created_at, id). */
const oldestFirst = (sets: readonly StoredSynonymSet[]) => sortInTurns(sets, (s) => `${s.created_at} ${s.id}`);

/** The 422 of a write that would take the tenant past a cap: what it has, what the write adds, the cap. */
function capError(loc: (string | number)[], over: 'docs' | 'weight', has: { docs: number; weight: number }, adds: { sets: number; entries: number }, line?: number): InvalidError {
  const where = line === undefined ? '' : ` (reached at line ${line})`;
  return over === 'docs'
    ? InvalidError.at(loc, `A tenant keeps at most ${SYNONYM_CAPS.sets} synonym sets: it has ${has.docs}, this adds ${adds.sets}${where}`, 'too_many_synonym_sets')
    : InvalidError.at(loc, `A tenant's synonym sets hold at most ${SYNONYM_CAPS.entries} entries in all: they hold ${has.weight}, this adds ${adds.entries}${where}`, 'too_many_synonym_entries');
}

/**
 * A set's entries trimmed, each once (case ignored), the root not among its synonyms: 2 to 50
 * entries in all (a root counts), each holding a word to match and no control character.
 */
function checkSet(root: string | null, synonyms: readonly string[]): { root: string | null; synonyms: string[] } | { errors: ErrorItem[] } {
  const errors: ErrorItem[] = [];
  const entry = (text: string, loc: (string | number)[]): string => {
    const trimmed = text.trim().replace(/\s+/g, ' ');
    const control = CONTROL.exec(text)?.[0];
    if (control !== undefined) {
      const code = `U+${control.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
      errors.push({ loc, msg: `An entry may not hold a control character (${code})`, type: 'value_error' });
    } else if (!HAS_WORD.test(trimmed)) errors.push({ loc, msg: 'An entry needs a letter or digit to match', type: 'value_error' });
    else if (trimmed.length > 100) errors.push({ loc, msg: 'String should have at most 100 characters', type: 'string_too_long' });
    return trimmed;
  };
  const theRoot = root === null ? null : entry(root, ['root']);
  const seen = new Set(theRoot === null ? [] : [theRoot.toLowerCase()]);
  const list: string[] = [];
  synonyms.forEach((s, i) => {
    const text = entry(s, ['synonyms', i]);
    if (text === '' || seen.has(text.toLowerCase())) return;
    seen.add(text.toLowerCase());
    list.push(text);
  });
  const count = list.length + (theRoot === null ? 0 : 1);
  if (errors.length === 0 && (count < SYNONYM_ENTRIES.min || list.length === 0)) {
    errors.push({ loc: ['synonyms'], msg: `A set needs at least ${SYNONYM_ENTRIES.min} different entries (a root counts), not ${count}`, type: 'too_short' });
  }
  if (count > SYNONYM_ENTRIES.max) errors.push({ loc: ['synonyms'], msg: `A set holds at most ${SYNONYM_ENTRIES.max} entries (a root counts), not ${count}`, type: 'too_long' });
  return errors.length > 0 ? { errors } : { root: theRoot, synonyms: list };
}
