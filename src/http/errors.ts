import type { ErrorItem } from '../schemas/errorItem.js';

/** An error that becomes an HTTP response: `{"detail": ...}` with the given status and headers. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ErrorItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : 'Validation failed');
  }
}
