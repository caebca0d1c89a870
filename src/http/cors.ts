// CORS, in two modes (route.ts `cors`). `true`: the routes that browser-based OAuth and MCP
// clients call from their own origin (MCP Inspector in a browser, hosted connectors): discovery,
// registration, token, revocation and /mcp. They take bearer tokens or client credentials, never
// cookies, so any origin may read them: `Access-Control-Allow-Origin: *` without credentials. The
// consent page is not one of them. `'key'`: storefront search, readable from the origins the
// caller's API key lists (keyCors.ts); its preflight echoes the Origin, since a preflight carries
// no credential to check: the real request is the one gated.
import { defineRoute, type Route } from './route.js';
import type { Method } from './router.js';

/** On every answer of a `cors: true` route, errors included (a browser client reads WWW-Authenticate of a 401). */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, Retry-After, X-Request-Id',
};

/** Request headers a browser client may send: credentials, the body's type, and the MCP transport's. */
const ALLOW_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, X-Request-Id';
/** What a storefront page sends: its search key and a JSON body. */
const KEY_ALLOW_HEADERS = 'Authorization, Content-Type';
/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_S = 86_400;

/** One OPTIONS route per path that has CORS routes, answering the preflight with that path's methods. */
export function preflightRoutes(routes: Route[]): Route[] {
  const byPath = new Map<string, { methods: Method[]; tags: string[]; cors: true | 'key' }>();
  for (const route of routes) {
    if (!route.cors) continue;
    const entry = byPath.get(route.path) ?? { methods: [], tags: route.tags, cors: route.cors };
    if (entry.cors !== route.cors) throw new Error(`the routes of ${route.path} mix CORS modes`);
    entry.methods.push(route.method);
    byPath.set(route.path, entry);
  }
  return [...byPath].map(([path, { methods, tags, cors }]) =>
    defineRoute({
      method: 'OPTIONS', path, tags, summary: 'CORS preflight',
      description: cors === 'key' ? 'Echoes a well-formed Origin (the API key of the real request decides whether it may read the answer)' : undefined,
      auth: 'none',
      // A 'key' preflight has no credential: the pipeline echoes the Origin (keyCors.ts).
      cors,
      responses: { 204: { description: 'Access-Control-Allow-Methods, -Allow-Headers and -Max-Age' } },
      handler: () => ({
        status: 204,
        headers: {
          'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
          'Access-Control-Allow-Headers': cors === 'key' ? KEY_ALLOW_HEADERS : ALLOW_HEADERS,
          'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_S),
        },
      }),
    }),
  );
}
