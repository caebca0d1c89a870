// Browser origins a key may be used from (DESIGN §2, search-only keys): `scheme://host[:port]`,
// as a browser sends them in the Origin header.
import { Type } from '@sinclair/typebox';

/** http or https (any case), a DNS name or bracketed IPv6 literal, an optional port; no path, no trailing slash. */
export const ORIGIN_PATTERN =
  '^[Hh][Tt][Tt][Pp][Ss]?://(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)(:[0-9]{1,5})?$';
const ORIGIN_RE = new RegExp(ORIGIN_PATTERN);

/** A key lists at most this many origins (a shop's storefront domains, its staging and local hosts). */
export const MAX_ALLOWED_ORIGINS = 50;

export const Origin = Type.String({ maxLength: 300, pattern: ORIGIN_PATTERN, description: 'scheme://host[:port], e.g. https://shop.example' });

export const AllowedOrigins = Type.Array(Origin, {
  maxItems: MAX_ALLOWED_ORIGINS,
  description: 'Origins a browser may call with this key (CORS); a request with any other Origin is a 403. Empty: a server-side key',
});

/**
 * The origin as a browser serialises it (lower case, no default port, IPv6 compressed), or null
 * when the text is not `scheme://host[:port]` with a port in 1–65535.
 */
export function normalizeOrigin(text: string): string | null {
  if (!ORIGIN_RE.test(text)) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.port === '0') return null;
  return url.origin;
}
