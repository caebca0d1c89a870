// Rule violations the domain reports; the HTTP layer maps each to its status (http/errorReply.ts).
import type { ErrorItem, Loc } from '../schemas/errorItem.js';

export class NotFoundError extends Error {}
export class ConflictError extends Error {}
export class PreconditionFailedError extends Error {}

/** The caller lacks a scope for this particular write (e.g. a visibility above its ceiling). */
export class ForbiddenError extends Error {
  constructor(message: string, readonly requiredScope: string) {
    super(message);
  }
}

/**
 * Input that breaks a rule, field by field: each `loc` is the field's path within the input of
 * the use case (['parent_id'], ['metadata', 'steps']), without saying where the input came from;
 * the HTTP layer puts it in the request body (http/errorReply.ts), the MCP server names the field.
 */
export class InvalidError extends Error {
  constructor(readonly errors: ErrorItem[]) {
    super(errors.map((e) => e.msg).join('; '));
  }

  static at(loc: Loc, msg: string, type = 'value_error'): InvalidError {
    return new InvalidError([{ loc, msg, type }]);
  }
}
