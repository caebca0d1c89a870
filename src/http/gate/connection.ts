// One client connection at the gate (gate.ts): reads each request head strictly, forwards one
// request at a time to the app on this connection's own upstream connection (upstream.ts), which
// relays the responses in request order (pipelining, RFC 9112 §9.3.2), and answers malformed input
// itself, then closes.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type net from 'node:net';
import { ChunkedBody } from './chunkedBody.js';
import { isHeadError, MAX_HEAD_BYTES, parseRequestHead } from './requestHead.js';
import { Upstream, type Exchange } from './upstream.js';

/** What the gate must know of a request's route before the app sees it. */
export type GateRoute =
  | { kind: 'app'; bodyLimit: number }
  /** Answered by the gate for the app (a method uWS drops without an answer): 404, or 405 with Allow. */
  | { kind: 'answer'; status: number; detail: string; headers: Record<string, string> };

/** A connection ready for its next request must deliver that request's head within this time. */
const HEAD_TIMEOUT_MS = 5_000;
/** What every response says of it (`Keep-Alive: timeout=5`): clients drop an idle connection before the gate closes it. */
export const KEEP_ALIVE = `timeout=${HEAD_TIMEOUT_MS / 1000}`;
/** A request body that stalls this long is abandoned (408). */
const BODY_IDLE_MS = 10_000;
/** After an error answer, the client's remaining bytes are read and dropped for this long, at most. */
const LINGER_MS = 10_000;
const LINGER_BYTES = 64 * 1024 * 1024;
/** Bytes of pipelined requests held while a response is pending; beyond them reading pauses. */
const MAX_PENDING_BYTES = 1024 * 1024;

const CRLF2 = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);
const CONTINUE = Buffer.from('HTTP/1.1 100 Continue\r\n\r\n');

type Phase = 'head' | 'body' | 'chunked' | 'sent' | 'lingering' | 'closed';

export interface GateConnectionOptions {
  client: net.Socket;
  upstreamPort: number;
  route: (method: string, path: string) => GateRoute;
  /** Told about every request the gate answers itself. */
  onRejected: (status: number, detail: string, remoteAddress: string) => void;
  onClosed: (connection: GateConnection) => void;
}

export class GateConnection {
  private phase: Phase = 'head';
  private inbox: Buffer = EMPTY;
  private scanFrom = 0;
  private deadline = 0;
  private lingered = 0;
  private bodyRemaining = 0;
  private chunked: ChunkedBody | null = null;
  private readonly upstream: Upstream;
  private exchange: Exchange | null = null;
  private shuttingDown = false;
  /** The method of the request being read or answered: an error answer to HEAD has no body. */
  private method = '';
  private readonly client: net.Socket;
  private readonly remoteAddress: string;

  constructor(private readonly options: GateConnectionOptions) {
    this.client = options.client;
    const address = this.client.remoteAddress ?? '';
    this.remoteAddress = address.startsWith('::ffff:') ? address.slice(7) : address;
    this.client.setNoDelay(true);
    this.client.on('data', (chunk: Buffer) => this.onClientData(chunk));
    this.client.on('error', () => undefined); // 'close' follows
    this.client.on('close', () => this.onClientClose());
    this.deadline = Date.now() + HEAD_TIMEOUT_MS;
    this.upstream = new Upstream(options.upstreamPort, this.client, {
      current: () => this.exchange,
      responseDone: (exchange) => this.responseDone(exchange),
      closed: () => this.onUpstreamClose(),
      clientOpen: () => this.phase !== 'closed',
    });
  }

  /** Graceful close: an idle connection closes now, a busy one after its current response. */
  shutdown(): void {
    this.shuttingDown = true;
    if (this.exchange && !this.exchange.response) this.exchange.closeAfter = true;
    if (this.phase === 'head' && this.inbox.length === 0) this.closeQuietly();
  }

  destroy(): void {
    this.client.destroy();
  }

  /** Called about once a second by the gate: enforces the head, body and linger deadlines. */
  checkDeadline(now: number): void {
    if (this.deadline === 0 || now < this.deadline) return;
    if (this.phase === 'head') {
      if (this.inbox.length === 0) this.closeQuietly();
      else this.reject(408, 'The request head did not arrive in time');
    } else if (this.phase === 'body' || this.phase === 'chunked') {
      this.reject(408, 'The request body stalled');
    } else if (this.phase === 'lingering') {
      this.client.destroy();
    }
  }

  private onClientData(chunk: Buffer): void {
    if (this.phase === 'lingering') {
      this.lingered += chunk.length;
      if (this.lingered > LINGER_BYTES) this.client.destroy();
      return;
    }
    if (this.phase === 'closed') return;
    this.inbox = this.inbox.length === 0 ? chunk : Buffer.concat([this.inbox, chunk]);
    if (this.phase === 'body' || this.phase === 'chunked') this.deadline = Date.now() + BODY_IDLE_MS;
    this.pump();
  }

  /** Moves the inbox forward as far as the current phase allows. */
  private pump(): void {
    for (;;) {
      switch (this.phase) {
        case 'head':
          if (!this.readHead()) return;
          break;
        case 'body': {
          const take = Math.min(this.bodyRemaining, this.inbox.length);
          if (take === 0) return;
          this.upstream.send(take === this.inbox.length ? this.inbox : this.inbox.subarray(0, take));
          this.inbox = take === this.inbox.length ? EMPTY : this.inbox.subarray(take);
          this.bodyRemaining -= take;
          if (this.bodyRemaining === 0) this.requestSent();
          break;
        }
        case 'chunked': {
          if (this.inbox.length === 0) return;
          const progress = this.chunked!.feed(this.inbox);
          this.inbox = EMPTY;
          if (progress.kind === 'more') return;
          if (progress.kind === 'invalid') return this.reject(400, progress.detail);
          if (progress.kind === 'too_large') return this.reject(413, this.tooLargeDetail());
          this.inbox = progress.rest;
          this.chunked = null;
          this.upstream.send(`${this.exchange!.head.forwarded}\r\ncontent-length: ${progress.body.length}\r\n\r\n`);
          this.upstream.send(progress.body);
          this.requestSent();
          break;
        }
        case 'sent':
          // A pipelined request waits for the response before it; only so many bytes of them are held.
          if (this.inbox.length > MAX_PENDING_BYTES) this.client.pause();
          return;
        default:
          return;
      }
    }
  }

  /** Parses the next head from the inbox and starts its exchange; false when more bytes are needed. */
  private readHead(): boolean {
    // RFC 9112 §2.2: empty lines before a request line are ignored.
    while (this.inbox.length >= 2 && this.inbox[0] === 0x0d && this.inbox[1] === 0x0a) this.inbox = this.inbox.subarray(2);
    if (this.inbox.length === 0) return false;
    // Known before the head is whole: a head too large for us may be a HEAD's, whose answer has no body.
    if (this.method === '') {
      const space = this.inbox.indexOf(0x20);
      if (space > 0) this.method = this.inbox.toString('latin1', 0, Math.min(space, 32));
    }
    const end = this.inbox.indexOf(CRLF2, this.scanFrom);
    if (end < 0) {
      if (this.inbox.length > MAX_HEAD_BYTES) this.reject(431, 'Request header fields too large');
      else this.scanFrom = Math.max(0, this.inbox.length - 3);
      return false;
    }
    if (end > MAX_HEAD_BYTES) {
      this.reject(431, 'Request header fields too large');
      return false;
    }
    const text = this.inbox.toString('latin1', 0, end);
    const head = parseRequestHead(text, this.remoteAddress);
    this.inbox = this.inbox.subarray(end + 4);
    this.scanFrom = 0;
    if (isHeadError(head)) {
      this.reject(head.status, head.detail);
      return false;
    }
    const route = this.options.route(head.method, head.path);
    if (route.kind === 'answer') {
      this.reject(route.status, route.detail, route.headers);
      return false;
    }
    const limit = route.bodyLimit;
    this.exchange = { head, bodyLimit: limit, closeAfter: !head.keepAlive || this.shuttingDown, response: null, responseRemaining: 0, responseDone: false };
    if (head.contentLength !== undefined && head.contentLength > limit) {
      this.reject(413, this.tooLargeDetail());
      return false;
    }
    const hasBody = head.chunked || (head.contentLength ?? 0) > 0;
    if (hasBody && head.expectContinue) this.client.write(CONTINUE);
    if (head.chunked) {
      this.chunked = new ChunkedBody(limit);
      this.phase = 'chunked';
      this.deadline = Date.now() + BODY_IDLE_MS;
      return true;
    }
    const length = head.contentLength === undefined ? '' : `\r\ncontent-length: ${head.contentLength}`;
    const forwarded = `${head.forwarded}${length}\r\n\r\n`;
    if (!hasBody) {
      this.upstream.send(forwarded);
      this.requestSent();
      return true;
    }
    // Head and the body bytes already here go out in one write.
    const take = Math.min(head.contentLength!, this.inbox.length);
    this.upstream.send(take === 0 ? forwarded : Buffer.concat([Buffer.from(forwarded, 'latin1'), this.inbox.subarray(0, take)]));
    this.inbox = this.inbox.subarray(take);
    this.bodyRemaining = head.contentLength! - take;
    this.phase = 'body';
    this.deadline = Date.now() + BODY_IDLE_MS;
    if (this.bodyRemaining === 0) this.requestSent();
    return true;
  }

  private tooLargeDetail(): string {
    return `Request body is larger than ${this.exchange!.bodyLimit} bytes`;
  }

  private requestSent(): void {
    this.phase = 'sent';
    this.deadline = 0;
    if (this.exchange!.responseDone) this.nextRequest();
  }

  private responseDone(exchange: Exchange): void {
    exchange.responseDone = true;
    if (exchange.response?.close) {
      this.upstream.drop();
      // The rest of this request's body must never reach a new upstream connection as a request.
      if (this.phase !== 'sent') return this.closeQuietly();
    }
    if (this.phase === 'sent') this.nextRequest();
    // Otherwise the app answered before reading the whole body (404, 405): the body is still
    // forwarded (the app skips it), and the next request follows once it is through.
  }

  private nextRequest(): void {
    const closeAfter = this.exchange!.closeAfter || this.shuttingDown;
    this.exchange = null;
    if (closeAfter) return this.closeQuietly();
    this.phase = 'head';
    this.method = '';
    this.deadline = Date.now() + HEAD_TIMEOUT_MS;
    if (this.client.isPaused()) this.client.resume();
    this.pump();
  }

  /** The app closed this connection's upstream connection. */
  private onUpstreamClose(): void {
    const exchange = this.exchange;
    // While a chunked body is read nothing of it was forwarded yet: the next write reconnects.
    if (!exchange || this.phase === 'chunked') return;
    if (exchange.responseDone) return void (this.phase === 'body' && this.closeQuietly());
    if (exchange.response && exchange.responseRemaining < 0) return this.responseDone(exchange);
    // The app went away mid-exchange: an answer if nothing of the response was relayed yet.
    if (exchange.response) this.client.destroy();
    else this.reject(502, 'The application closed the connection');
  }

  /** Answers with an error and closes: the client's remaining bytes are read and dropped first. */
  private reject(status: number, detail: string, headers: Record<string, string> = {}): void {
    if (this.phase === 'lingering' || this.phase === 'closed') return;
    this.options.onRejected(status, detail, this.remoteAddress);
    if (this.exchange?.response) return void this.client.destroy();
    const body = JSON.stringify({ detail });
    const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    // A response to HEAD has no content (RFC 9110 §9.3.2), only the length the GET answer would have.
    this.client.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nX-Request-Id: ${randomUUID()}\r\n${extra}Content-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${this.method === 'HEAD' ? '' : body}`,
    );
    this.linger();
  }

  private closeQuietly(): void {
    if (this.phase === 'lingering' || this.phase === 'closed') return;
    this.linger();
  }

  /**
   * Half-closes and keeps reading for a bounded time and size (as nginx's lingering close): a
   * close with unread bytes makes the kernel reset the connection, which can destroy the answer
   * before the client has read it.
   */
  private linger(): void {
    this.phase = 'lingering';
    this.inbox = EMPTY;
    this.chunked = null;
    this.deadline = Date.now() + LINGER_MS;
    this.upstream.drop();
    this.client.resume();
    this.client.end();
  }

  private onClientClose(): void {
    this.phase = 'closed';
    this.deadline = 0;
    this.upstream.drop();
    this.options.onClosed(this);
  }
}
