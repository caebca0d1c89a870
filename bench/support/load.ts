// One autocannon run from the benchmark's main process, with latencies collected at sub-millisecond
// resolution over the 2xx responses (autocannon's own histogram keeps whole milliseconds), the
// responses by status, and the CPU each watched process used meanwhile.
import autocannon from 'autocannon';
import { cpuMeter } from './proc.js';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Responses by status code. */
  statuses: Record<number, number>;
  /** CPU time per wall second (1.0 = one core) by process, where /proc tells; `other` is the rest of the machine. */
  cpu: Record<string, number>;
}

export async function load(options: autocannon.Options, watched: Record<string, number | undefined>): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const meter = cpuMeter(watched);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ timeout: 10, ...options }, (error, res) => (error ? reject(error) : resolve(res)));
    instance.on('response', (_client, status, _bytes, ms) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
  const { cores } = meter();

  latencies.sort((a, b) => a - b);
  const pct = (q: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] : NaN);
  return {
    rps: result['2xx'] / result.duration,
    p50: pct(0.5),
    p99: pct(0.99),
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses,
    cpu: cores,
  };
}

export const formatCpu = (cpu: Record<string, number>) =>
  Object.entries(cpu).map(([name, cores]) => `${name} ${(cores * 100).toFixed(0)}%`).join(', ');

/** Each process's CPU seconds as µs per product over `products`. */
export const formatCpuPerProduct = (cpu: Record<string, number>, products: number) =>
  Object.entries(cpu).map(([name, s]) => `${name} ${((s / products) * 1e6).toFixed(1)} µs`).join(', ');
