// The pipeline every route runs: the tenant (from Host) and the caller's credential and scopes as
// the route's `auth` asks, its input parsed against its schemas (422), then its handler.
import type { ScopeRule } from '../schemas/scopes.js';
import type { Principal } from '../domain/types.js';
import type { Tenant } from '../schemas/records.js';
import type { WriteConfirmation } from '../domain/writeConfirmation.js';
import { ErrorWithHeaders } from './errorWithHeaders.js';
import { parseInput } from './input.js';
import { KeyCors } from './keyCors.js';
import type { IncomingRequest, Reply, Route, RouteContext } from './route.js';
import type { Dispatch } from './handler.js';

/** Who may call: implemented by api/guard.ts (tenants, API keys, OAuth tokens, origins, rate limits). */
export interface Gatekeeper {
  tenant(req: IncomingRequest): Promise<Tenant>;
  /** The caller and its effective scopes; 401 without a valid credential. */
  identify(tenant: Tenant, req: IncomingRequest): Promise<Principal>;
  /** 403 (an Origin its key refuses, a scope it lacks) or 429 when the caller may not go on. */
  admit(tenant: Tenant, req: IncomingRequest, principal: Principal, rule: ScopeRule): Promise<void>;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function requestPipeline(gatekeeper: Gatekeeper, writes: WriteConfirmation | null = null): Dispatch {
  const run = async (route: Route, params: Record<string, string>, req: IncomingRequest, cors: KeyCors | null): Promise<Reply> => {
    const ctx = { req } as RouteContext<unknown, unknown, unknown>;
    if (route.auth !== 'none') {
      ctx.tenant = await gatekeeper.tenant(req);
      if (route.auth !== 'tenant') {
        const principal = await gatekeeper.identify(ctx.tenant, req);
        cors?.credential(principal.allowedOrigins);
        await gatekeeper.admit(ctx.tenant, req, principal, route.auth);
        ctx.principal = principal;
      }
    }
    Object.assign(ctx, parseInput(route, params, req));
    const reply = await route.handler(ctx as never);
    // A success of a route that may write is answered once the tenant's replicas have its writes.
    if (writes && ctx.tenant && !route.readOnly && !READ_METHODS.has(route.method) && reply.status < 300) await writes.confirm(ctx.tenant.id);
    return reply;
  };
  return async (route, params, req) => {
    if (route.cors !== 'key') return run(route, params, req, null);
    const cors = new KeyCors(req.headers.origin);
    try {
      const reply = await run(route, params, req, cors);
      return { ...reply, headers: { ...cors.headers(), ...reply.headers } };
    } catch (error) {
      throw new ErrorWithHeaders(error, cors.headers());
    }
  };
}
