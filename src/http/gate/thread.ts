// The gate (gate.ts) on a thread of its own: relaying bytes costs about as much CPU per request as
// the app's pipeline, and on its own event loop it runs on a second core instead of taking turns
// with the app (bench:http). A thread that dies is started again on the same port.
import { Worker } from 'node:worker_threads';
import type { RouteLimit } from './routes.js';

export interface GateThreadData {
  host: string;
  port: number;
  upstreamPort: number;
  routes: RouteLimit[];
  defaultBodyLimit: number;
}

export type GateThreadMessage =
  | { type: 'listening'; port: number }
  | { type: 'failed'; message: string }
  | { type: 'rejected'; status: number; detail: string; remoteAddress: string }
  | { type: 'closed' };

export interface GateThreadOptions extends GateThreadData {
  onRejected: (status: number, detail: string, remoteAddress: string) => void;
  /** The thread ended unasked (a bug in the gate): it is started again. */
  onCrashed: (error: Error) => void;
}

export class GateThread {
  private worker!: Worker;
  private closing = false;
  private closed: (() => void) | null = null;

  constructor(private readonly options: GateThreadOptions) {}

  /** Starts the thread; the public port once the gate listens. */
  listen(port = this.options.port): Promise<number> {
    const { onRejected, onCrashed, ...data } = this.options;
    const worker = (this.worker = new Worker(new URL('./worker.mjs', import.meta.url), { workerData: { ...data, port } }));
    return new Promise((resolve, reject) => {
      let listening = 0;
      worker.on('message', (message: GateThreadMessage) => {
        if (message.type === 'listening') {
          listening = message.port;
          resolve(message.port);
        } else if (message.type === 'failed') reject(new Error(message.message));
        else if (message.type === 'rejected') onRejected(message.status, message.detail, message.remoteAddress);
        else this.closed?.();
      });
      let failure: Error | null = null;
      worker.on('error', (error) => (failure = error));
      worker.once('exit', (code) => {
        const error = failure ?? new Error(`the gate thread exited (${code})`);
        if (!listening) return reject(error);
        if (this.closing) return;
        onCrashed(error);
        // Its port is free again: the same one, so clients keep their address.
        this.listen(listening).catch(onCrashed);
      });
    });
  }

  /** The gate's graceful close (Gate.close), then the thread ends. */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    // A thread that already ended (its restart failed) would never answer nor exit again.
    if (this.worker.threadId === -1) return;
    const closed = new Promise<void>((resolve) => (this.closed = resolve));
    this.worker.postMessage({ type: 'close', graceMs });
    await Promise.race([closed, new Promise((resolve) => this.worker.once('exit', resolve))]);
    await this.worker.terminate();
  }
}
