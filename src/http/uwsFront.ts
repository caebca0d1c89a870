// The HTTP front on uWebSockets.js: uWS reads and parses each request itself (keep-alive,
// pipelining, chunked bodies, Expect: 100-continue), and the request goes from its callback to the
// route. What uWS does not answer (a malformed head, HTTP/1.0 without Host, a head over its size)
// it drops with the connection after its idle timeout; docs/operations.md says what to put in front
// of it for direct exposure, or to choose the node:http front.
import { STATUS_CODES } from 'node:http';
import type uWS from 'uWebSockets.js';
import type { Exchange, HttpFront, Outgoing, RequestHandler } from './handler.js';

type UwsModule = typeof uWS;
const statusLine = (status: number) => `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
/** How often a closing front looks whether its last requests are answered. */
const DRAIN_POLL_MS = 20;

export class UwsFront implements HttpFront {
  readonly kind = 'uws' as const;
  private readonly app: uWS.TemplatedApp;
  private listenSocket: uWS.us_listen_socket | null = null;
  private inFlight = 0;

  constructor(
    private readonly uws: UwsModule,
    private readonly handler: RequestHandler,
  ) {
    this.app = uws.App();
    this.app.any('/*', (res, req) => this.onRequest(res, req));
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (socket) => {
        if (!socket) return reject(new Error(`cannot listen on ${host}:${port}`));
        this.listenSocket = socket;
        resolve(this.uws.us_socket_local_port(socket as unknown as uWS.us_socket));
      });
    });
  }

  /** Stops accepting, lets in-flight requests finish (up to graceMs), then closes every connection. */
  async close(graceMs: number): Promise<void> {
    if (this.listenSocket) this.uws.us_listen_socket_close(this.listenSocket);
    this.listenSocket = null;
    const until = Date.now() + graceMs;
    while (this.inFlight > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    (this.app as unknown as { close(): void }).close();
  }

  private onRequest(res: uWS.HttpResponse, req: uWS.HttpRequest): void {
    // Everything of `req` is read now: it is invalid once this function returns.
    const headers: Record<string, string> = {};
    req.forEach((key, value) => {
      headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
    });
    const exchange = this.handler.begin({
      method: req.getCaseSensitiveMethod().toUpperCase(),
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      headers,
      remoteAddress: addressText(Buffer.from(res.getRemoteAddressAsText()).toString()),
    });
    const state = { aborted: false };
    res.onAborted(() => {
      state.aborted = true;
    });
    this.inFlight++;
    // uWS answers a client's pipelined requests after a Connection: close one unless told to close.
    const clientCloses = /(?:^|,)\s*close\s*(?:,|$)/i.test(headers.connection ?? '');
    const send = (out: Outgoing) => {
      this.inFlight--;
      if (!state.aborted) write(res, out, clientCloses);
    };
    if (!exchange.hasBody) {
      exchange.answer(EMPTY).then(send);
      return;
    }
    readBody(res, exchange, (body) => (body ? exchange.answer(body).then(send) : send(exchange.tooLarge())));
  }
}

const EMPTY = Buffer.alloc(0);

function write(res: uWS.HttpResponse, out: Outgoing, clientCloses: boolean): void {
  res.cork(() => {
    res.writeStatus(statusLine(out.status));
    for (const name in out.headers) res.writeHeader(name, out.headers[name]);
    if (out.headOnly) {
      // uWS writes no Content-Length for an answer without content: the length the content would have.
      if (out.body !== undefined) res.writeHeader('Content-Length', String(Buffer.byteLength(out.body)));
      // (This build of uWS takes endWithoutBody's arguments badly: none are given.)
      res.endWithoutBody();
    } else if (out.close) {
      // A refused body (413): uWS reads and drops the rest of it, and the client, told to close,
      // reads the answer first; closing at once would reset the connection under the client's
      // writes and could take the answer with it.
      res.writeHeader('Connection', 'close');
      res.end(out.body, clientCloses);
    } else res.end(out.body, clientCloses);
  });
}

/**
 * Reads a body of at most the route's limit; `done` gets it, or null past the limit. uWS reuses a
 * chunk's memory after its callback: each is copied once, into a buffer of the declared length
 * where there is one (a copy per chunk joined at the end copied a bulk body twice).
 */
function readBody(res: uWS.HttpResponse, exchange: Exchange, done: (body: Buffer | null) => void): void {
  const declared = exchange.declaredLength();
  if (declared === null) return done(null);
  const body = declared !== undefined && declared > 0 ? Buffer.allocUnsafe(declared) : null;
  const chunks: Buffer[] = [];
  let size = 0;
  let failed = false;
  res.onData((chunk, isLast) => {
    if (failed) return;
    const bytes = new Uint8Array(chunk);
    if (size + bytes.length > exchange.bodyLimit || (body && size + bytes.length > body.length)) {
      failed = true;
      return done(null);
    }
    if (body) body.set(bytes, size);
    else chunks.push(Buffer.from(bytes));
    size += bytes.length;
    if (isLast) done(body ? body.subarray(0, size) : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  });
}

/** uWS writes an IPv4 client of a dual-stack socket in its IPv6 form (…:ffff:7f00:0001): as node:http does, as dotted IPv4. */
function addressText(text: string): string {
  const mapped = /^(?:0{1,4}:){5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(text);
  if (!mapped) return text;
  const [high, low] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
