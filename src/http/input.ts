// Turns the raw request into the typed params, query and body a handler sees, listing every
// validation error of all three at once (as FastAPI does).
import type { TSchema } from '@sinclair/typebox';
import type { ErrorItem } from '../schemas/errorItem.js';
import { HttpError } from './errors.js';
import type { IncomingRequest, Route } from './route.js';
import { validate, type ValueOrigin } from '../schemas/validate.js';

export interface ParsedInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

const mediaType = (req: IncomingRequest) => (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
const isJson = (type: string) => type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));

export function parseInput(route: Route, params: Record<string, string>, req: IncomingRequest): ParsedInput {
  const errors: ErrorItem[] = [];
  const check = (schema: TSchema | undefined, value: unknown, origin: ValueOrigin) => {
    if (!schema) return undefined;
    const result = validate(schema, value, origin);
    if (result.ok) return result.value;
    errors.push(...result.errors);
    return undefined;
  };

  const parsed: ParsedInput = {
    params: check(route.params, params, { root: 'path', source: 'text' }),
    query: check(route.query, lastValues(req.query), { root: 'query', source: 'text' }),
    body: undefined,
  };

  if (route.body) {
    const raw = readBody(route, req, errors);
    if (raw !== NO_BODY) parsed.body = check(route.body, raw, { root: 'body', source: route.bodyKind === 'form' ? 'text' : 'json' });
  } else if (route.bodyKind === 'raw') {
    requireContentType(route, req);
    parsed.body = req.body;
  }
  if (errors.length > 0) throw new HttpError(422, errors);
  return parsed;
}

const NO_BODY = Symbol('no body');

function readBody(route: Route, req: IncomingRequest, errors: ErrorItem[]): unknown {
  if (req.body.length === 0) {
    // Form fields are checked one by one; an empty JSON body is a missing body.
    if (route.bodyKind === 'form') return {};
    errors.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
    return NO_BODY;
  }
  requireContentType(route, req);
  const text = req.body.toString('utf8');
  if (route.bodyKind === 'form') return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text);
  } catch (error) {
    errors.push(jsonDecodeError(error));
    return NO_BODY;
  }
}

/** A JSON.parse failure as FastAPI reports it: loc ['body', <character position>]. */
export function jsonDecodeError(error: unknown): ErrorItem {
  const position = /position (\d+)/.exec(String((error as Error).message));
  return { loc: ['body', position ? Number(position[1]) : 0], msg: 'JSON decode error', type: 'json_invalid' };
}

function requireContentType(route: Route, req: IncomingRequest): void {
  const type = mediaType(req);
  const accepted = route.contentTypes ?? (route.bodyKind === 'form' ? ['application/x-www-form-urlencoded'] : ['application/json']);
  const ok = accepted.includes(type) || (accepted.includes('application/json') && isJson(type));
  if (!ok) {
    throw new HttpError(415, `Unsupported content type '${type || 'none'}'; send ${accepted.join(' or ')}`);
  }
}

/** Query strings may repeat a key; like FastAPI's scalar parameters, the last one wins. */
function lastValues(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of query) out[key] = value;
  return out;
}
