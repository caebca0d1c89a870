// The gate: the public listener in front of the uWS app. uWS (20.30, and its core to this day)
// closes a connection on a pipelined request to an async route, holds malformed or HTTP/1.0 input
// until its idle timeout without an answer, accepts conflicting Content-Length values, and closes
// with unread body bytes (the kernel then resets the connection and the 413 is lost). The gate
// owns the client connections, answers or refuses every request itself, and hands the app only
// well-formed HTTP/1.1 requests, one at a time per connection (connection.ts).
import net from 'node:net';
import { GateConnection, type GateRoute } from './connection.js';

export interface GateOptions {
  /** The app's private port on 127.0.0.1. */
  upstreamPort: number;
  /** The route a request goes to: the app with its body limit, or an answer of the gate's own. */
  route: (method: string, path: string) => GateRoute;
  onRejected: (status: number, detail: string, remoteAddress: string) => void;
}

/** Deadlines (head, stalled body, lingering close) are checked this often. */
const SWEEP_MS = 1000;

export class Gate {
  private readonly server: net.Server;
  private readonly connections = new Set<GateConnection>();
  private readonly sweeper: NodeJS.Timeout;
  private allClosed: (() => void) | null = null;

  constructor(private readonly options: GateOptions) {
    this.server = net.createServer({ noDelay: true }, (client) => this.accept(client));
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const connection of this.connections) connection.checkDeadline(now);
    }, SWEEP_MS);
    this.sweeper.unref();
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as net.AddressInfo).port);
      });
    });
  }

  /**
   * Stops accepting; idle connections close now, busy ones after their current response; after
   * graceMs whatever is left is cut.
   */
  async close(graceMs: number): Promise<void> {
    this.server.close();
    for (const connection of this.connections) connection.shutdown();
    if (this.connections.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.allClosed = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    for (const connection of this.connections) connection.destroy();
    clearInterval(this.sweeper);
  }

  private accept(client: net.Socket): void {
    const connection = new GateConnection({
      client,
      upstreamPort: this.options.upstreamPort,
      route: this.options.route,
      onRejected: this.options.onRejected,
      onClosed: (closed) => {
        this.connections.delete(closed);
        if (this.connections.size === 0) this.allClosed?.();
      },
    });
    this.connections.add(connection);
  }
}
