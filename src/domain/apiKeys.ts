import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ApiKeyRepository } from '../store/tenants.js';
import { SYSTEM_ACTOR, type AuditActor } from '../store/audit.js';
import { ForbiddenError, InvalidError, NotFoundError } from './errors.js';
import type { UserService } from './tenants.js';
import type { ApiKeyRecord } from '../schemas/records.js';
import { normalizeOrigin } from '../schemas/origins.js';
import { ShortCache } from './shortCache.js';

// `kcs_<key id>_<secret>`: the id finds the record, the SHA-256 of the whole key proves it.
const KEY_RE = /^kcs_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_([A-Za-z0-9_-]{20,})$/;
/** last_used_at is written at most this often per key, to keep reads read-only. */
const TOUCH_INTERVAL_MS = 60_000;

export type PublicApiKey = Omit<ApiKeyRecord, 'digest'> & { allowed_origins: string[] };

const digestOf = (key: string) => createHash('sha256').update(key).digest('hex');
const toPublic = ({ digest: _digest, ...rest }: ApiKeyRecord): PublicApiKey => ({ ...rest, allowed_origins: rest.allowed_origins ?? [] });

/** The origins in the form browsers send them, without duplicates; 422 at the first that is not `scheme://host[:port]`. */
function normalizedOrigins(origins: readonly string[]): string[] {
  return [...new Set(origins.map((text, i) => {
    const origin = normalizeOrigin(text);
    if (origin === null) throw InvalidError.at(['allowed_origins', i], 'Value error, an origin is scheme://host[:port] with http or https, no path and a port in 1-65535');
    return origin;
  }))];
}

/** A key record is read from Redis at most this often per process: a key revoked through another process stops working within it. */
export const KEY_CACHE_MS = 1000;

export class ApiKeyService {
  private readonly lastTouch = new Map<string, number>();
  /** Key records by tenant and key id (null: none), as every authenticated request reads them. */
  private readonly records = new ShortCache(KEY_CACHE_MS);

  constructor(
    private readonly repo: ApiKeyRepository,
    private readonly users: UserService,
    /** Ends what a key authorized beyond itself (the OAuth grants approved with it), once it is revoked. */
    private readonly onRevoked: (tenantId: string, keyId: string) => Promise<void>,
  ) {}

  /**
   * A new key. `ceiling`: the effective scopes (after X-Scopes) of the caller that mints it over the
   * API; the key may hold none it lacks (DESIGN §2), else 403. Operator tools mint without one.
   * `allowedOrigins`: the browser origins it may be used from (none: a server-side key).
   */
  async create(
    tenantId: string,
    input: { userId: string; name: string; scopes: string[]; expiresAt?: string | null; allowedOrigins?: readonly string[] | null; ceiling?: Set<string> },
    actor: AuditActor = SYSTEM_ACTOR,
  ): Promise<PublicApiKey & { key: string }> {
    const beyond = input.ceiling ? input.scopes.filter((s) => !input.ceiling!.has(s)) : [];
    if (beyond.length > 0) {
      const missing = [...new Set(beyond)].join(' ');
      throw new ForbiddenError(`A new key cannot hold scopes its creator lacks: ${missing}`, missing);
    }
    const allowedOrigins = normalizedOrigins(input.allowedOrigins ?? []);
    if (!(await this.users.get(tenantId, input.userId))) throw InvalidError.at(['user_id'], 'User not found in this tenant');
    const id = randomUUID();
    const key = `kcs_${id}_${randomBytes(24).toString('base64url')}`;
    const record: ApiKeyRecord = {
      id,
      tenant_id: tenantId,
      user_id: input.userId,
      name: input.name,
      scopes: [...new Set(input.scopes)],
      created_at: new Date().toISOString(),
      expires_at: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
      last_used_at: null,
      allowed_origins: allowedOrigins,
      digest: digestOf(key),
    };
    await this.repo.create(record, actor);
    return { ...toPublic(record), key };
  }

  /** The tenant's live keys: an expired key is refused (401) and so is not listed, like a revoked one. */
  async list(tenantId: string): Promise<PublicApiKey[]> {
    const now = Date.now();
    return (await this.repo.list(tenantId)).items.filter((k) => !k.expires_at || Date.parse(k.expires_at) > now).map(toPublic);
  }

  async revoke(tenantId: string, id: string, actor: AuditActor = SYSTEM_ACTOR): Promise<void> {
    const revoked = await this.repo.revoke(tenantId, id, actor);
    this.records.forget(`${tenantId} ${id}`);
    if (!revoked) throw new NotFoundError('API key not found');
    await this.onRevoked(tenantId, id);
  }

  /** The live key record for a presented key in this tenant, or null (unknown, wrong secret, expired). */
  async verify(tenantId: string, presented: string): Promise<ApiKeyRecord | null> {
    const match = KEY_RE.exec(presented);
    if (!match) return null;
    const record = await this.records.get(`${tenantId} ${match[1]}`, () => this.repo.get(tenantId, match[1]));
    if (!record) return null;
    const expected = Buffer.from(record.digest, 'hex');
    const actual = createHash('sha256').update(presented).digest();
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
    if (record.expires_at && Date.parse(record.expires_at) <= Date.now()) return null;
    this.touch(record);
    return record;
  }

  /** Token-bucket check shared by every process; 0 or the milliseconds until the next request may pass. */
  takeToken(tenantId: string, credentialId: string, ratePerSecond: number): Promise<number> {
    return this.repo.takeToken(tenantId, credentialId, ratePerSecond);
  }

  private touch(record: ApiKeyRecord): void {
    const now = Date.now();
    if ((this.lastTouch.get(record.id) ?? 0) + TOUCH_INTERVAL_MS > now) return;
    this.lastTouch.set(record.id, now);
    // Best effort and off the request path: a failed touch never fails the request.
    this.repo.touch(record.tenant_id, record.id, new Date(now).toISOString()).catch(() => undefined);
  }
}
