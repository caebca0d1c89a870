// Probes, metrics and the API description: no tenant, no credentials.
import type { HttpMetrics } from '../http/metrics.js';
import { defineRoute, json, type Route } from '../http/route.js';

export interface SystemDeps {
  metrics: HttpMetrics;
  /** Resolves when the service can serve: Redis answers and start-up work is done. */
  ready: () => Promise<boolean>;
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
      method: 'GET', path: '/readyz', tags: ['system'], summary: 'Readiness: Redis reachable and start-up done',
      auth: 'none',
      responses: { 200: { description: '{"status":"ready"}' }, 503: { description: '{"status":"unavailable"}' } },
      handler: async () => ((await ready()) ? json(200, { status: 'ready' }) : json(503, { status: 'unavailable' }, { 'Retry-After': '1' })),
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
