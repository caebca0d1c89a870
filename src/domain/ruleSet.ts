// The search rules of one site as a search applies them: found by the query's words (exact: the
// same words; contains: the rule's words in a row among the query's), active now, and combined
// into one effect: the products pinned where, those hidden, the filters added.
import type { Static } from '@sinclair/typebox';
import { fold, words } from '../search/analysis.js';
import type { ProductSearchFilters } from '../schemas/search.js';
import type { StoredSearchRule } from '../store/searchRules.js';

type Filters = Static<typeof ProductSearchFilters>;

export interface AppliedRule {
  id: string;
  pinned: string[];
  hidden: number;
  filtered: boolean;
}

export interface RuleEffect {
  applied: AppliedRule[];
  /** By position, then by rule order; each product once. */
  pins: { productId: string; position: number }[];
  hidden: Set<string>;
  filters: Filters[];
}

/** A query's words as rules compare them: lower-case, diacritics and ß folded, joined by one space. */
export const ruleWords = (text: string): string => words(text).map(fold).join(' ');

interface Compiled {
  rule: StoredSearchRule;
  words: string;
  fromMs: number;
  untilMs: number;
}

export class RuleSet {
  private readonly exact = new Map<string, Compiled[]>();
  /** Longer phrases first: the more specific rule pins first. */
  private readonly containing: Compiled[] = [];

  constructor(rules: readonly StoredSearchRule[]) {
    const ordered = [...rules].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    for (const rule of ordered) {
      if (!rule.enabled) continue;
      const compiled: Compiled = {
        rule, words: ruleWords(rule.query),
        fromMs: rule.active_from === null ? -Infinity : Date.parse(rule.active_from),
        untilMs: rule.active_until === null ? Infinity : Date.parse(rule.active_until),
      };
      if (compiled.words === '') continue;
      if (rule.match === 'exact') {
        const list = this.exact.get(compiled.words) ?? [];
        list.push(compiled);
        this.exact.set(compiled.words, list);
      } else {
        this.containing.push(compiled);
      }
    }
    this.containing.sort((a, b) => b.words.length - a.words.length);
  }

  get size(): number {
    return this.exact.size + this.containing.length;
  }

  /** The rules a query meets (dates and enabled aside: every stored rule), in the order they apply. */
  matching(query: string): StoredSearchRule[] {
    return this.found(ruleWords(query), null).map((c) => c.rule);
  }

  /** What the rules active at `nowMs` do to a search of `query`; null when none applies. */
  effectFor(query: string, nowMs: number): RuleEffect | null {
    const found = this.found(ruleWords(query), nowMs);
    if (found.length === 0) return null;
    const effect: RuleEffect = { applied: [], pins: [], hidden: new Set(), filters: [] };
    const pinned = new Set<string>();
    for (const { rule } of found) {
      for (const id of rule.hide) effect.hidden.add(id);
      const pins = rule.pin.filter((p) => !pinned.has(p.product_id));
      for (const p of pins) {
        pinned.add(p.product_id);
        effect.pins.push({ productId: p.product_id, position: p.position });
      }
      if (rule.filters) effect.filters.push(rule.filters);
      effect.applied.push({ id: rule.id, pinned: pins.map((p) => p.product_id), hidden: rule.hide.length, filtered: rule.filters !== null });
    }
    // A product hidden by one rule is not shown though another pins it. The sort is stable: rule order breaks ties.
    effect.pins = effect.pins.filter((p) => !effect.hidden.has(p.productId)).sort((a, b) => a.position - b.position);
    return effect;
  }

  private found(query: string, nowMs: number | null): Compiled[] {
    if (query === '') return [];
    const active = (c: Compiled) => nowMs === null || (c.fromMs <= nowMs && nowMs <= c.untilMs);
    const padded = ` ${query} `;
    return [...(this.exact.get(query) ?? []), ...this.containing.filter((c) => padded.includes(` ${c.words} `))].filter(active);
  }
}
