// One autocannon run from the benchmark's main process, with latencies collected at sub-millisecond
// resolution over the 2xx responses (autocannon's own histogram keeps whole milliseconds), the
// responses by status, and the CPU each watched process used meanwhile. Given a drain, a run ends
// only once the server has answered what it left queued, so that no run spills into the next.
import { setTimeout as delay } from 'node:timers/promises';
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
  /** Seconds from the run's end until the server answered at its idle speed again (0 without a drain). */
  drainS: number;
  /** The server still answered slowly when the drain gave up. */
  undrained: boolean;
}

/** The most a drain waits after a run. */
const DRAIN_LIMIT_MS = 30_000;

/** After a run, waits until the server answers at its idle speed again: the seconds waited, and whether it got there. */
export type Drain = () => Promise<{ seconds: number; drained: boolean }>;

/**
 * A drain probing with `send` (one request, rejecting past `timeoutMs`): its idle time is the best
 * of five now; after a run it is sent again until it answers within twice that (+1 ms), for at
 * most 30 s. The first probe after a run queues behind what the run left.
 */
export async function drainer(send: (timeoutMs: number) => Promise<unknown>): Promise<Drain> {
  const time = async (timeoutMs: number) => {
    const t = performance.now();
    await send(timeoutMs);
    return performance.now() - t;
  };
  let idle = Infinity;
  for (let i = 0; i < 5; i++) idle = Math.min(idle, await time(DRAIN_LIMIT_MS));
  return async () => {
    const started = performance.now();
    for (;;) {
      const left = DRAIN_LIMIT_MS - (performance.now() - started);
      if (left <= 0) return { seconds: DRAIN_LIMIT_MS / 1000, drained: false };
      if ((await time(left).catch(() => Infinity)) <= 2 * idle + 1) return { seconds: (performance.now() - started) / 1000, drained: true };
      await delay(100);
    }
  };
}

export async function load(options: autocannon.Options, watched: Record<string, number | undefined>, drain?: Drain): Promise<LoadResult> {
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
  const drained = drain ? await drain() : { seconds: 0, drained: true };

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
    drainS: drained.seconds,
    undrained: !drained.drained,
  };
}

export const formatCpu = (cpu: Record<string, number>) =>
  Object.entries(cpu).map(([name, cores]) => `${name} ${(cores * 100).toFixed(0)}%`).join(', ');

/** The figures of a run on one line. */
export const describeLoad = (r: LoadResult) =>
  `${fmt(r.rps, 0).padStart(7)} req/s  p50 ${fmt(r.p50, 3)} ms  p99 ${fmt(r.p99, 3)} ms  non-2xx ${r.non2xx}  errors ${r.errors}  (CPU ${formatCpu(r.cpu)})` +
  (r.undrained ? `  still queued ${fmt(r.drainS, 0)} s after` : r.drainS >= 0.5 ? `  drained in ${fmt(r.drainS, 1)} s` : '');

/** A warm-up run (not counted), then the measured run, printed as `label` and its figures; each drained when a drain is given. */
export async function warmThenLoad(label: string, options: autocannon.Options, warmupSeconds: number, seconds: number, watched: Record<string, number | undefined>, drain?: Drain): Promise<LoadResult> {
  await load({ ...options, duration: warmupSeconds }, {}, drain);
  const result = await load({ ...options, duration: seconds }, watched, drain);
  console.log(`${label} ${describeLoad(result)}`);
  return result;
}
