// The HTTP front on node:http: Node's llhttp reads and parses each request (HTTP/1.0 and 1.1,
// keep-alive, pipelining, chunked bodies, Expect), with bounds on the head's size and on the time a
// head and a whole request may take; a request it cannot parse is answered here, as kcs answers
// errors, and the connection closed. The choice for direct exposure (docs/operations.md).
import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { KEEP_ALIVE_S, type Exchange, type HttpFront, type Outgoing, type RequestHandler } from './handler.js';

/** Bytes of a request head (request line and fields). */
export const MAX_HEAD_BYTES = 8192;
/** A connection's next request head must arrive within this time (408 after). */
const HEAD_TIMEOUT_MS = 10_000;
/** A whole request, its body included, within this time (408 after): a 32 MiB bulk body at ~0.3 MiB/s. */
const REQUEST_TIMEOUT_MS = 120_000;
/** After a 413 the rest of the body is read and dropped for this long, at most, so that the client reads the answer before the close. */
const LINGER_MS = 5_000;
const EMPTY = Buffer.alloc(0);

export class NodeFront implements HttpFront {
  readonly kind = 'node' as const;
  private readonly server: Server;
  private inFlight = 0;

  constructor(private readonly handler: RequestHandler) {
    this.server = createServer(
      {
        maxHeaderSize: MAX_HEAD_BYTES,
        headersTimeout: HEAD_TIMEOUT_MS,
        requestTimeout: REQUEST_TIMEOUT_MS,
        keepAliveTimeout: KEEP_ALIVE_S * 1000,
        connectionsCheckingInterval: 1000,
        joinDuplicateHeaders: true,
        // Answered below as kcs answers errors (Node's own 400 has no body).
        requireHostHeader: false,
      },
      (req, res) => this.onRequest(req, res),
    );
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => this.refuse(error, socket));
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const address = this.server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  /** Stops accepting, lets in-flight requests finish (up to graceMs), then closes every connection. */
  async close(graceMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const until = Date.now() + graceMs;
    while (this.inFlight > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    this.server.closeAllConnections();
    await closed;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const target = req.url ?? '/';
    // An absolute-form target (a proxy's) names the host itself (RFC 9112 §3.2.2).
    const absolute = /^https?:\/\/([^/?#]*)([^#]*)/i.exec(target);
    const pathAndQuery = absolute ? absolute[2] || '/' : target;
    const mark = pathAndQuery.indexOf('?');
    const headers = req.headers as Record<string, string>;
    if (absolute) headers.host = absolute[1];
    const exchange = this.handler.begin({
      method: req.method ?? 'GET',
      path: mark < 0 ? pathAndQuery : pathAndQuery.slice(0, mark),
      query: mark < 0 ? '' : pathAndQuery.slice(mark + 1),
      headers,
      remoteAddress: addressText(req.socket.remoteAddress ?? ''),
    });
    if (req.httpVersion === '1.1' && headers.host === undefined) {
      // RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request without Host.
      write(res, exchange.refuse(400, 'Bad request: an HTTP/1.1 request names its Host'));
      return void req.resume();
    }
    this.inFlight++;
    const send = (out: Outgoing) => {
      this.inFlight--;
      write(res, out);
    };
    if (!exchange.hasBody) {
      req.resume();
      exchange.answer(EMPTY).then(send);
      return;
    }
    readBody(req, exchange, (body) => {
      if (body) return void exchange.answer(body).then(send);
      send(exchange.tooLarge());
      linger(req);
    });
  }

  /** A request llhttp could not parse (or that timed out): answered as kcs answers errors, then the connection closes. */
  private refuse(error: NodeJS.ErrnoException, socket: Duplex): void {
    const inProgress = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) return void socket.destroy();
    const [status, detail] = refusal(error.code, (error as { rawPacket?: Buffer }).rawPacket);
    const body = JSON.stringify({ detail });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
    this.handler.refused(status, detail);
  }
}

/** The status and detail of a request llhttp refused, by its error code (and its request line). */
function refusal(code: string | undefined, raw: Buffer | undefined): [number, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, `Request header fields too large (at most ${MAX_HEAD_BYTES} bytes of head)`];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request timeout: the request did not arrive in time'];
    case 'HPE_INVALID_VERSION':
      // A well-formed version that is not 1.x is unsupported; anything else is malformed.
      if (raw && /^[!-~]+ [!-~]+ HTTP\/\d\.\d\r?\n/.test(raw.toString('latin1', 0, 200))) return [505, 'HTTP version not supported: send HTTP/1.1 or HTTP/1.0'];
      return [400, 'Bad request: a malformed request line'];
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return [400, 'Bad request: conflicting or malformed message framing (Content-Length, Transfer-Encoding)'];
    default:
      return [400, `Bad request: the request could not be parsed (${code ?? 'malformed'})`];
  }
}

function write(res: ServerResponse, out: Outgoing): void {
  if (res.destroyed) return;
  const headers: Record<string, string> = out.headers;
  if (out.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(out.body));
  else if (!out.headOnly && out.status !== 204 && out.status !== 304) headers['Content-Length'] = '0';
  if (out.close) headers.Connection = 'close';
  res.writeHead(out.status, headers);
  // Node writes no content for HEAD itself; the length above says what GET would carry.
  res.end(out.headOnly ? undefined : out.body);
}

/** Reads a body of at most the route's limit; `done` gets it, or null past the limit. */
function readBody(req: IncomingMessage, exchange: Exchange, done: (body: Buffer | null) => void): void {
  const declared = exchange.declaredLength();
  if (declared === null) return done(null);
  const chunks: Buffer[] = [];
  let size = 0;
  let failed = false;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > exchange.bodyLimit) {
      failed = true;
      req.off('data', onData);
      return done(null);
    }
    chunks.push(chunk);
  };
  req.on('data', onData);
  req.on('end', () => {
    if (!failed) done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  });
  req.on('error', () => undefined);
}

/** Reads and drops what is left of a refused body for a while, so that the client reads the 413 before the connection goes. */
function linger(req: IncomingMessage): void {
  req.resume();
  const timer = setTimeout(() => req.socket.destroy(), LINGER_MS);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
}

/** An IPv4 client of a dual-stack socket (::ffff:127.0.0.1) as dotted IPv4, as a client knows its address. */
const addressText = (text: string) => (text.startsWith('::ffff:') && text.includes('.') ? text.slice(7) : text);
