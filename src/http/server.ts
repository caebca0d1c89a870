// The HTTP front end on uWebSockets.js: routing, bounded body reading, the request pipeline,
// error mapping, X-Request-Id, request logs, metrics, and a graceful close.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import uWS from 'uWebSockets.js';
import type { Logger } from '../log.js';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError, PreconditionFailedError } from '../domain/errors.js';
import { CORS_HEADERS } from './cors.js';
import { ErrorWithHeaders } from './errorWithHeaders.js';
import { HttpError } from './errors.js';
import { GateThread } from './gate/thread.js';
import type { HttpMetrics } from './metrics.js';
import { JSON_BODY_LIMIT, type IncomingRequest, type Reply, type Route } from './route.js';
import { KEEP_ALIVE } from './gate/connection.js';
import { CLIENT_ADDRESS_HEADER } from './gate/requestHead.js';
import { Router, type Match } from './router.js';

/** Runs one matched request to its reply (tenant, auth, validation, handler: see pipeline.ts). */
export type Dispatch = (route: Route, params: Record<string, string>, req: IncomingRequest) => Promise<Reply>;

export interface HttpServerOptions {
  routes: Route[];
  dispatch: Dispatch;
  log: Logger;
  metrics: HttpMetrics;
  /** Whether an error means the data store cannot be reached (503 + Retry-After, not a 500). */
  unavailable: (error: unknown) => boolean;
}

/** How one request's body is read: `done` gets it whole; `overflow` runs once it passes `limit` bytes. */
interface BodyReading {
  limit: number;
  /** The Content-Length, when the request declared one. */
  declared: number | undefined;
  done: (body: Buffer) => void;
  overflow: () => void;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;
const statusLine = (status: number) => `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;

export class HttpServer {
  private readonly app = uWS.App();
  private readonly router = new Router<Route>();
  private listenSocket: uWS.us_listen_socket | null = null;
  private gate: GateThread | null = null;

  private readonly routes: Route[];
  private readonly dispatch: Dispatch;
  private readonly log: Logger;
  private readonly metrics: HttpMetrics;
  private readonly unavailable: (error: unknown) => boolean;

  constructor(options: HttpServerOptions) {
    this.routes = options.routes;
    this.dispatch = options.dispatch;
    this.log = options.log;
    this.metrics = options.metrics;
    this.unavailable = options.unavailable;
    for (const route of this.routes) this.router.add(route.method, route.path, route);
    this.app.any('/*', (res, req) => this.onRequest(res, req));
  }

  /** The public port is the gate's (gate/, on its own thread); the app listens on a private loopback port. */
  async listen(host: string, port: number): Promise<number> {
    const upstreamPort = await new Promise<number>((resolve, reject) => {
      this.app.listen('127.0.0.1', 0, (socket) => {
        if (!socket) return reject(new Error('cannot listen on a loopback port for the app'));
        this.listenSocket = socket;
        resolve(uWS.us_socket_local_port(socket as unknown as uWS.us_socket));
      });
    });
    const gate = new GateThread({
      host, port, upstreamPort, defaultBodyLimit: JSON_BODY_LIMIT,
      routes: this.routes.map((r) => ({ method: r.method, path: r.path, bodyLimit: r.maxBodyBytes ?? JSON_BODY_LIMIT })),
      onRejected: (status, detail, remoteAddress) => {
        this.metrics.observe({ method: '-', route: 'gate', status, seconds: 0 });
        // A 5xx from the gate (the app dropped a request) is a bug to look at; the rest is client input.
        this.log[status >= 500 ? 'error' : 'info']({ status, detail, remoteAddress }, 'request answered by the gate');
      },
      onCrashed: (error) => this.log.error({ err: error }, 'the HTTP gate thread died; starting it again'),
    });
    this.gate = gate;
    try {
      return await gate.listen();
    } catch (error) {
      await this.close(0);
      throw new Error(`cannot listen on ${host}:${port} (${(error as Error).message})`);
    }
  }

  /** Stops accepting, lets in-flight requests finish (up to graceMs), then closes every connection. */
  async close(graceMs: number): Promise<void> {
    await this.gate?.close(graceMs);
    this.gate = null;
    if (this.listenSocket) uWS.us_listen_socket_close(this.listenSocket);
    this.listenSocket = null;
    (this.app as unknown as { close(): void }).close();
  }

  private onRequest(res: uWS.HttpResponse, ureq: uWS.HttpRequest): void {
    const started = performance.now();
    // Everything from `ureq` must be read now: it is invalid once this function returns.
    const headers: Record<string, string> = {};
    let clientAddress: string | undefined;
    ureq.forEach((key, value) => {
      if (key === CLIENT_ADDRESS_HEADER) clientAddress = value;
      else headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
    });
    const method = ureq.getCaseSensitiveMethod().toUpperCase();
    const path = ureq.getUrl();
    const query = new URLSearchParams(ureq.getQuery() ?? '');
    // Every request comes through the gate, which names the client (and drops a client's own copy).
    const remoteAddress = clientAddress ?? Buffer.from(res.getRemoteAddressAsText()).toString();
    const inbound = headers['x-request-id'];
    const requestId = inbound && REQUEST_ID_RE.test(inbound) ? inbound : randomUUID();
    const state = { aborted: false, done: false };
    res.onAborted(() => {
      state.aborted = true;
      state.done = true;
    });

    const match = this.router.match(method, path);
    const routeLabel = match.kind === 'found' ? match.route.path : 'unmatched';
    const send = (reply: Reply) => {
      if (state.aborted || state.done) return;
      const status = reply.status;
      res.cork(() => {
        res.writeStatus(statusLine(status));
        res.writeHeader('X-Request-Id', requestId);
        res.writeHeader('Keep-Alive', KEEP_ALIVE);
        const close = reply.headers?.Connection === 'close';
        const cors = match.kind === 'found' && match.route.cors === true ? CORS_HEADERS : {};
        for (const [name, value] of Object.entries({ ...cors, ...reply.headers })) if (name !== 'Connection') res.writeHeader(name, value);
        // A response to HEAD never carries content (RFC 9110 §9.3.2): bytes after its headers would be
        // read as the start of the next response on a keep-alive connection. (HEAD has no body, so
        // never a 413 that must close; this uWS build accepts endWithoutBody only without arguments.)
        const end = (data?: string | Buffer) => (method === 'HEAD' ? res.endWithoutBody() : res.end(data, close));
        if (reply.raw) {
          res.writeHeader('Content-Type', reply.raw.contentType);
          end(reply.raw.data);
        } else if (reply.body !== undefined) {
          res.writeHeader('Content-Type', 'application/json');
          end(JSON.stringify(reply.body));
        } else {
          end();
        }
      });
      const seconds = (performance.now() - started) / 1000;
      this.metrics.observe({ method, route: routeLabel, status, seconds });
      this.log.info({ reqId: requestId, method, path, route: routeLabel, status, ms: Math.round(seconds * 1e4) / 10 }, 'request');
      state.done = true;
    };

    if (match.kind !== 'found') return send(errorReply(unroutable(match)));

    const limit = match.route.maxBodyBytes ?? JSON_BODY_LIMIT;
    const run = (body: Buffer) => {
      const req: IncomingRequest = {
        method,
        path,
        query,
        headers,
        body,
        requestId,
        remoteAddress,
      };
      this.dispatch(match.route, match.params, req).then(send, (error: unknown) => {
        const reply = errorReply(error, this.unavailable);
        const cause = error instanceof ErrorWithHeaders ? error.error : error;
        if (reply.status === 503) this.log.warn({ err: (cause as Error).message, reqId: requestId, route: routeLabel }, 'data store unavailable');
        else if (reply.status >= 500) this.log.error({ err: cause, reqId: requestId, route: routeLabel }, 'unhandled error');
        send(reply);
      });
    };

    const declared = headers['content-length'];
    const hasBody = BODY_METHODS.has(method) && ((declared !== undefined && declared !== '0') || 'transfer-encoding' in headers);
    if (!hasBody) return run(Buffer.alloc(0));
    if (declared !== undefined && Number(declared) > limit) return send(tooLarge(limit));
    this.readBody(res, { limit, declared: declared === undefined ? undefined : Number(declared), done: run, overflow: () => send(tooLarge(limit)) });
  }

  /**
   * uWS reuses a chunk's memory after its callback: each is copied once, into a body of the declared
   * length (the gate gives every request one). A copy per chunk joined at the end copied a bulk
   * body twice, ~3.5 µs an item of the serve process's CPU on a 32 MiB import body.
   */
  private readBody(res: uWS.HttpResponse, { limit, declared, done, overflow }: BodyReading): void {
    const body = declared !== undefined && Number.isSafeInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : null;
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    res.onData((chunk, isLast) => {
      if (failed) return;
      const bytes = new Uint8Array(chunk);
      if (size + bytes.length > limit || (body && size + bytes.length > body.length)) {
        failed = true;
        return overflow();
      }
      if (body) body.set(bytes, size);
      else chunks.push(Buffer.from(bytes));
      size += bytes.length;
      if (isLast) done(body ? body.subarray(0, size) : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    });
  }
}

/** 404 for a path no route has, 405 (with Allow) for a method the path lacks. */
function unroutable(match: Exclude<Match<Route>, { kind: 'found' }>): HttpError {
  return match.kind === 'not_found' ? new HttpError(404, 'Not Found') : new HttpError(405, 'Method Not Allowed', { Allow: match.allow.join(', ') });
}

function tooLarge(limit: number): Reply {
  // The rest of the body is not read; closing the connection discards it.
  return errorReply(new HttpError(413, `Request body is larger than ${limit} bytes`, { Connection: 'close' }));
}

/** Maps an error to its reply; anything unexpected is a 500 without internals. */
export function errorReply(error: unknown, unavailable: (error: unknown) => boolean = () => false): Reply {
  if (error instanceof ErrorWithHeaders) {
    const reply = errorReply(error.error, unavailable);
    return { ...reply, headers: { ...error.headers, ...reply.headers } };
  }
  if (error instanceof HttpError) return { status: error.status, body: { detail: error.detail }, headers: error.headers };
  // The domain's field paths are within the request body, its input.
  if (error instanceof InvalidError) return { status: 422, body: { detail: error.errors.map((e) => ({ ...e, loc: ['body', ...e.loc] })) } };
  if (error instanceof NotFoundError) return { status: 404, body: { detail: error.message } };
  if (error instanceof ConflictError) return { status: 409, body: { detail: error.message } };
  if (error instanceof PreconditionFailedError) return { status: 412, body: { detail: error.message } };
  if (error instanceof ForbiddenError) {
    return { status: 403, body: { detail: error.message }, headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${error.requiredScope}"` } };
  }
  if (unavailable(error)) {
    return { status: 503, body: { detail: 'The data store is unavailable; retry shortly' }, headers: { 'Retry-After': '1' } };
  }
  return { status: 500, body: { detail: 'Internal server error' } };
}
