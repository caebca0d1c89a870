// Search rules without HTTP (DESIGN §6 merchandising): their checks (pinned products exist on the
// rule's site, a product pinned or hidden, not both, dates in order), and the rules of a site a
// search applies (domain/ruleSet.ts), kept per process by domain/tenantDocs.ts.
import type { Static } from '@sinclair/typebox';
import type { ErrorItem } from '../schemas/errorItem.js';
import type { SearchRuleWrite } from '../schemas/searchRules.js';
import { SYSTEM_ACTOR, type AuditActor } from '../store/audit.js';
import type { Page } from '../store/docs.js';
import { RULES_PER_TENANT, type SearchRuleRepository, type StoredSearchRule } from '../store/searchRules.js';
import { InvalidError, NotFoundError } from './errors.js';
import type { ProductService } from './products.js';
import { RuleSet, type RuleEffect } from './ruleSet.js';
import type { SiteService } from './sites.js';
import { TenantDocs } from './tenantDocs.js';

export type SearchRuleView = StoredSearchRule;
type SearchRuleInput = Static<typeof SearchRuleWrite>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export class SearchRuleService {
  /** Per tenant, the rules of each site searched. */
  private readonly sets: TenantDocs<StoredSearchRule, RuleSet>;

  constructor(
    private readonly repo: SearchRuleRepository,
    private readonly sites: SiteService,
    private readonly products: ProductService,
  ) {
    this.sets = new TenantDocs(repo);
  }

  /** Creates or replaces the rule `id`; `created` says which. */
  async put(tenantId: string, id: string, input: SearchRuleInput, actor: AuditActor = SYSTEM_ACTOR): Promise<{ rule: SearchRuleView; created: boolean }> {
    const siteId = await this.sites.referencedId(tenantId, input.site_id ?? null, ['site_id']);
    const pin = (input.pin ?? []).map((p) => ({ product_id: p.product_id.toLowerCase(), position: p.position }));
    const hide = [...new Set((input.hide ?? []).map((h) => h.toLowerCase()))];
    const errors = [...shapeErrors(input, pin, hide), ...(await this.pinErrors(tenantId, siteId, pin))];
    const [activeFrom, activeUntil] = [instant(input.active_from ?? null, 'start'), instant(input.active_until ?? null, 'end')];
    if (activeFrom !== null && activeUntil !== null && activeFrom > activeUntil) {
      errors.push({ loc: ['active_until'], msg: 'active_until is before active_from', type: 'value_error' });
    }
    if (errors.length > 0) throw new InvalidError(errors);
    const previous = await this.repo.get(tenantId, id);
    const now = new Date().toISOString();
    const rule: StoredSearchRule = {
      id, site_id: siteId, query: input.query.trim().replace(/\s+/g, ' '), match: input.match ?? 'exact', pin, hide,
      filters: input.filters ?? null, active_from: activeFrom, active_until: activeUntil,
      description: input.description ?? null, enabled: input.enabled ?? true, created_at: previous?.created_at ?? now, updated_at: now,
    };
    // The cap is checked by the write itself: concurrent creations cannot pass it together.
    const result = await this.repo.put(tenantId, rule, actor);
    if ('over' in result) throw InvalidError.at(['id'], `A tenant keeps at most ${RULES_PER_TENANT} search rules: delete one first`, 'too_many_rules');
    this.sets.changed(tenantId);
    return { rule, created: result.ok === 'created' };
  }

  async get(tenantId: string, id: string): Promise<SearchRuleView> {
    const rule = await this.repo.get(tenantId, id);
    if (!rule) throw new NotFoundError('Search rule not found');
    return rule;
  }

  /** Oldest first (created_at, id); `query`: those a search of it meets, in the order they apply. Unknown site: NotFoundError. */
  async list(tenantId: string, filter: { siteId?: string; query?: string }, { offset, limit }: Page): Promise<{ items: SearchRuleView[]; total: number }> {
    const siteId = filter.siteId === undefined ? undefined : (await this.sites.resolve(tenantId, filter.siteId)).id;
    let rules = (await this.repo.all(tenantId))
      .filter((r) => siteId === undefined || r.site_id === siteId)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    if (filter.query !== undefined) rules = new RuleSet(rules.map((r) => ({ ...r, enabled: true }))).matching(filter.query);
    return { items: limit < 0 ? rules.slice(offset) : rules.slice(offset, offset + limit), total: rules.length };
  }

  async delete(tenantId: string, id: string, actor: AuditActor = SYSTEM_ACTOR): Promise<void> {
    const deleted = await this.repo.delete(tenantId, id, actor);
    this.sets.changed(tenantId);
    if (!deleted) throw new NotFoundError('Search rule not found');
  }

  /** What the rules of the site (none: a search without site) do to a search of `query` now; null when none applies. */
  async effectFor(tenantId: string, siteId: string | undefined, query: string): Promise<RuleEffect | null> {
    if (!query.trim()) return null;
    const set = await this.sets.viewFor(tenantId, siteId ?? '', (rules) => new RuleSet(rules.filter((r) => r.site_id === null || r.site_id === siteId)));
    return set.size === 0 ? null : set.effectFor(query, Date.now());
  }

  /** A pinned product must exist, on the rule's site when it has one. */
  private async pinErrors(tenantId: string, siteId: string | null, pin: { product_id: string }[]): Promise<ErrorItem[]> {
    if (pin.length === 0) return [];
    const views = await this.products.views(tenantId, pin.map((p) => p.product_id));
    return pin.flatMap((p, i) => {
      const view = views[i];
      if (view && (siteId === null || view.site_id === siteId)) return [];
      const where = view ? ` on the rule's site (it is a product of site ${view.site_id})` : '';
      return [{ loc: ['pin', i, 'product_id'], msg: `Product ${p.product_id} not found${where}`, type: 'product_unknown' }];
    });
  }
}

/** A rule does something; each product pinned once, at one position each, and not also hidden. */
function shapeErrors(input: SearchRuleInput, pin: { product_id: string; position: number }[], hide: string[]): ErrorItem[] {
  const errors: ErrorItem[] = [];
  // A query with no letter or digit matches no search (its words are letters and digits): such a rule would never apply.
  const control = /\p{Cc}/u.exec(input.query)?.[0];
  if (control !== undefined) {
    const code = `U+${control.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    errors.push({ loc: ['query'], msg: `A rule's query may not hold a control character (${code})`, type: 'value_error' });
  } else if (!/[\p{L}\p{N}]/u.test(input.query)) {
    errors.push({ loc: ['query'], msg: "A rule's query needs a letter or digit to match", type: 'value_error' });
  }
  if (pin.length === 0 && hide.length === 0 && !input.filters) {
    errors.push({ loc: [], msg: 'A rule pins, hides or filters: give pin, hide or filters', type: 'value_error' });
  }
  const products = new Set<string>();
  const positions = new Set<number>();
  pin.forEach((p, i) => {
    if (products.has(p.product_id)) errors.push({ loc: ['pin', i, 'product_id'], msg: `Product ${p.product_id} is pinned twice`, type: 'value_error' });
    if (positions.has(p.position)) errors.push({ loc: ['pin', i, 'position'], msg: `Two products are pinned at position ${p.position}`, type: 'value_error' });
    products.add(p.product_id);
    positions.add(p.position);
  });
  hide.forEach((id, i) => {
    if (products.has(id)) errors.push({ loc: ['hide', i], msg: `Product ${id} is both pinned and hidden`, type: 'value_error' });
  });
  return errors;
}

/** A day as its first or last millisecond (UTC), an instant as ISO; null for none. */
function instant(value: string | null, end: 'start' | 'end'): string | null {
  if (value === null) return null;
  const text = DAY.test(value) ? `${value}T${end === 'start' ? '00:00:00.000' : '23:59:59.999'}Z` : value;
  const ms = Date.parse(text);
  // Date.parse rolls 2026-02-31 over into March.
  if (Number.isNaN(ms) || (DAY.test(value) && new Date(ms).toISOString().slice(0, 10) !== value)) throw InvalidError.at([end === 'start' ? 'active_from' : 'active_until'], `${value} is not a date`, 'value_error');
  return new Date(ms).toISOString();
}
