// CORS of one request to a `cors: 'key'` route (storefront search, DESIGN §2): the answer is
// readable from an origin the caller's API key lists in allowed_origins. Every answer says that it
// varies by Origin, so a shared cache never hands one origin's answer to another.
import { normalizeOrigin } from '../schemas/origins.js';

/** Response headers a storefront page may read besides the CORS-safelisted ones. */
const EXPOSE_HEADERS = 'Retry-After, X-Request-Id';

export class KeyCors {
  /** The Origin the answer is readable from, as the request sent it; null: none. */
  private readable: string | null;

  constructor(private readonly origin: string | undefined) {
    // Until a credential is known (a preflight, a 401, an unknown tenant) the answer holds nothing
    // a key guards: any well-formed Origin may read it, as any origin may read the preflight.
    this.readable = origin !== undefined && normalizeOrigin(origin) !== null ? origin : null;
  }

  /** From the caller's credential on, only an origin its key lists reads the answer. */
  credential(allowedOrigins: readonly string[] | undefined): void {
    const origin = this.origin === undefined ? null : normalizeOrigin(this.origin);
    this.readable = origin !== null && allowedOrigins?.includes(origin) ? this.origin! : null;
  }

  headers(): Record<string, string> {
    if (this.readable === null) return { Vary: 'Origin' };
    return { 'Access-Control-Allow-Origin': this.readable, 'Access-Control-Expose-Headers': EXPOSE_HEADERS, Vary: 'Origin' };
  }
}
