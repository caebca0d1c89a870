// Benchmark targets run in their own processes, so that the load generator never shares their
// event loop. A child announces itself over IPC with one `{ type: 'ready', ... }` message and
// stops on `{ type: 'stop' }` or when the channel to its parent closes (the parent died).
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

type Message = { type: 'ready' } & Record<string, unknown>;

/** Parent side: one forked child and its ready message. */
export class ChildTarget<R extends Message> {
  readonly proc: ChildProcess;
  readonly ready: Promise<R>;
  private exited: Promise<void>;

  constructor(
    readonly name: string,
    entry: URL,
    env: Record<string, string> = {},
    timeoutMs = 30_000,
    /** Node options of the child on top of this process's own (e.g. --cpu-prof). */
    execArgv: string[] = [],
  ) {
    // The child gets process.execArgv, i.e. tsx's loader: the entry may be TypeScript.
    this.proc = fork(fileURLToPath(entry), [], {
      execArgv: [...process.execArgv, ...execArgv],
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.exited = new Promise((resolve) => {
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) resolve();
      else this.proc.once('exit', () => resolve());
    });
    this.ready = new Promise<R>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.proc.off('message', onMessage);
        this.proc.off('exit', onExit);
        this.proc.off('error', onError);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${name}: not ready after ${timeoutMs} ms`));
      }, timeoutMs);
      const onMessage = (message: unknown) => {
        const m = message as { type?: string; message?: string };
        if (m?.type === 'ready') {
          done();
          resolve(m as R);
        } else if (m?.type === 'error') {
          done();
          reject(new Error(`${name}: ${m.message}`));
        }
      };
      const onExit = (code: number | null, signal: string | null) => {
        done();
        reject(new Error(`${name}: exited before it was ready (${signal ?? `code ${code}`})`));
      };
      const onError = (error: Error) => {
        done();
        reject(new Error(`${name}: ${error.message}`));
      };
      this.proc.on('message', onMessage);
      this.proc.once('exit', onExit);
      this.proc.once('error', onError);
    });
    this.ready.catch(() => undefined); // the caller awaits it; never an unhandled rejection here
  }

  /** Asks the child to stop; kills it when it has not exited after graceMs. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    if (this.proc.connected) {
      this.proc.send({ type: 'stop' }, () => undefined);
    } else {
      this.proc.kill('SIGTERM');
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      this.exited.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      this.proc.kill('SIGKILL');
      await this.exited;
    }
  }
}

/**
 * Child side: runs `start`, reports its ready message, and runs the returned close function once
 * on stop, on a lost parent, or on SIGTERM/SIGINT, then exits.
 */
export function runChild(start: () => Promise<{ ready: Record<string, unknown>; close: () => Promise<void> }>): void {
  if (!process.send) {
    console.error('this file is a benchmark child process; run the benchmark instead (npm run bench:http)');
    process.exit(2);
  }
  let close: (() => Promise<void>) | null = null;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    const watchdog = setTimeout(() => process.exit(code || 1), 5_000);
    watchdog.unref();
    try {
      await close?.();
    } catch (error) {
      console.error(error);
      code ||= 1;
    }
    process.exit(code);
  };
  process.on('message', (message) => {
    if ((message as { type?: string })?.type === 'stop') void stop(0);
  });
  process.on('disconnect', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));

  start().then(
    (started) => {
      close = started.close;
      process.send!({ type: 'ready', ...started.ready });
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.stack ?? error.message : String(error);
      process.send!({ type: 'error', message }, () => process.exit(1));
    },
  );
}
