// Rule violations the domain reports; the HTTP layer maps each to its status (http/server.ts).
export type Loc = (string | number)[];

/** One entry of a validation error list (FastAPI/Pydantic shape). */
export interface ErrorItem {
  loc: Loc;
  msg: string;
  type: string;
}

export class NotFoundError extends Error {}
export class ConflictError extends Error {}
export class PreconditionFailedError extends Error {}

/** The caller lacks a scope for this particular write (e.g. a visibility above its ceiling). */
export class ForbiddenError extends Error {
  constructor(message: string, readonly requiredScope: string) {
    super(message);
  }
}

export class InvalidError extends Error {
  constructor(readonly errors: ErrorItem[]) {
    super(errors.map((e) => e.msg).join('; '));
  }

  static at(loc: Loc, msg: string, type = 'value_error'): InvalidError {
    return new InvalidError([{ loc, msg, type }]);
  }
}
