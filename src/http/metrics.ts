import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

  /** Each (method, route, status)'s series: prom-client would hash the labels again on every request. */
  private readonly series = new Map<string, { requests: { inc(): void }; latency: { observe(seconds: number): void } }>();

  observe({ method, route, status, seconds }: ObservedRequest): void {
    const key = `${method} ${route} ${status}`;
    let series = this.series.get(key);
    if (!series) {
      const labels = { method, route, status: String(status) };
      this.series.set(key, (series = { requests: this.requests.labels(labels), latency: this.latency.labels(labels) }));
    }
    series.requests.inc();
    series.latency.observe(seconds);
  }

  /** Gauges read when /metrics is rendered (a cache's entries and bytes, its hits and misses so far). */
  addGauges(gauges: Record<string, { help: string; value: () => number }>): void {
    for (const [name, { help, value }] of Object.entries(gauges)) {
      new Gauge({ name, help, registers: [this.registry], collect() { this.set(value()); } });
    }
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
