import type { ApiKeyRecord, Tenant, User } from '../schemas/records.js';
import { auditArgs, auditKeys, type AuditActor } from './audit.js';
import { appendAudit, deleteAudited } from './auditLog.js';
import { listDocs, readDoc, type Page } from './docs.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';
import { WriteResult } from './scripts.js';
import { LAYOUT_VERSION } from './layoutMigration.js';

/** Tenants, their users and API keys. */
export class TenantRepository {
  constructor(private readonly redis: Store) {}

  /** Claims the slug first: two concurrent creates of one slug cannot both win. */
  async create(tenant: Tenant): Promise<boolean> {
    const claimed = await this.redis.hsetnx(keys.tenantSlugs, tenant.slug, tenant.id);
    if (claimed === 0) return false;
    // A new tenant's data is stored in today's layout: nothing for a migration to do.
    await this.redis.multi().set(keys.tenant(tenant.id), JSON.stringify(tenant)).set(keys.storedLayout(tenant.id), LAYOUT_VERSION).exec();
    return true;
  }

  async idBySlug(slug: string): Promise<string | null> {
    return this.redis.hget(keys.tenantSlugs, slug);
  }

  get(id: string): Promise<Tenant | null> {
    return readDoc<Tenant>(this.redis, keys.tenant(id));
  }

  /** Stores changed settings with their audit event (entity: the tenant). */
  async saveSettings(tenant: Tenant, actor: AuditActor): Promise<void> {
    const multi = this.redis.multi().set(keys.tenant(tenant.id), JSON.stringify(tenant));
    await appendAudit(multi, tenant.id, { actor, event: { action: 'update', entityType: 'settings', entityId: tenant.id } }).exec();
  }

  async list(): Promise<Tenant[]> {
    const ids = Object.values(await this.redis.hgetall(keys.tenantSlugs));
    if (ids.length === 0) return [];
    // One GET each: every tenant has its own slot on a cluster (auto-pipelined per node).
    const raws = await Promise.all(ids.map((id) => this.redis.get(keys.tenant(id))));
    return raws
      .filter((raw): raw is string => raw !== null)
      .map((raw) => JSON.parse(raw) as Tenant)
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async count(): Promise<number> {
    return this.redis.hlen(keys.tenantSlugs);
  }
}

export class UserRepository {
  constructor(private readonly redis: Store) {}

  /** False when the e-mail address is taken in the tenant. */
  async create(user: User, actor: AuditActor): Promise<boolean> {
    const t = user.tenant_id;
    const result = await this.redis.createUser(
      keys.user(t, user.id), keys.users(t), keys.userEmails(t), ...auditKeys(t, 'user', user.id),
      user.id, user.email.toLowerCase(), JSON.stringify(user), Date.parse(user.created_at),
      ...auditArgs(actor, { action: 'create', entityType: 'user', entityId: user.id }),
    );
    return result === WriteResult.Done;
  }

  get(tenantId: string, id: string): Promise<User | null> {
    return readDoc<User>(this.redis, keys.user(tenantId, id));
  }

  async idByEmail(tenantId: string, email: string): Promise<string | null> {
    return this.redis.hget(keys.userEmails(tenantId), email.toLowerCase());
  }

  list(tenantId: string, page: Page) {
    return listDocs<User>(this.redis, { indexKey: keys.users(tenantId), docKey: (id) => keys.user(tenantId, id) }, page);
  }
}

export class ApiKeyRepository {
  constructor(private readonly redis: Store) {}

  async create(key: ApiKeyRecord, actor: AuditActor): Promise<void> {
    const multi = this.redis
      .multi()
      .set(keys.apiKey(key.tenant_id, key.id), JSON.stringify(key))
      .zadd(keys.apiKeys(key.tenant_id), Date.parse(key.created_at), key.id);
    await appendAudit(multi, key.tenant_id, { actor, event: { action: 'create', entityType: 'api_key', entityId: key.id } }).exec();
  }

  get(tenantId: string, id: string): Promise<ApiKeyRecord | null> {
    return readDoc<ApiKeyRecord>(this.redis, keys.apiKey(tenantId, id));
  }

  list(tenantId: string) {
    return listDocs<ApiKeyRecord>(this.redis, { indexKey: keys.apiKeys(tenantId), docKey: (id) => keys.apiKey(tenantId, id) });
  }

  /** Records use without rewriting the document's other fields (a revoke may race it). */
  async touch(tenantId: string, id: string, at: string): Promise<void> {
    const key = keys.apiKey(tenantId, id);
    const raw = await this.redis.get(key);
    if (raw === null) return;
    const record = JSON.parse(raw) as ApiKeyRecord;
    record.last_used_at = at;
    // SET XX: never resurrect a key revoked since the read.
    await this.redis.set(key, JSON.stringify(record), 'XX');
  }

  revoke(tenantId: string, id: string, actor: AuditActor): Promise<boolean> {
    return deleteAudited(this.redis, { key: keys.apiKey(tenantId, id), index: keys.apiKeys(tenantId), tenantId }, {
      actor, event: { action: 'delete', entityType: 'api_key', entityId: id },
    });
  }

  /** Takes one request token of the credential's bucket; 0 or the milliseconds to wait. */
  takeToken(tenantId: string, credentialId: string, ratePerSecond: number): Promise<number> {
    return this.redis.takeToken(keys.rateBucket(tenantId, credentialId), ratePerSecond);
  }
}
