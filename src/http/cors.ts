// CORS for the routes that browser-based OAuth and MCP clients call from their own origin (MCP
// Inspector in a browser, hosted connectors): discovery, registration, token, revocation and /mcp.
// They take bearer tokens or client credentials, never cookies, so any origin may read them:
// `Access-Control-Allow-Origin: *` without credentials. The consent page is not one of them.
import { defineRoute, type Route } from './route.js';
import type { Method } from './router.js';

/** On every answer of a `cors` route, errors included (a browser client reads WWW-Authenticate of a 401). */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, Retry-After, X-Request-Id',
};

/** Request headers a browser client may send: credentials, the body's type, and the MCP transport's. */
const ALLOW_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, X-Request-Id';
/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_S = 86_400;

/** One OPTIONS route per path that has `cors` routes, answering the preflight with that path's methods. */
export function preflightRoutes(routes: Route[]): Route[] {
  const byPath = new Map<string, { methods: Method[]; tags: string[] }>();
  for (const route of routes) {
    if (!route.cors) continue;
    const entry = byPath.get(route.path) ?? { methods: [], tags: route.tags };
    entry.methods.push(route.method);
    byPath.set(route.path, entry);
  }
  return [...byPath].map(([path, { methods, tags }]) =>
    defineRoute({
      method: 'OPTIONS', path, tags, summary: 'CORS preflight',
      auth: 'none',
      cors: true,
      responses: { 204: { description: 'Access-Control-Allow-Methods, -Allow-Headers and -Max-Age' } },
      handler: () => ({
        status: 204,
        headers: {
          'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
          'Access-Control-Allow-Headers': ALLOW_HEADERS,
          'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_S),
        },
      }),
    }),
  );
}
