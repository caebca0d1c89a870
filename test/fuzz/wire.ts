// A fuzz case on the wire: resolved to bytes and sent as a raw node:http request on a connection
// of its own (so that no case can leave bytes behind for the next one).
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { FuzzCase } from './cases.js';
import { RawJson, Ref, headerSafe, percentEncode, toJsonText } from './values.js';

/** What a case needs from the running stack. */
export interface FuzzContext {
  port: number;
  fuzzSlug: string;
  otherSlug: string;
  /** Fixture ids by name (the `Ref`s of the templates); updated when a victim is re-created. */
  ids: Record<string, string>;
  keys: { all: string; readOnly: string; search: string; other: string };
  /** The scopes of `keys.readOnly`. */
  readOnlyScopes: string[];
  /** The scopes of `keys.search` (a storefront key listing SHOP_ORIGIN). */
  searchScopes: string[];
}

export interface WireRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | null;
}

export type WireAnswer =
  | { kind: 'answer'; status: number; headers: IncomingHttpHeaders; body: Buffer }
  | { kind: 'no-answer'; error: string };

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function resolve(value: unknown, ctx: FuzzContext): unknown {
  if (value instanceof Ref) {
    const id = ctx.ids[value.name];
    if (id === undefined) throw new Error(`fuzz template names an unknown fixture: ${value.name}`);
    return id;
  }
  if (value instanceof RawJson || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => resolve(v, ctx));
  const out = {};
  // defineProperty keeps an own `__proto__` key an own key.
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, { value: resolve((value as Record<string, unknown>)[key], ctx), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const encodedPart = (part: { encoded: string } | string | Ref, ctx: FuzzContext): string =>
  typeof part === 'object' && !(part instanceof Ref) ? part.encoded : percentEncode(String(resolve(part, ctx)));

function bodyBytes(c: FuzzCase, ctx: FuzzContext): Buffer | null {
  const plan = c.body;
  if (!plan || !BODY_METHODS.has(c.method)) return null;
  const value = resolve(plan.value, ctx);
  switch (plan.encoding) {
    case 'json':
      return Buffer.from(toJsonText(value));
    case 'ndjson':
      return Buffer.from(`${(value as unknown[]).map(toJsonText).join('\n')}\n`);
    case 'form':
      return Buffer.from((value as Array<[string, unknown]>).map(([k, v]) => `${percentEncode(k)}=${percentEncode(String(v))}`).join('&'));
    case 'bytes':
      return typeof plan.bytes === 'function' ? plan.bytes(toJsonText(value)) : plan.bytes;
  }
}

function hostOf(c: FuzzCase, ctx: FuzzContext): string {
  if (c.host.kind === 'fuzz') return `${ctx.fuzzSlug}.localhost:${ctx.port}`;
  if (c.host.kind === 'other') return `${ctx.otherSlug}.localhost:${ctx.port}`;
  return headerSafe(
    c.host.pattern.replaceAll('{slug}', ctx.fuzzSlug).replaceAll('{SLUG}', ctx.fuzzSlug.toUpperCase())
      .replaceAll('{other}', ctx.otherSlug).replaceAll('{port}', String(ctx.port)),
  );
}

function authorizationOf(c: FuzzCase, ctx: FuzzContext): string | undefined {
  switch (c.auth.kind) {
    case 'key': return `Bearer ${ctx.keys.all}`;
    case 'readOnly': return `Bearer ${ctx.keys.readOnly}`;
    case 'search': return `Bearer ${ctx.keys.search}`;
    case 'otherTenant': return `Bearer ${ctx.keys.other}`;
    case 'none': return undefined;
    case 'header': return c.auth.value;
  }
}

export function toWire(c: FuzzCase, ctx: FuzzContext): WireRequest {
  const path = c.template.path.replace(/:(\w+)/g, (_, name: string) => encodedPart(c.params[name], ctx)) + c.pathSuffix;
  const query = Array.isArray(c.query) ? c.query.map(([k, v]) => `${k}=${encodedPart(v, ctx)}`).join('&') : c.query.encoded;
  const body = bodyBytes(c, ctx);
  const headers: Record<string, string> = { ...c.template.headers, ...c.headers, host: hostOf(c, ctx), connection: 'close' };
  const authorization = authorizationOf(c, ctx);
  if (authorization !== undefined) headers.authorization = authorization;
  if (body !== null) {
    if (c.body?.contentType != null) headers['content-type'] = c.body.contentType;
    headers['content-length'] = String(body.length);
  }
  return { method: c.method, path: query ? `${path}?${query}` : path, headers, body };
}

/** Sends one request; an answer not complete after `hangMs` counts as a hang. */
export function send(port: number, wire: WireRequest, hangMs: number): Promise<WireAnswer> {
  return new Promise((done) => {
    let settled = false;
    const finish = (answer: WireAnswer) => {
      if (settled) return;
      settled = true;
      done(answer);
    };
    let req: ReturnType<typeof httpRequest>;
    try {
      req = httpRequest({ host: '127.0.0.1', port, method: wire.method, path: wire.path, headers: wire.headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => finish({ kind: 'answer', status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', (err) => finish({ kind: 'no-answer', error: `response: ${err.message}` }));
      });
    } catch (err) {
      // Node refused to build the request (a header or path it will not send): not the server's doing.
      return finish({ kind: 'no-answer', error: `client refused: ${(err as Error).message}` });
    }
    req.setTimeout(hangMs, () => {
      finish({ kind: 'no-answer', error: `hang: no complete answer within ${hangMs} ms` });
      req.destroy();
    });
    req.on('error', (err) => finish({ kind: 'no-answer', error: `connection: ${err.message}` }));
    req.end(wire.body ?? undefined);
  });
}
