// Domain refusals as MCP tool errors: the agent reads the reason; anything else is a server fault.
import { ConflictError, ForbiddenError, InvalidError, NotFoundError, PreconditionFailedError } from '../domain/errors.js';

export function describeError(error: unknown): string | null {
  if (error instanceof InvalidError) return `Invalid input: ${error.errors.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; ')}`;
  if (error instanceof NotFoundError || error instanceof ForbiddenError || error instanceof ConflictError || error instanceof PreconditionFailedError) {
    return error.message;
  }
  return null;
}
