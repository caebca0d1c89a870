// Scope names and the visibility ceiling (DESIGN §2).
export const SCOPES = [
  'catalog:read',
  'catalog:write',
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
