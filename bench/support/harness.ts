// The lifecycle of a benchmark's main process (everything it starts registers its undo, which runs
// once, in reverse, on every way out: done, failed, Ctrl-C, SIGTERM, over its time budget), and
// what every benchmark reads and prints the same way.
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';

export type Undo = (step: () => Promise<void> | void) => void;

export function runBench(name: string, budgetMs: number, main: (undo: Undo) => Promise<number>): void {
  const steps: (() => Promise<void> | void)[] = [];
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const step of steps.reverse()) {
        try {
          await step();
        } catch (error) {
          console.error('cleanup:', error instanceof Error ? error.message : error);
        }
      }
    })());
  let signalled = false;
  const exitAfterCleanup = (code: number) => {
    // Every step bounds itself (children are killed after a grace period); this is the last resort.
    setTimeout(() => process.exit(code), 30_000).unref();
    void cleanup().finally(() => process.exit(code));
  };
  const fail = (error: unknown) => {
    // Once stopped by a signal, what fails as its children go away is no news.
    if (!signalled) console.error(error instanceof Error ? error.stack ?? error.message : error);
    exitAfterCleanup(1);
  };
  const onSignal = (code: number) => () => {
    signalled = true;
    exitAfterCleanup(code);
  };
  process.once('SIGINT', onSignal(130));
  process.once('SIGTERM', onSignal(143));
  // Never exit without the cleanup, whatever escapes.
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  setTimeout(() => {
    console.error(`${name} did not finish within ${Math.round(budgetMs / 1000)} s; giving up`);
    exitAfterCleanup(1);
  }, budgetMs).unref();

  main((step) => void steps.push(step)).then(exitAfterCleanup, fail);
}

export function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    console.error(`${name}=${JSON.stringify(raw)} must be a positive integer`);
    process.exit(2);
  }
  return Number(raw);
}

export function fmt(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

/** BENCH_CPU_PROF=<dir>: node options that make a kcs process write a V8 CPU profile into <dir>/<name> as it exits. */
export const cpuProfileArgs = (name: string): string[] =>
  process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(resolve(process.env.BENCH_CPU_PROF), name)}`] : [];

/** Says so when other processes took over a tenth of a core during a run (`other` of a CPU meter). */
export function noteOtherLoad(cpus: Record<string, number>[]): void {
  const busiest = Math.max(0, ...cpus.map((cpu) => cpu.other ?? 0));
  if (busiest <= 0.1) return;
  console.log(
    `\nnote: other processes took up to ${(busiest * 100).toFixed(0)}% of a core (of ${availableParallelism()}) during a run: ` +
      'these are not the figures of an otherwise idle machine',
  );
}

export interface Timing {
  p50: number;
  p99: number;
  max: number;
  /** Operations per second, run one after another. */
  rate: number;
}

/** Nearest-rank percentiles of per-operation times (ms) measured one after another over `wallMs`. */
export function summarize(times: number[], wallMs: number): Timing {
  const sorted = Float64Array.from(times).sort();
  const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] : NaN);
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN, rate: times.length / (wallMs / 1000) };
}

/** Times `op` `count` times one after another, after `warmup` untimed calls. */
export async function timeSequential(op: () => Promise<unknown>, count: number, warmup = 0): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await op();
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await op();
    times.push(performance.now() - t);
  }
  return summarize(times, performance.now() - started);
}
