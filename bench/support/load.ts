// One autocannon run from the benchmark's main process, with latencies collected at sub-millisecond
// resolution over the 2xx responses (autocannon's own histogram keeps whole milliseconds), the
// responses by status, and the CPU each watched process used meanwhile.
import autocannon from 'autocannon';
import { fmt } from './harness.js';
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

/** The figures of a run on one line. */
export const describeLoad = (r: LoadResult) =>
  `${fmt(r.rps, 0).padStart(7)} req/s  p50 ${fmt(r.p50, 3)} ms  p99 ${fmt(r.p99, 3)} ms  non-2xx ${r.non2xx}  errors ${r.errors}  (CPU ${formatCpu(r.cpu)})`;

/** A warm-up run (not counted), then the measured run, printed as `label` and its figures. */
export async function warmThenLoad(label: string, options: autocannon.Options, warmupSeconds: number, seconds: number, watched: Record<string, number | undefined>): Promise<LoadResult> {
  await load({ ...options, duration: warmupSeconds }, {});
  const result = await load({ ...options, duration: seconds }, watched);
  console.log(`${label} ${describeLoad(result)}`);
  return result;
}
