// Rules the OAuth endpoints share: opaque credentials (formats, digests, PKCE S256), scope lists,
// resources (RFC 8707) and redirects back to a client.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SCOPES } from '../../schemas/scopes.js';
import { OAuthError, RESOURCE_PATHS } from './records.js';

const SECRET_RE = '[A-Za-z0-9_-]{43}';
const TOKEN_RE = new RegExp(`^kcs_(at|rt)_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_${SECRET_RE}$`);
export const CODE_RE = new RegExp(`^kcs_ac_${SECRET_RE}$`);
export const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;
export const VERIFIER_RE = /^[A-Za-z0-9._~-]{43,128}$/;

export const digestOf = (value: string) => createHash('sha256').update(value).digest('hex');
export const randomSecret = () => randomBytes(32).toString('base64url');

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The S256 code challenge of a verifier (RFC 7636 §4.2). */
export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Scope names in the canonical SCOPES order, without duplicates. */
export const canonical = (scopes: Iterable<string>) => {
  const set = new Set(scopes);
  return SCOPES.filter((s) => set.has(s));
};
export const splitScope = (value: string) => value.split(' ').filter(Boolean);

/** Parses an access or refresh token: its kind and grant id; null for anything else. */
export function parseToken(token: string): { kind: 'at' | 'rt'; grantId: string } | null {
  const match = TOKEN_RE.exec(token);
  return match ? { kind: match[1] as 'at' | 'rt', grantId: match[2] } : null;
}

/** Whether a request path lies within a token's resource path ('' covers everything). */
export function pathWithin(path: string, resourcePath: string): boolean {
  return resourcePath === '' || path === resourcePath || path.startsWith(`${resourcePath}/`);
}

/**
 * The canonical resource (RFC 8707) for a requested value: the tenant base URL (the issuer) or its
 * /api or /mcp path, with or without a trailing slash; absent means the base URL.
 */
export function resolveResource(issuer: string, requested: string | null): { resource: string; resource_path: string } {
  if (requested === null) return { resource: issuer, resource_path: '' };
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    throw new OAuthError('invalid_target', 'resource must be an absolute URL');
  }
  const base = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  if (
    url.protocol !== base.protocol || url.host !== base.host || url.search || url.hash || requested.includes('#') ||
    url.username || url.password || !(RESOURCE_PATHS as readonly string[]).includes(path)
  ) {
    throw new OAuthError('invalid_target', `resource must be ${issuer}, ${issuer}/api or ${issuer}/mcp`);
  }
  return { resource: issuer + path, resource_path: path };
}

/** A token's resource narrowed by a token request's `resource`: the granted one, or (from the base URL) /api or /mcp. */
export function narrowResource(issuer: string, granted: { resource: string; resource_path: string }, requested: string | null) {
  if (requested === null) return { resource: granted.resource, resource_path: granted.resource_path };
  const wanted = resolveResource(issuer, requested);
  if (granted.resource_path !== '' && wanted.resource_path !== granted.resource_path) {
    throw new OAuthError('invalid_target', `resource must lie within the granted resource ${granted.resource}`);
  }
  return wanted;
}

export function redirectTo(uri: string, params: Record<string, string | null>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== null) query.set(name, value);
  return `${uri}${uri.includes('?') ? '&' : '?'}${query.toString()}`;
}
