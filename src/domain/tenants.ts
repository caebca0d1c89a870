import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { TenantSettingsUpdate } from '../schemas/tenants.js';
import { SYSTEM_ACTOR, type AuditActor } from '../store/audit.js';
import type { TenantRepository, UserRepository } from '../store/tenants.js';
import { ConflictError, InvalidError, NotFoundError } from './errors.js';
import type { Tenant, User } from '../schemas/records.js';
import type { Page } from '../store/docs.js';

export const DEFAULT_SETTINGS: Tenant['settings'] = {
  variant_strategy: 'all', oauth_open_registration: false, rate_limit_per_s: 0, facet_attributes: [], understand_queries: false,
  search_analytics: true, analytics_retention_days: 90, suggestion_min_searches: 3, search_events_rate_per_s: 10,
  search_events_key_rate_per_s: 100,
};

/** A stored tenant with the settings added since it was stored at their defaults. */
const withDefaults = (tenant: Tenant | null): Tenant | null => tenant && { ...tenant, settings: { ...DEFAULT_SETTINGS, ...tenant.settings } };
const SLUG_RE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/**
 * Tenants by id and slug. Lookups by slug are cached briefly per process: every request needs
 * its tenant, and settings changes reach other processes within CACHE_MS.
 */
export class TenantService {
  static readonly CACHE_MS = 1000;
  static readonly CACHE_LIMIT = 10_000;
  private readonly cache = new Map<string, { tenant: Tenant | null; until: number }>();

  constructor(
    private readonly repo: TenantRepository,
    /** Prepares a new tenant for search before it has a document (the Query Engine's indexes). */
    private readonly prepareSearch: (tenantId: string) => Promise<void> = async () => undefined,
  ) {}

  async create(slug: string, name: string, settings: Partial<Tenant['settings']> = {}): Promise<Tenant> {
    if (!SLUG_RE.test(slug) || slug.length > 63) {
      throw InvalidError.at(['slug'], 'A tenant slug is 1-63 lower-case letters, digits and inner hyphens', 'string_pattern_mismatch');
    }
    const tenant: Tenant = {
      id: randomUUID(),
      slug,
      name: name || slug,
      settings: { ...DEFAULT_SETTINGS, ...settings },
      created_at: new Date().toISOString(),
    };
    if (!(await this.repo.create(tenant))) throw new ConflictError(`Tenant '${slug}' already exists`);
    await this.prepareSearch(tenant.id);
    return tenant;
  }

  async bySlug(slug: string): Promise<Tenant | null> {
    const now = Date.now();
    const hit = this.cache.get(slug);
    if (hit && hit.until > now) return hit.tenant;
    const id = await this.repo.idBySlug(slug);
    const tenant = withDefaults(id ? await this.repo.get(id) : null);
    // Re-inserted so the first key is the oldest: hosts naming unknown tenants (any client can send
    // them) must not grow the cache without bound.
    this.cache.delete(slug);
    this.cache.set(slug, { tenant, until: now + TenantService.CACHE_MS });
    if (this.cache.size > TenantService.CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    return tenant;
  }

  async require(slug: string): Promise<Tenant> {
    const tenant = await this.bySlug(slug);
    if (!tenant) throw new NotFoundError(`Tenant '${slug}' not found`);
    return tenant;
  }

  async list(): Promise<Tenant[]> {
    return (await this.repo.list()).map((t) => withDefaults(t)!);
  }

  count(): Promise<number> {
    return this.repo.count();
  }

  async updateSettings(tenant: Tenant, changes: Static<typeof TenantSettingsUpdate>, actor: AuditActor = SYSTEM_ACTOR): Promise<Tenant> {
    const current = withDefaults(await this.repo.get(tenant.id)) ?? tenant;
    const next: Tenant = { ...current, settings: { ...current.settings, ...changes } };
    // Names are compared lower-case (as attribute filters compare them), each listed once.
    if (changes.facet_attributes) next.settings.facet_attributes = [...new Set(changes.facet_attributes.map((n) => n.trim().toLowerCase()))];
    await this.repo.saveSettings(next, actor);
    this.cache.delete(next.slug);
    return next;
  }
}

export class UserService {
  constructor(private readonly repo: UserRepository) {}

  async create(tenantId: string, { email, name }: { email: string; name: string }, actor: AuditActor = SYSTEM_ACTOR): Promise<User> {
    const user: User = { id: randomUUID(), tenant_id: tenantId, email, name, created_at: new Date().toISOString() };
    if (!(await this.repo.create(user, actor))) throw new ConflictError(`A user with e-mail ${email} already exists`);
    return user;
  }

  get(tenantId: string, id: string): Promise<User | null> {
    return this.repo.get(tenantId, id);
  }

  /** A user by id or e-mail address (for the admin CLI). */
  async find(tenantId: string, idOrEmail: string): Promise<User | null> {
    const id = idOrEmail.includes('@') ? await this.repo.idByEmail(tenantId, idOrEmail) : idOrEmail;
    return id ? this.repo.get(tenantId, id) : null;
  }

  list(tenantId: string, page: Page) {
    return this.repo.list(tenantId, page);
  }
}
