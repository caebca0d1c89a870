// What every HTTP front (http/uwsFront.ts, http/nodeFront.ts) hands a request to: the route it
// matches and the body it may have, then the pipeline's reply with errors mapped, X-Request-Id,
// CORS, the request log and metrics. A front only reads and writes bytes.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { CORS_HEADERS } from './cors.js';
import { ErrorWithHeaders } from './errorWithHeaders.js';
import { errorReply } from './errorReply.js';
import { HttpError } from './errors.js';
import type { HttpMetrics } from './metrics.js';
import { JSON_BODY_LIMIT, type IncomingRequest, type Reply, type Route } from './route.js';
import { Router, type Match } from './router.js';

/** Runs one matched request to its reply (tenant, auth, validation, handler: see pipeline.ts). */
export type Dispatch = (route: Route, params: Record<string, string>, req: IncomingRequest) => Promise<Reply>;

export interface RequestHandlerOptions {
  routes: Route[];
  dispatch: Dispatch;
  log: Logger;
  metrics: HttpMetrics;
  /** Whether an error means the data store cannot be reached (503 + Retry-After, not a 500). */
  unavailable: (error: unknown) => boolean;
}

/** A request as a front has read its head. */
export interface RequestHead {
  method: string;
  path: string;
  /** The query string, without its `?`. */
  query: string;
  /** Lower-case names; repeated fields joined with ", ". */
  headers: Record<string, string>;
  remoteAddress: string;
}

/** An answer as a front writes it. */
export interface Outgoing {
  status: number;
  headers: Record<string, string>;
  /** Absent: no content. */
  body: string | Buffer | undefined;
  /** An answer to HEAD: its headers say the content's length, the content itself is never written (RFC 9110 §9.3.2). */
  headOnly: boolean;
  /** The connection closes after this answer (a 413: the rest of the body is not read). */
  close: boolean;
}

export type FrontKind = 'uws' | 'node';

/** A front: reads requests off its connections, hands them to a RequestHandler, writes the answers (uwsFront.ts, nodeFront.ts). */
export interface HttpFront {
  readonly kind: FrontKind;
  /** Listens; the port bound (the one given, or the one chosen for 0). */
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting, lets in-flight requests finish (up to graceMs), then closes every connection. */
  close(graceMs: number): Promise<void>;
}

/** How long a client may keep a connection idle (said in every answer's Keep-Alive); each front closes idle ones after it. */
export const KEEP_ALIVE_S = 5;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

export class RequestHandler {
  private readonly router = new Router<Route>();
  private readonly dispatch: Dispatch;
  private readonly log: Logger;
  private readonly metrics: HttpMetrics;
  private readonly unavailable: (error: unknown) => boolean;
  private readonly logRequests: boolean;

  constructor(options: RequestHandlerOptions) {
    this.dispatch = options.dispatch;
    this.log = options.log;
    this.metrics = options.metrics;
    this.unavailable = options.unavailable;
    this.logRequests = this.log.isLevelEnabled('info');
    for (const route of options.routes) this.router.add(route.method, route.path, route);
  }

  /** A request whose head was read: what its body may be, then its answer. */
  begin(head: RequestHead): Exchange {
    // HEAD is GET without the content (RFC 9110 §9.3.2).
    return new Exchange(this, head, this.router.match(head.method === 'HEAD' ? 'GET' : head.method, head.path));
  }

  /** @internal Runs a matched request (Exchange). */
  async run(match: Extract<Match<Route>, { kind: 'found' }>, req: IncomingRequest): Promise<Reply> {
    try {
      return await this.dispatch(match.route, match.params, req);
    } catch (error) {
      const reply = errorReply(error, this.unavailable);
      const cause = error instanceof ErrorWithHeaders ? error.error : error;
      if (reply.status === 503) this.log.warn({ err: (cause as Error).message, reqId: req.requestId, route: match.route.path }, 'data store unavailable');
      else if (reply.status >= 500) this.log.error({ err: cause, reqId: req.requestId, route: match.route.path }, 'unhandled error');
      return reply;
    }
  }

  /** A request the front answered itself, unparsed (a malformed head, a timeout): logged and counted. */
  refused(status: number, detail: string): void {
    this.metrics.observe({ method: '-', route: 'unparsed', status, seconds: 0 });
    this.log.info({ status, detail }, 'request refused by the HTTP front');
  }

  /** @internal Logs an answer that could not be written. */
  failed(error: unknown, requestId: string, route: string): void {
    this.log.error({ err: error, reqId: requestId, route }, 'unhandled error');
  }

  /** @internal Logs and counts an answer. */
  observe(method: string, path: string, route: string, status: number, requestId: string, started: number): void {
    const seconds = (performance.now() - started) / 1000;
    this.metrics.observe({ method, route, status, seconds });
    // The log line's object is not even made when request logs are off (LOG_LEVEL above info).
    if (this.logRequests) this.log.info({ reqId: requestId, method, path, route, status, ms: Math.round(seconds * 1e4) / 10 }, 'request');
  }
}

/** One request between its head and its answer. */
export class Exchange {
  readonly requestId: string;
  /** Whether the front reads a body: a body method declaring one. */
  readonly hasBody: boolean;
  /** The most bytes of body the route takes (413 beyond). */
  readonly bodyLimit: number;
  private readonly started = performance.now();

  constructor(
    private readonly handler: RequestHandler,
    private readonly head: RequestHead,
    private readonly match: Match<Route>,
  ) {
    const inbound = head.headers['x-request-id'];
    this.requestId = inbound && REQUEST_ID_RE.test(inbound) ? inbound : randomUUID();
    const declared = head.headers['content-length'];
    this.hasBody = match.kind === 'found' && BODY_METHODS.has(head.method) &&
      ((declared !== undefined && declared !== '0') || 'transfer-encoding' in head.headers);
    this.bodyLimit = match.kind === 'found' ? match.route.maxBodyBytes ?? JSON_BODY_LIMIT : 0;
  }

  /** The body's declared length, when it declares one within the limit (a front sizes its buffer by it); null past the limit. */
  declaredLength(): number | undefined | null {
    const declared = this.head.headers['content-length'];
    if (declared === undefined) return undefined;
    const length = Number(declared);
    if (!Number.isSafeInteger(length) || length < 0) return undefined;
    return length > this.bodyLimit ? null : length;
  }

  /** The answer, once the body (empty without one) is read. Never rejects: anything unexpected is a 500. */
  async answer(body: Buffer): Promise<Outgoing> {
    const { match, head } = this;
    if (match.kind !== 'found') return this.finish(errorReply(unroutable(match)));
    const req: IncomingRequest = {
      method: head.method, path: head.path, query: new URLSearchParams(head.query), headers: head.headers, body, requestId: this.requestId,
      remoteAddress: head.remoteAddress,
    };
    const reply = await this.handler.run(match, req);
    try {
      return this.finish(reply);
    } catch (error) {
      // A reply that cannot be written as JSON (a bug): answered, never left hanging.
      this.handler.failed(error, this.requestId, match.route.path);
      return this.finish(errorReply(error));
    }
  }

  /** An answer the front gives for a request it will not pass on (an HTTP/1.1 request without Host); the connection closes. */
  refuse(status: number, detail: string): Outgoing {
    return this.finish(errorReply(new HttpError(status, detail, { Connection: 'close' })));
  }

  /** The 413 of a body past the route's limit: the connection closes (the rest of the body is not read). */
  tooLarge(): Outgoing {
    return this.finish(errorReply(new HttpError(413, `Request body is larger than ${this.bodyLimit} bytes`, { Connection: 'close' })));
  }

  private finish(reply: Reply): Outgoing {
    const { match, head } = this;
    const cors = match.kind === 'found' && match.route.cors === true ? CORS_HEADERS : {};
    const headers: Record<string, string> = { 'X-Request-Id': this.requestId, 'Keep-Alive': `timeout=${KEEP_ALIVE_S}`, ...cors, ...reply.headers };
    const close = headers.Connection === 'close';
    delete headers.Connection;
    let body: string | Buffer | undefined;
    if (reply.raw) {
      headers['Content-Type'] = reply.raw.contentType;
      body = reply.raw.data;
    } else if (reply.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(reply.body);
    }
    const route = match.kind === 'found' ? match.route.path : 'unmatched';
    this.handler.observe(head.method, head.path, route, reply.status, this.requestId, this.started);
    return { status: reply.status, headers, body, headOnly: head.method === 'HEAD', close };
  }
}

/** 404 for a path no route has, 405 (with Allow) for a method the path lacks. */
function unroutable(match: Exclude<Match<Route>, { kind: 'found' }>): HttpError {
  return match.kind === 'not_found' ? new HttpError(404, 'Not Found') : new HttpError(405, 'Method Not Allowed', { Allow: match.allow.join(', ') });
}
