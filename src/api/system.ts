// Probes, metrics and the API description: no tenant, no credentials.
import type { HttpMetrics } from '../http/metrics.js';
import { defineRoute, json, type Route } from '../http/route.js';

export interface SystemDeps {
  metrics: HttpMetrics;
  /** Whether the service can serve (Redis answers, search indexes built), with start-up progress. */
  ready: () => Promise<{ ready: boolean; progress?: Record<string, unknown> }>;
  openApi: () => unknown;
}

export function systemRoutes({ metrics, ready, openApi }: SystemDeps): Route[] {
  return [
    defineRoute({
      method: 'GET', path: '/healthz', tags: ['system'], summary: 'Liveness: the process answers',
      auth: 'none',
      responses: { 200: { description: '{"status":"ok"}' } },
      handler: () => json(200, { status: 'ok' }),
    }),
    defineRoute({
      method: 'GET', path: '/readyz', tags: ['system'], summary: 'Readiness: Redis reachable and the search indexes built',
      auth: 'none',
      responses: {
        200: { description: '{"status":"ready"}' },
        503: { description: '{"status":"unavailable"} or {"status":"starting","search":{tenants,tenantsLoaded,documents}}' },
      },
      handler: async () => {
        const { ready: isReady, progress } = await ready();
        if (isReady) return json(200, { status: 'ready' });
        return json(503, progress ? { status: 'starting', ...progress } : { status: 'unavailable' }, { 'Retry-After': '1' });
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
