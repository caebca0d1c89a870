// A gate connection's link to the app (connection.ts): one loopback connection, opened for the
// first request and again after the app closed one. It forwards request bytes, pausing the client
// while the app is behind, and relays each response to the client: the head read and given the
// connection semantics of this client, the body counted to its end, the app paused while the
// client is behind.
import net from 'node:net';
import type { RequestHead } from './requestHead.js';
import { readResponseHead, type ResponseFraming } from './responseHead.js';

const MAX_RESPONSE_HEAD_BYTES = 64 * 1024;
const CRLF2 = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);

/** One request of a connection and the response to it. */
export interface Exchange {
  head: RequestHead;
  bodyLimit: number;
  closeAfter: boolean;
  response: ResponseFraming | null;
  /** Body bytes of the response still to relay; -1 until the upstream closes. */
  responseRemaining: number;
  responseDone: boolean;
}

/** What the link tells its connection, and asks of it. */
export interface UpstreamEvents {
  /** The exchange whose response the app sends now (null: none). */
  current(): Exchange | null;
  /** The response of `exchange` is relayed in full. */
  responseDone(exchange: Exchange): void;
  /** The app closed the connection (or it failed). */
  closed(): void;
  /** Whether the client is still connected: reading it resumes only then. */
  clientOpen(): boolean;
}

export class Upstream {
  private socket: net.Socket | null = null;
  /** The bytes of a response head that arrived in parts. */
  private head: Buffer = EMPTY;
  private drainPending = false;
  private clientDrainPending = false;

  constructor(
    private readonly port: number,
    private readonly client: net.Socket,
    private readonly events: UpstreamEvents,
  ) {}

  /** Forwards request bytes; strings are heads: latin1, so header bytes pass through unchanged. */
  send(data: Buffer | string): void {
    this.socket ??= this.connect();
    if (this.socket.write(data, 'latin1') || this.drainPending) return;
    // Backpressure: stop reading the client until the app has taken the body so far.
    this.drainPending = true;
    this.client.pause();
    this.socket.once('drain', () => {
      this.drainPending = false;
      if (this.events.clientOpen()) this.client.resume();
    });
  }

  /** Closes the connection to the app; the next request opens a new one. */
  drop(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private connect(): net.Socket {
    const socket = net.connect(this.port, '127.0.0.1');
    this.drainPending = false;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(socket, chunk));
    socket.on('error', () => undefined); // 'close' follows
    socket.on('close', () => this.onClose(socket));
    return socket;
  }

  private onData(socket: net.Socket, chunk: Buffer): void {
    const exchange = this.events.current();
    if (socket !== this.socket || !exchange || exchange.responseDone) return void socket.destroy();
    let body = chunk;
    if (!exchange.response) {
      const buffered = this.head.length === 0 ? chunk : Buffer.concat([this.head, chunk]);
      const end = buffered.indexOf(CRLF2);
      if (end < 0) {
        this.head = buffered;
        if (buffered.length > MAX_RESPONSE_HEAD_BYTES) this.client.destroy();
        return;
      }
      this.head = EMPTY;
      const framing = readResponseHead(buffered.toString('latin1', 0, end), exchange.head.method);
      exchange.response = framing;
      exchange.responseRemaining = framing.bodyLength;
      if (framing.bodyLength < 0 || framing.close) exchange.closeAfter = true;
      body = this.writeResponseHead(socket, buffered, end, exchange);
    }
    if (body.length > 0 && exchange.responseRemaining !== 0) {
      const take = exchange.responseRemaining < 0 ? body.length : Math.min(body.length, exchange.responseRemaining);
      this.writeClient(take === body.length ? body : body.subarray(0, take), socket);
      if (exchange.responseRemaining > 0) exchange.responseRemaining -= take;
    }
    if (exchange.responseRemaining === 0) this.events.responseDone(exchange);
  }

  /**
   * Relays the response head, adding the connection semantics this client gets from the gate;
   * returns the body bytes of `buffered` still to relay.
   */
  private writeResponseHead(socket: net.Socket, buffered: Buffer, end: number, exchange: Exchange): Buffer {
    const framing = exchange.response!;
    const rest = buffered.subarray(end + 4);
    let connection = '';
    if (exchange.closeAfter && !framing.close) connection = '\r\nConnection: close';
    else if (!exchange.closeAfter && exchange.head.http10) connection = '\r\nConnection: keep-alive';
    if (connection === '' && (framing.bodyLength < 0 || rest.length <= framing.bodyLength)) {
      // The common case: head and body in one read, relayed as they are.
      this.writeClient(buffered, socket);
      if (framing.bodyLength > 0) exchange.responseRemaining -= rest.length;
      return EMPTY;
    }
    this.writeClient(Buffer.concat([buffered.subarray(0, end), Buffer.from(`${connection}\r\n\r\n`, 'latin1')]), socket);
    return rest;
  }

  /** Writes to the client; while its buffer is full the app is not read. */
  private writeClient(data: Buffer, socket: net.Socket): void {
    if (this.client.write(data) || this.clientDrainPending) return;
    this.clientDrainPending = true;
    socket.pause();
    this.client.once('drain', () => {
      this.clientDrainPending = false;
      socket.resume();
    });
  }

  private onClose(socket: net.Socket): void {
    if (socket !== this.socket) return;
    this.socket = null;
    this.head = EMPTY;
    this.events.closed();
  }
}
