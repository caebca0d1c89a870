// The lifecycle of a benchmark's main process: everything it starts registers its undo, which runs
// once, in reverse, on every way out (done, failed, Ctrl-C, SIGTERM, over its time budget).
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
  // Bounded even if something hangs.
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
