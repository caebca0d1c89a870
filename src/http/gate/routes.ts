// The gate's view of the routes (gate.ts): which method and path exist and each one's body limit.
// Plain data, so that it can be handed to the gate's own thread (thread.ts).
import type { GateRoute } from './connection.js';
import { Router, type Method } from '../router.js';

export interface RouteLimit {
  method: Method;
  path: string;
  bodyLimit: number;
}

/** The methods uWS parses; it drops any other without an answer, so the gate answers those itself. */
const UWS_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/** The gate's `route` lookup over a route table; `defaultLimit` for requests the app answers 404/405. */
export function gateRouter(routes: RouteLimit[], defaultLimit: number): (method: string, path: string) => GateRoute {
  const router = new Router<number>();
  for (const route of routes) router.add(route.method, route.path, route.bodyLimit);
  return (method, path): GateRoute => {
    const match = router.match(method, path);
    if (match.kind === 'found') return { kind: 'app', bodyLimit: match.route };
    if (UWS_METHODS.has(method)) return { kind: 'app', bodyLimit: defaultLimit };
    // The same answers the app gives for a method it has no route for (server.ts).
    return match.kind === 'not_found'
      ? { kind: 'answer', status: 404, detail: 'Not Found', headers: {} }
      : { kind: 'answer', status: 405, detail: 'Method Not Allowed', headers: { Allow: match.allow.join(', ') } };
  };
}
