// Rate limits of the OAuth endpoints that anyone may call with guessed secrets: the token endpoint
// and the consent form's answer. Token buckets in Redis (store/lua/takeToken-1.lua, burst = rate),
// shared by every serve process, per tenant and the caller's address (req.remoteAddress: behind a
// proxy that is the proxy's).
import type { OAuthRateLimits } from '../config.js';
import type { ApiKeyService } from '../domain/apiKeys.js';
import { isUuid } from '../schemas/common.js';

export class OAuthRateLimit {
  constructor(
    private readonly apiKeys: ApiKeyService,
    private readonly limits: OAuthRateLimits,
  ) {}

  /**
   * POST /oauth/token: one bucket per presented client and address, one per address over all
   * clients. 0 when the request may go on, else the seconds to wait (Retry-After).
   */
  token(tenantId: string, address: string, clientId: string | null): Promise<number> {
    // Only a well-formed client_id names a bucket of its own; any other text shares one.
    const client = clientId !== null && isUuid(clientId) ? clientId.toLowerCase() : 'other';
    return this.take(tenantId, [
      { id: `oauth-token:${client}:${address}`, ratePerS: this.limits.ratePerS },
      { id: `oauth-token:${address}`, ratePerS: this.limits.addressRatePerS },
    ]);
  }

  /**
   * POST /oauth/authorize: one bucket per address (the form names its client only through the
   * pending request it answers, and a person sends it).
   */
  consent(tenantId: string, address: string): Promise<number> {
    return this.take(tenantId, [{ id: `oauth-consent:${address}`, ratePerS: this.limits.ratePerS }]);
  }

  private async take(tenantId: string, buckets: { id: string; ratePerS: number }[]): Promise<number> {
    const waits = await Promise.all(buckets.filter((b) => b.ratePerS > 0).map((b) => this.apiKeys.takeToken(tenantId, b.id, b.ratePerS)));
    const waitMs = Math.max(0, ...waits);
    return waitMs === 0 ? 0 : Math.max(1, Math.ceil(waitMs / 1000));
  }
}
