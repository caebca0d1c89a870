import type { Redis } from 'ioredis';
import type { ApiKeyRecord, Tenant, User } from '../domain/types.js';
import { listDocs, readDoc } from './docs.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';

/** Tenants, their users and API keys. */
export class TenantRepository {
  constructor(private readonly redis: Store) {}

  /** Claims the slug first: two concurrent creates of one slug cannot both win. */
  async create(tenant: Tenant): Promise<boolean> {
    const claimed = await this.redis.hsetnx(keys.tenantSlugs, tenant.slug, tenant.id);
    if (claimed === 0) return false;
    await this.redis.set(keys.tenant(tenant.id), JSON.stringify(tenant));
    return true;
  }

  async idBySlug(slug: string): Promise<string | null> {
    return this.redis.hget(keys.tenantSlugs, slug);
  }

  get(id: string): Promise<Tenant | null> {
    return readDoc<Tenant>(this.redis, keys.tenant(id));
  }

  async save(tenant: Tenant): Promise<void> {
    await this.redis.set(keys.tenant(tenant.id), JSON.stringify(tenant));
  }

  async list(): Promise<Tenant[]> {
    const ids = Object.values(await this.redis.hgetall(keys.tenantSlugs));
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(ids.map((id) => keys.tenant(id)));
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
  async create(user: User): Promise<boolean> {
    const result = await this.redis.createUser(
      keys.user(user.tenant_id, user.id),
      keys.users(user.tenant_id),
      keys.userEmails(user.tenant_id),
      user.id,
      user.email.toLowerCase(),
      JSON.stringify(user),
      Date.parse(user.created_at),
    );
    return result === 1;
  }

  get(tenantId: string, id: string): Promise<User | null> {
    return readDoc<User>(this.redis, keys.user(tenantId, id));
  }

  async idByEmail(tenantId: string, email: string): Promise<string | null> {
    return this.redis.hget(keys.userEmails(tenantId), email.toLowerCase());
  }

  list(tenantId: string, offset: number, limit: number) {
    return listDocs<User>(this.redis, keys.users(tenantId), (id) => keys.user(tenantId, id), offset, limit);
  }
}

export class ApiKeyRepository {
  constructor(private readonly redis: Store) {}

  async create(key: ApiKeyRecord): Promise<void> {
    await this.redis
      .multi()
      .set(keys.apiKey(key.tenant_id, key.id), JSON.stringify(key))
      .zadd(keys.apiKeys(key.tenant_id), Date.parse(key.created_at), key.id)
      .exec();
  }

  get(tenantId: string, id: string): Promise<ApiKeyRecord | null> {
    return readDoc<ApiKeyRecord>(this.redis as Redis, keys.apiKey(tenantId, id));
  }

  list(tenantId: string) {
    return listDocs<ApiKeyRecord>(this.redis, keys.apiKeys(tenantId), (id) => keys.apiKey(tenantId, id));
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

  async revoke(tenantId: string, id: string): Promise<boolean> {
    const [[, deleted]] = (await this.redis
      .multi()
      .del(keys.apiKey(tenantId, id))
      .zrem(keys.apiKeys(tenantId), id)
      .exec()) as [[Error | null, number], [Error | null, number]];
    return deleted === 1;
  }

  /** Takes one request token of the credential's bucket; 0 or the milliseconds to wait. */
  takeToken(tenantId: string, credentialId: string, ratePerSecond: number): Promise<number> {
    return this.redis.takeToken(keys.rateBucket(tenantId, credentialId), ratePerSecond);
  }
}
