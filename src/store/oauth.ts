// OAuth clients, pending authorization requests, codes, grants and tokens (DESIGN §5). Codes and
// tokens are stored only under the SHA-256 of their value, each with its Redis TTL; every key
// carries the tenant's hash tag, so the multi-key scripts stay atomic in one Cluster slot.
import type { ClientRecord, GrantRecord, PendingAuthorization, TokenRecord } from '../schemas/oauthRecords.js';
import type { AuditActor } from './audit.js';
import { appendAudit, deleteAudited } from './auditLog.js';
import { listDocs, readDoc } from './docs.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';
import { GrantResult } from './scripts.js';

/** What the code-exchange and rotation scripts report. */
export type IssueResult = 'issued' | 'unknown' | 'reused' | 'client_gone';
const RESULT: Record<GrantResult, IssueResult> = {
  [GrantResult.Issued]: 'issued', [GrantResult.Unknown]: 'unknown', [GrantResult.Reused]: 'reused', [GrantResult.ClientGone]: 'client_gone',
};

/** A secret as stored: under its digest, with its record and its lifetime in milliseconds. */
export interface StoredSecret<R> {
  digest: string;
  record: R;
  ttlMs: number;
}

/** A new grant with its tokens. */
export interface NewTokens {
  grant: GrantRecord;
  access: StoredSecret<TokenRecord>;
  refresh: StoredSecret<TokenRecord> | null;
}

export class OAuthRepository {
  constructor(private readonly redis: Store) {}

  // ---- clients ----

  async createClient(client: ClientRecord, actor: AuditActor): Promise<void> {
    const multi = this.redis
      .multi()
      .set(keys.oauthClient(client.tenant_id, client.client_id), JSON.stringify(client))
      .zadd(keys.oauthClients(client.tenant_id), client.client_id_issued_at * 1000, client.client_id);
    await appendAudit(multi, client.tenant_id, { actor, event: { action: 'create', entityType: 'oauth_client', entityId: client.client_id } }).exec();
  }

  /** The console's client id (null: none yet). */
  consoleClientId(tenantId: string): Promise<string | null> {
    return this.redis.get(keys.oauthConsoleClient(tenantId));
  }

  /** Records `clientId` as the console's unless one is recorded: the one recorded after the call. */
  async claimConsoleClient(tenantId: string, clientId: string): Promise<string> {
    return (await this.redis.set(keys.oauthConsoleClient(tenantId), clientId, 'NX', 'GET')) ?? clientId;
  }

  /** Forgets the recorded console client while it is `expected` (a load may have claimed another meanwhile). */
  async forgetConsoleClient(tenantId: string, expected: string): Promise<void> {
    await this.redis.forgetConsoleClient(keys.oauthConsoleClient(tenantId), expected);
  }

  /** Replaces a client's record (the console client's redirect URIs). */
  async replaceClient(client: ClientRecord): Promise<void> {
    await this.redis.set(keys.oauthClient(client.tenant_id, client.client_id), JSON.stringify(client), 'XX');
  }

  getClient(tenantId: string, clientId: string): Promise<ClientRecord | null> {
    return readDoc<ClientRecord>(this.redis, keys.oauthClient(tenantId, clientId));
  }

  async listClients(tenantId: string): Promise<ClientRecord[]> {
    return (await listDocs<ClientRecord>(this.redis, { indexKey: keys.oauthClients(tenantId), docKey: (id) => keys.oauthClient(tenantId, id) })).items;
  }

  /**
   * Deletes the client, then every grant it holds. The token scripts check that the client exists
   * in the same atomic step as they add a grant, so no grant can appear after the first step.
   */
  async deleteClient(tenantId: string, clientId: string, actor: AuditActor): Promise<boolean> {
    const client = { key: keys.oauthClient(tenantId, clientId), index: keys.oauthClients(tenantId), tenantId };
    if (!(await deleteAudited(this.redis, client, { actor, event: { action: 'delete', entityType: 'oauth_client', entityId: clientId } }))) return false;
    const grantsKey = keys.oauthClientGrants(tenantId, clientId);
    const grantIds = await this.redis.zrange(grantsKey, '0', '-1');
    for (let i = 0; i < grantIds.length; i += 500) {
      await this.redis.del(...grantIds.slice(i, i + 500).map((id) => keys.oauthGrant(tenantId, id)));
    }
    await this.redis.del(grantsKey);
    return true;
  }

  // ---- pending authorization requests (the consent page) ----

  async savePending(tenantId: string, pending: PendingAuthorization, ttlMs: number): Promise<void> {
    await this.redis.set(keys.oauthRequest(tenantId, pending.id), JSON.stringify(pending), 'PX', ttlMs);
  }

  getPending(tenantId: string, id: string): Promise<PendingAuthorization | null> {
    return readDoc<PendingAuthorization>(this.redis, keys.oauthRequest(tenantId, id));
  }

  /** Removes and returns the request: exactly one answer per request, even when submitted twice. */
  async takePending(tenantId: string, id: string): Promise<PendingAuthorization | null> {
    const raw = await this.redis.getdel(keys.oauthRequest(tenantId, id));
    return raw === null ? null : (JSON.parse(raw) as PendingAuthorization);
  }

  // ---- authorization codes ----

  async saveCode(tenantId: string, { digest, record, ttlMs }: StoredSecret<unknown>): Promise<void> {
    const key = keys.oauthCode(tenantId, digest);
    await this.redis.multi().hset(key, 'doc', JSON.stringify(record), 'state', 'fresh').pexpire(key, ttlMs).exec();
  }

  /** The code's record and whether it was exchanged already (kept a while after use, to detect replays). */
  async getCode<T>(tenantId: string, digest: string): Promise<{ record: T; used: boolean } | null> {
    const [doc, state] = await this.redis.hmget(keys.oauthCode(tenantId, digest), 'doc', 'state');
    return doc === null ? null : { record: JSON.parse(doc) as T, used: state !== 'fresh' };
  }

  /**
   * Consumes the code and stores the grant and its tokens, or revokes the code's grant on reuse.
   * `code`: its digest, and how long it is remembered once used (to detect replays).
   */
  async exchangeCode(tenantId: string, code: { digest: string; usedMemoryMs: number }, tokens: NewTokens): Promise<IssueResult> {
    const { grant, access, refresh } = tokens;
    const result = await this.redis.oauthExchangeCode(
      keys.oauthCode(tenantId, code.digest),
      keys.oauthClient(tenantId, grant.client_id),
      keys.oauthGrant(tenantId, grant.id),
      keys.oauthAccessToken(tenantId, access.digest),
      keys.oauthRefreshToken(tenantId, refresh?.digest ?? 'none'),
      keys.oauthClientGrants(tenantId, grant.client_id),
      // A code from before approving keys were recorded names none: it is refused (it lives a minute).
      keys.apiKey(tenantId, grant.api_key_id ?? ''),
      grant.id,
      JSON.stringify(grant),
      JSON.stringify(access.record),
      refresh ? JSON.stringify(refresh.record) : '',
      access.ttlMs,
      refresh?.ttlMs ?? access.ttlMs,
      code.usedMemoryMs,
      Date.now(),
    );
    return RESULT[result];
  }

  // ---- tokens ----

  /** The refresh token's record and whether it is still the active one of its grant. */
  async getRefresh(tenantId: string, digest: string): Promise<{ record: TokenRecord; active: boolean } | null> {
    const [doc, state] = await this.redis.hmget(keys.oauthRefreshToken(tenantId, digest), 'doc', 'state');
    return doc === null ? null : { record: JSON.parse(doc) as TokenRecord, active: state === 'active' };
  }

  async rotateRefresh(tenantId: string, presentedDigest: string, tokens: NewTokens & { refresh: NonNullable<NewTokens['refresh']> }): Promise<IssueResult> {
    const { grant, access, refresh } = tokens;
    const result = await this.redis.oauthRotateRefresh(
      keys.oauthRefreshToken(tenantId, presentedDigest),
      keys.oauthGrant(tenantId, grant.id),
      keys.oauthRefreshToken(tenantId, refresh.digest),
      keys.oauthAccessToken(tenantId, access.digest),
      keys.oauthClient(tenantId, grant.client_id),
      keys.oauthClientGrants(tenantId, grant.client_id),
      grant.id,
      JSON.stringify(refresh.record),
      JSON.stringify(access.record),
      access.ttlMs,
      refresh.ttlMs,
      Date.now(),
    );
    return RESULT[result];
  }

  /** A grant of its own with one access token (client_credentials). */
  async issueAccessOnly(tenantId: string, tokens: NewTokens): Promise<IssueResult> {
    const { grant, access } = tokens;
    const result = await this.redis.oauthIssueToken(
      keys.oauthClient(tenantId, grant.client_id),
      keys.oauthGrant(tenantId, grant.id),
      keys.oauthAccessToken(tenantId, access.digest),
      keys.oauthClientGrants(tenantId, grant.client_id),
      grant.id,
      JSON.stringify(grant),
      JSON.stringify(access.record),
      access.ttlMs,
      Date.now(),
    );
    return RESULT[result];
  }

  /**
   * The access token's record, only while its grant also exists (one round trip: the grant id is
   * part of the token, so both keys are read together).
   */
  async getAccess(tenantId: string, digest: string, grantId: string): Promise<TokenRecord | null> {
    const [token, grant] = await this.redis.mget(keys.oauthAccessToken(tenantId, digest), keys.oauthGrant(tenantId, grantId));
    if (token === null || grant === null) return null;
    const record = JSON.parse(token) as TokenRecord;
    return record.grant_id === grantId ? record : null;
  }

  async getAccessRecord(tenantId: string, digest: string): Promise<TokenRecord | null> {
    return readDoc<TokenRecord>(this.redis, keys.oauthAccessToken(tenantId, digest));
  }

  async deleteAccess(tenantId: string, digest: string): Promise<void> {
    await this.redis.del(keys.oauthAccessToken(tenantId, digest));
  }

  /**
   * Revokes every grant approved with this API key, once the key itself is gone (the code exchange
   * refuses a revoked key's codes in the same step as it adds a grant, so none can follow). Reads
   * every live grant of the tenant's clients: revoking a key is a rare admin action.
   */
  async revokeGrantsApprovedBy(tenantId: string, apiKeyId: string): Promise<void> {
    for (const clientId of await this.redis.zrange(keys.oauthClients(tenantId), '0', '-1')) {
      const grantsKey = keys.oauthClientGrants(tenantId, clientId);
      const grantIds = await this.redis.zrange(grantsKey, '0', '-1');
      for (let i = 0; i < grantIds.length; i += 500) {
        const batch = grantIds.slice(i, i + 500);
        const docs = await this.redis.mget(...batch.map((id) => keys.oauthGrant(tenantId, id)));
        const approved = batch.filter((_, j) => docs[j] !== null && (JSON.parse(docs[j]!) as GrantRecord).api_key_id === apiKeyId);
        if (approved.length === 0) continue;
        await this.redis.multi().del(...approved.map((id) => keys.oauthGrant(tenantId, id))).zrem(grantsKey, ...approved).exec();
      }
    }
  }

  /** Revokes a whole grant: every token issued under it stops working at once. */
  async revokeGrant(tenantId: string, { clientId, grantId, refreshDigest }: { clientId: string; grantId: string; refreshDigest?: string }): Promise<void> {
    const tx = this.redis.multi().del(keys.oauthGrant(tenantId, grantId)).zrem(keys.oauthClientGrants(tenantId, clientId), grantId);
    if (refreshDigest) tx.del(keys.oauthRefreshToken(tenantId, refreshDigest));
    await tx.exec();
  }
}
