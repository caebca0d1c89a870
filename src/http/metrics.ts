import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One answered request, as the metrics count it. */
export interface ObservedRequest {
  method: string;
  /** The route pattern ('unmatched', or 'gate' for a request the gate answered). */
  route: string;
  status: number;
  seconds: number;
}

/** Prometheus metrics of one process: request counts and latency by route and status. */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'kcs_http_requests_total',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'kcs_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'kcs_' });
  }

  observe({ method, route, status, seconds }: ObservedRequest): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
