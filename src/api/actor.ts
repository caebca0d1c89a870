// Who makes a write, for its audit event (DESIGN §2).
import type { Principal } from '../domain/types.js';
import type { IncomingRequest } from '../http/route.js';
import type { AuditActor } from '../store/audit.js';

/**
 * X-Audit-Source names the channel (default api); the OAuth client id comes from the token only,
 * never a header. principal null: an anonymous write (open OAuth client registration).
 */
export const actorOf = (principal: Principal | null, req: IncomingRequest): AuditActor => ({
  userId: principal?.userId ?? null,
  credentialId: principal?.credentialId ?? null,
  clientId: principal?.clientId ?? null,
  source: req.headers['x-audit-source']?.trim() || 'api',
});
