// Probes, metrics and the API description: no tenant, no credentials.
import type { HttpMetrics } from '../http/metrics.js';
import { defineRoute, json, type Route } from '../http/route.js';

export interface SystemDeps {
  metrics: HttpMetrics;
  /**
   * Whether the service can serve (Redis answers, search indexes built, the query embedding model
   * loaded), with start-up progress, and where semantic search stands: `ready`, `loading` (the
   * query model loads at start), `failed` (semantic searches fall back to keyword), `off` (no embedder).
   */
  ready: () => Promise<{ ready: boolean; progress?: Record<string, unknown>; semantic: 'ready' | 'loading' | 'failed' | 'off' }>;
  openApi: () => unknown;
  /** The HTTP front serving (http/front.ts): `uws` or `node`. */
  httpFront: string;
}

export function systemRoutes({ metrics, ready, openApi, httpFront }: SystemDeps): Route[] {
  return [
    defineRoute({
      method: 'GET', path: '/healthz', tags: ['system'], summary: 'Liveness: the process answers',
      auth: 'none',
      responses: { 200: { description: '{"status":"ok"}' } },
      handler: () => json(200, { status: 'ok' }),
    }),
    defineRoute({
      method: 'GET', path: '/readyz', tags: ['system'], summary: 'Readiness: Redis reachable, the search indexes built and the query embedding model loaded',
      auth: 'none',
      responses: {
        200: { description: '{"status":"ready","http":"uws"|"node","semantic":"ready"|"failed"|"off"}: http names the HTTP front serving, semantic where semantic search stands' },
        503: { description: '{"status":"unavailable"} or {"status":"starting","search":{tenants,tenantsLoaded,documents},"semantic":"loading"|…}' },
      },
      handler: async () => {
        const { ready: isReady, progress, semantic } = await ready();
        if (isReady) return json(200, { status: 'ready', http: httpFront, semantic });
        return json(503, progress ? { status: 'starting', ...progress, http: httpFront, semantic } : { status: 'unavailable', http: httpFront, semantic }, { 'Retry-After': '1' });
      },
    }),
    defineRoute({
      method: 'GET', path: '/metrics', tags: ['system'], summary: 'Prometheus metrics',
      auth: 'none',
      responses: { 200: { description: 'Prometheus text format', contentType: 'text/plain; version=0.0.4' } },
      handler: async () => ({ status: 200, raw: { contentType: 'text/plain; version=0.0.4; charset=utf-8', data: await metrics.render() } }),
    }),
    defineRoute({
      method: 'GET', path: '/openapi.json', tags: ['system'], summary: 'This API as an OpenAPI 3.1 document',
      auth: 'none',
      responses: { 200: { description: 'OpenAPI document' } },
      handler: () => json(200, openApi()),
    }),
  ];
}
