// The reply of an error: the domain's rule violations and the HTTP layer's own errors mapped to
// their statuses; anything unexpected is a 500 without internals.
import { ConflictError, ForbiddenError, InvalidError, NotFoundError, PreconditionFailedError } from '../domain/errors.js';
import { ErrorWithHeaders } from './errorWithHeaders.js';
import { HttpError } from './errors.js';
import type { Reply } from './route.js';

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
