// The pipeline every route runs: the tenant (from Host) and the caller's credential and scopes as
// the route's `auth` asks, its input parsed against its schemas (422), then its handler.
import type { Scope } from '../domain/scopes.js';
import type { Principal, Tenant } from '../domain/types.js';
import { parseInput } from './input.js';
import type { IncomingRequest, RouteContext } from './route.js';
import type { Dispatch } from './server.js';

/** Who may call: implemented by api/guard.ts (tenants, API keys, OAuth tokens, rate limits). */
export interface Gatekeeper {
  tenant(req: IncomingRequest): Promise<Tenant>;
  authenticate(tenant: Tenant, req: IncomingRequest, required: Scope[]): Promise<Principal>;
}

export function requestPipeline(gatekeeper: Gatekeeper): Dispatch {
  return async (route, params, req) => {
    const ctx = { req } as RouteContext<unknown, unknown, unknown>;
    if (route.auth !== 'none') {
      ctx.tenant = await gatekeeper.tenant(req);
      if (route.auth !== 'tenant') ctx.principal = await gatekeeper.authenticate(ctx.tenant, req, route.auth.scopes);
    }
    Object.assign(ctx, parseInput(route, params, req));
    return route.handler(ctx as never);
  };
}
