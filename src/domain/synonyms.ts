// Synonym sets without HTTP (DESIGN §6 merchandising): their rules (2–50 entries, a root apart from
// its synonyms, a site named by UUID or slug), import and export as a Solr file, and the table of
// the sets that apply to one search (kept per process by domain/tenantDocs.ts).
import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { SYNONYM_ENTRIES, type SynonymSetWrite } from '../schemas/synonyms.js';
import type { ErrorItem } from '../schemas/errorItem.js';
import { baseLanguage } from '../search/analysis.js';
import { SynonymTable } from '../search/synonyms.js';
import { SYSTEM_ACTOR, type AuditActor } from '../store/audit.js';
import type { Page } from '../store/docs.js';
import type { StoredSynonymSet, SynonymRepository } from '../store/synonyms.js';
import { InvalidError, NotFoundError } from './errors.js';
import type { SiteService } from './sites.js';
import { lineError, parseSynonymFile, synonymLine } from './synonymFile.js';
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

/** An entry's characters that a query could match: a letter or a digit. */
const HAS_WORD = /[\p{L}\p{N}]/u;

export class SynonymService {
  /** Per tenant, the table of each site and language searched (null: no set applies). */
  private readonly tables: TenantDocs<StoredSynonymSet, SynonymTable | null>;
  /**
   * Per list of a tenant's sets as read, its tables by the sets they hold: sites and languages
   * that no set names apart share one (a catalogue of 100 sites with tenant-wide sets builds one table, not 100).
   */
  private readonly shared = new WeakMap<readonly StoredSynonymSet[], Map<string, SynonymTable>>();

  constructor(
    private readonly repo: SynonymRepository,
    private readonly sites: SiteService,
  ) {
    this.tables = new TenantDocs(repo);
  }

  /** Creates or replaces the set `id`; `created` says which. */
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
    const result = await this.repo.put(tenantId, set, actor);
    this.tables.changed(tenantId);
    return { set, created: result === 'created' };
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
    const lines: string[] = [];
    for (const set of await this.matching(tenantId, filter)) {
      const scope = [set.site_id ? ` site_id=${set.site_id}` : '', set.language ? ` language=${set.language}` : ''].join('');
      lines.push(`# id=${set.id}${scope}`, synonymLine(set));
    }
    return lines.length > 0 ? `${lines.join('\n')}\n` : '';
  }

  /**
   * Imports a Solr synonyms file: each line a new set with a generated id, for the site and
   * language given (none: the tenant's). Nothing is stored when a line is bad; the errors name
   * every bad line. The number of sets made.
   */
  async importFile(tenantId: string, text: string, scope: { siteId?: string; language?: string }, actor: AuditActor = SYSTEM_ACTOR): Promise<number> {
    const siteId = await this.sites.referencedId(tenantId, scope.siteId ?? null, ['site_id']);
    const { sets, errors } = parseSynonymFile(text);
    const now = new Date().toISOString();
    const made: StoredSynonymSet[] = [];
    for (const parsed of sets) {
      const checked = checkSet(parsed.root, parsed.synonyms);
      if ('errors' in checked) {
        errors.push(...checked.errors.map((e) => lineError(parsed.line, `${e.msg} (${e.loc.join('.')})`, e.type)));
        continue;
      }
      made.push({
        id: randomUUID(), type: checked.root === null ? 'multi-way' : 'one-way', root: checked.root, synonyms: checked.synonyms,
        site_id: siteId, language: scope.language?.toLowerCase() ?? null, created_at: now, updated_at: now,
      });
    }
    if (errors.length > 0) throw new InvalidError(errors.sort((a, b) => Number(a.loc[0]) - Number(b.loc[0])));
    await this.repo.createMany(tenantId, made, actor);
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
      if (!table) tables.set(which, (table = new SynonymTable(applying)));
      return table;
    });
  }

  private async matching(tenantId: string, filter: SynonymFilter): Promise<StoredSynonymSet[]> {
    const siteId = filter.siteId === undefined ? undefined : (await this.sites.resolve(tenantId, filter.siteId)).id;
    const language = filter.language?.toLowerCase();
    return (await this.repo.all(tenantId))
      .filter((s) => (siteId === undefined || s.site_id === siteId) && (language === undefined || s.language === language))
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }
}

/**
 * A set's entries trimmed, each once (case ignored), the root not among its synonyms: 2 to 50
 * entries in all (a root counts), each holding a word to match.
 */
function checkSet(root: string | null, synonyms: readonly string[]): { root: string | null; synonyms: string[] } | { errors: ErrorItem[] } {
  const errors: ErrorItem[] = [];
  const entry = (text: string, loc: (string | number)[]): string => {
    const trimmed = text.trim().replace(/\s+/g, ' ');
    if (!HAS_WORD.test(trimmed)) errors.push({ loc, msg: 'An entry needs a letter or digit to match', type: 'value_error' });
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
