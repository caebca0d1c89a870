/**
 * An error whose answer carries headers beyond its own: the CORS headers of a storefront route
 * (http/keyCors.ts) on its 401, 403, 422 or 429. The answer is the wrapped error's.
 */
export class ErrorWithHeaders extends Error {
  constructor(
    readonly error: unknown,
    readonly headers: Record<string, string>,
  ) {
    super(error instanceof Error ? error.message : String(error));
    if (error instanceof Error && error.stack) this.stack = error.stack;
  }
}
