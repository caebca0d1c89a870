import type { Static, TSchema } from '@sinclair/typebox';
import type { Method } from './router.js';
import type { Principal } from '../domain/types.js';
import type { Tenant } from '../schemas/records.js';
import type { ScopeRule } from '../schemas/scopes.js';

/**
 * Who may call a route: anyone (no tenant), anyone on a known tenant, or a bearer whose scopes
 * meet the rule: `{ scopes }` all of them, `{ anyOf }` at least one.
 */
export type RouteAuth = 'none' | 'tenant' | ScopeRule;

/** How the body is read: JSON object, form fields, or raw bytes handed to the handler. */
export type BodyKind = 'json' | 'form' | 'raw';

export interface IncomingRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: Buffer;
  requestId: string;
  /** The client's IP address as text (the TCP peer of the connection that sent the request). */
  remoteAddress: string;
}

export interface Reply {
  status: number;
  /** Serialised as JSON unless `raw` is given. */
  body?: unknown;
  raw?: { contentType: string; data: string | Buffer };
  headers?: Record<string, string>;
}

type Maybe<S> = S extends TSchema ? Static<S> : undefined;

export interface RouteContext<B, Q, P> {
  req: IncomingRequest;
  body: Maybe<B>;
  query: Maybe<Q>;
  params: Maybe<P>;
  /** Set when the route's auth is 'tenant' or scoped. */
  tenant: Tenant;
  /** Set when the route's auth is scoped. */
  principal: Principal;
}

export interface ResponseDoc {
  description: string;
  schema?: TSchema;
  /** Non-JSON responses (HTML, Prometheus text). */
  contentType?: string;
}

export interface RouteSpec<B extends TSchema | undefined, Q extends TSchema | undefined, P extends TSchema | undefined> {
  method: Method;
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: RouteAuth;
  body?: B;
  bodyKind?: BodyKind;
  /** Bytes; default 1 MiB. */
  maxBodyBytes?: number;
  /** Content types accepted for the body; default by bodyKind. */
  contentTypes?: string[];
  query?: Q;
  params?: P;
  /**
   * A query or body the handler reads itself, for the OpenAPI document only: the OAuth endpoints
   * answer their errors in the RFC shape, never the 422 that `query` and `body` produce.
   */
  documented?: { query?: TSchema; body?: { contentType: string; schema: TSchema } };
  responses: Record<number, ResponseDoc>;
  /** Error statuses beyond the ones every route of its auth kind can answer. */
  errors?: number[];
  /**
   * Cross-origin reads (src/http/cors.ts), with OPTIONS preflights on the path. `true`: from any
   * origin, every answer, errors included. `'key'`: from the origins the caller's API key lists
   * (storefront search), errors included once the key allows the origin.
   */
  cors?: boolean | 'key';
  /** A POST that only reads (a search): its answer waits for no replica (http/pipeline.ts). */
  readOnly?: boolean;
  handler: (ctx: RouteContext<B, Q, P>) => Promise<Reply> | Reply;
}

export type Route = RouteSpec<TSchema | undefined, TSchema | undefined, TSchema | undefined>;

/** Keeps the handler's types tied to its schemas, then erases them for the route table. */
export function defineRoute<B extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined, P extends TSchema | undefined = undefined>(
  spec: RouteSpec<B, Q, P>,
): Route {
  return spec as unknown as Route;
}

export const JSON_BODY_LIMIT = 1024 * 1024;

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({ status, body, headers });
export const noContent = (): Reply => ({ status: 204 });
