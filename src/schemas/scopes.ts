// Scope names, what a route asks of them, and the visibility ceiling (DESIGN §2).
export const SCOPES = [
  'catalog:read',
  'catalog:write',
  'search',
  'knowledge:read',
  'knowledge:write',
  'admin',
  'visibility:community',
  'visibility:internal',
  'visibility:restricted',
] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/**
 * What a caller's scopes must meet: every one of `scopes` (none listed: any credential), or at
 * least one of `anyOf` (routes a narrower scope also opens, e.g. search for `search` keys).
 */
export type ScopeRule = { scopes: readonly Scope[] } | { anyOf: readonly Scope[] };

/**
 * Any scope but `search`: routes open to every credential except a search-only key, which is
 * public by design and reaches its two routes and nothing else.
 */
export const BEYOND_SEARCH: readonly Scope[] = SCOPES.filter((s) => s !== 'search');

/** Why scopes fail a rule, for the 403 (its detail, and the WWW-Authenticate `scope=`), or null when they meet it. */
export function unmetRule(held: Set<string>, rule: ScopeRule): { detail: string; scope: string } | null {
  if ('anyOf' in rule) {
    if (rule.anyOf.some((s) => held.has(s))) return null;
    // A token holding all of these passes; the detail says that one of them is enough.
    return { detail: `Missing scope: one of ${rule.anyOf.join(', ')}`, scope: rule.anyOf.join(' ') };
  }
  const missing = rule.scopes.filter((s) => !held.has(s));
  return missing.length === 0 ? null : { detail: `Missing scope: ${missing.join(' ')}`, scope: rule.scopes.join(' ') };
}

/**
 * Effective scopes: a gateway's X-Scopes header can only narrow what the token holds.
 * Absent or empty header narrows nothing; otherwise the plain set intersection.
 */
export function narrowScopes(tokenScopes: Iterable<string>, header: string | undefined): Set<string> {
  const own = new Set(tokenScopes);
  const requested = (header ?? '').split(/\s+/).filter(Boolean);
  if (requested.length === 0) return own;
  return new Set(requested.filter((s) => own.has(s)));
}

export const VISIBILITY_LEVELS = ['public', 'community', 'internal', 'restricted'] as const;
export type VisibilityLevel = (typeof VISIBILITY_LEVELS)[number];

/** The highest visibility a caller may read: public when it holds no visibility scope. */
export function visibilityCeiling(scopes: Set<string>): VisibilityLevel {
  for (const level of [...VISIBILITY_LEVELS].reverse()) {
    if (level !== 'public' && scopes.has(`visibility:${level}`)) return level;
  }
  return 'public';
}
