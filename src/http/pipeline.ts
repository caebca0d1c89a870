// The pipeline every route runs: the tenant (from Host) and the caller's credential and scopes as
// the route's `auth` asks, its input parsed against its schemas (422), then its handler.
import type { Scope } from '../schemas/scopes.js';
import type { Principal } from '../domain/types.js';
import type { Tenant } from '../schemas/records.js';
import type { WriteConfirmation } from '../domain/writeConfirmation.js';
import { parseInput } from './input.js';
import type { IncomingRequest, RouteContext } from './route.js';
import type { Dispatch } from './server.js';

/** Who may call: implemented by api/guard.ts (tenants, API keys, OAuth tokens, rate limits). */
export interface Gatekeeper {
  tenant(req: IncomingRequest): Promise<Tenant>;
  authenticate(tenant: Tenant, req: IncomingRequest, required: Scope[]): Promise<Principal>;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function requestPipeline(gatekeeper: Gatekeeper, writes: WriteConfirmation | null = null): Dispatch {
  return async (route, params, req) => {
    const ctx = { req } as RouteContext<unknown, unknown, unknown>;
    if (route.auth !== 'none') {
      ctx.tenant = await gatekeeper.tenant(req);
      if (route.auth !== 'tenant') ctx.principal = await gatekeeper.authenticate(ctx.tenant, req, route.auth.scopes);
    }
    Object.assign(ctx, parseInput(route, params, req));
    const reply = await route.handler(ctx as never);
    // A success of a route that may write is answered once the tenant's replicas have its writes.
    if (writes && ctx.tenant && !route.readOnly && !READ_METHODS.has(route.method) && reply.status < 300) await writes.confirm(ctx.tenant.id);
    return reply;
  };
}
