// What every answer of the fuzz test must satisfy: no 5xx, no hang, JSON that parses, the
// documented error shape of its route family, and no success for a caller that may not succeed.
import { SCOPES, narrowScopes } from '../../src/schemas/scopes.js';
import type { FuzzCase } from './cases.js';
import type { FuzzContext, WireAnswer } from './wire.js';

/** Why an answer breaks the contract: `reason` names the failure class, `note` tells this instance. */
export interface Violation {
  reason: string;
  note?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const isDetail = (body: unknown) => isObject(body) && typeof body.detail === 'string';

const isValidation = (body: unknown) =>
  isObject(body) && Array.isArray(body.detail) && body.detail.length > 0 &&
  body.detail.every((item) => isObject(item) && Array.isArray(item.loc) && item.loc.every((p) => typeof p === 'string' || Number.isInteger(p)) &&
    typeof item.msg === 'string' && typeof item.type === 'string');

/** RFC 6749 §5.2 / RFC 7591 §3.2.2 / RFC 7009. */
const isOAuthError = (body: unknown) =>
  isObject(body) && typeof body.error === 'string' && (body.error_description === undefined || typeof body.error_description === 'string');

const isJsonRpcMessage = (m: unknown) =>
  isObject(m) && m.jsonrpc === '2.0' &&
  (('result' in m) || (isObject(m.error) && typeof m.error.code === 'number' && typeof m.error.message === 'string'));
const isJsonRpc = (body: unknown) => (Array.isArray(body) ? body.length > 0 && body.every(isJsonRpcMessage) : isJsonRpcMessage(body));

/** The error shapes a route family may answer (the shared 404/405/413/415 of the front end are `{detail}`). */
function errorShapeOk(c: FuzzCase, status: number, body: unknown): boolean {
  switch (c.template.answers) {
    case 'jsonrpc': return isJsonRpc(body) || isDetail(body);
    case 'oauth': return isOAuthError(body) || isDetail(body);
    default: return status === 422 ? isValidation(body) : isDetail(body);
  }
}

/**
 * A success this case may never get: a scoped route reached on the fuzz tenant's host without a
 * valid credential of that tenant, or without a scope the route needs (after X-Scopes narrowing).
 */
function forbiddenSuccess(c: FuzzCase, ctx: FuzzContext): string | null {
  const needed = c.template.auth;
  if (typeof needed !== 'object' || c.method !== c.template.method || c.pathSuffix !== '') return null;
  if (c.host.kind === 'other') return 'a scoped route succeeded with a key of another tenant (Host of the other tenant)';
  if (c.host.kind !== 'fuzz') return null;
  if (c.auth.kind === 'none' || c.auth.kind === 'header' || c.auth.kind === 'otherTenant') {
    return `a scoped route succeeded with credential "${c.auth.kind}"`;
  }
  const own = c.auth.kind === 'readOnly' ? ctx.readOnlyScopes : c.auth.kind === 'search' ? ctx.searchScopes : [...SCOPES];
  const effective = narrowScopes(own, c.headers['x-scopes']);
  if ('anyOf' in needed) return needed.anyOf.some((s) => effective.has(s)) ? null : `succeeded without one of ${needed.anyOf.join(' ')}`;
  const missing = needed.filter((s) => !effective.has(s));
  return missing.length > 0 ? `succeeded without scope ${missing.join(' ')}` : null;
}

/**
 * The methods uWebSockets.js parses: it closes a connection sending any other at once, without an
 * answer (docs/operations.md: the node:http front, or a proxy in front, for direct exposure).
 */
const UWS_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);
const UWS_FRONT = process.env.KCS_HTTP !== 'node';

export function judge(c: FuzzCase, answer: WireAnswer, ctx: FuzzContext): Violation | null {
  const droppedByUws = UWS_FRONT && !UWS_METHODS.has(c.method) && answer.kind === 'no-answer' && answer.error.startsWith('connection: socket hang up');
  if (answer.kind === 'no-answer') return droppedByUws ? null : { reason: answer.error.replace(/\d+/g, 'N') };
  const { status, headers, body } = answer;
  if (status >= 500) return { reason: `status ${status}` };
  const contentType = String(headers['content-type'] ?? '');
  let parsed: unknown;
  if (/json/i.test(contentType) && body.length > 0) {
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return { reason: `unparseable JSON answer (status ${status})` };
    }
  }
  if (status >= 400) {
    const html = c.template.answers === 'html' && /text\/html/i.test(contentType);
    if (c.method !== 'HEAD' && !html) {
      if (parsed === undefined) return { reason: `error ${status} without a JSON body (${contentType || 'no content type'})` };
      if (!errorShapeOk(c, status, parsed)) return { reason: `error ${status} not in the documented shape` };
    }
  } else if (c.template.answers === 'jsonrpc' && status === 200 && c.method === 'POST' && !isJsonRpc(parsed)) {
    return { reason: 'MCP 200 that is not JSON-RPC' };
  }
  if (status < 400) {
    const escalation = forbiddenSuccess(c, ctx);
    if (escalation) return { reason: `privilege: ${escalation}`, note: `status ${status}` };
  }
  return null;
}
