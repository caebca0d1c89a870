import { auditArgs, auditKeys, type AuditActor } from './audit.js';
import { listDocs } from './docs.js';
import { CHANGE_STREAM_MAXLEN, keys } from './keys.js';
import type { Store } from './redis.js';
import { WriteResult } from './scripts.js';

/** A site as stored; is_default is not stored but derived from the tenant's default pointer. */
export interface StoredSite {
  id: string;
  tenant_id: string;
  slug: string;
  name: string;
  domain: string | null;
  language: string;
  site_type: string;
  platform: string | null;
  config: Record<string, unknown>;
  created_at: string;
}

export type SiteWriteResult = 'ok' | 'missing' | 'slug_taken' | 'stale';

export class SiteRepository {
  constructor(private readonly redis: Store) {}

  async create(site: StoredSite, makeDefault: boolean, actor: AuditActor): Promise<SiteWriteResult> {
    const t = site.tenant_id;
    const result = await this.redis.createSite(
      keys.site(t, site.id), keys.sites(t), keys.siteSlugs(t), keys.defaultSite(t), keys.changes(t), ...auditKeys(t, 'site', site.id),
      site.id, site.slug, JSON.stringify(site), Date.parse(site.created_at), makeDefault ? '1' : '0', CHANGE_STREAM_MAXLEN,
      ...auditArgs(actor, { action: 'create', entityType: 'site', entityId: site.id }),
    );
    return result === WriteResult.Done ? 'ok' : 'slug_taken';
  }

  /** Compare-and-set against the raw document read before (see `getRaw`). */
  async replace(site: StoredSite, expected: { raw: string; makeDefault: boolean }, actor: AuditActor): Promise<SiteWriteResult> {
    const t = site.tenant_id;
    const result = await this.redis.updateSite(
      keys.site(t, site.id), keys.defaultSite(t), keys.changes(t), ...auditKeys(t, 'site', site.id),
      site.id, expected.raw, JSON.stringify(site), expected.makeDefault ? '1' : '0', CHANGE_STREAM_MAXLEN,
      ...auditArgs(actor, { action: 'update', entityType: 'site', entityId: site.id }),
    );
    return result === WriteResult.Done ? 'ok' : result === WriteResult.Missing ? 'missing' : 'stale';
  }

  async delete(site: StoredSite, actor: AuditActor): Promise<boolean> {
    const t = site.tenant_id;
    const result = await this.redis.deleteSite(
      keys.site(t, site.id), keys.sites(t), keys.siteSlugs(t), keys.defaultSite(t), keys.changes(t), keys.sitesPurging(t),
      ...auditKeys(t, 'site', site.id),
      site.id, site.slug, CHANGE_STREAM_MAXLEN, ...auditArgs(actor, { action: 'delete', entityType: 'site', entityId: site.id }),
    );
    return result === WriteResult.Done;
  }

  /** The stored JSON and the default pointer, read together. */
  async getRaw(tenantId: string, id: string): Promise<{ raw: string | null; defaultId: string | null }> {
    const [raw, defaultId] = await Promise.all([this.redis.get(keys.site(tenantId, id)), this.redis.get(keys.defaultSite(tenantId))]);
    return { raw, defaultId };
  }

  /** The id of the tenant's default site (null: it has no site). */
  defaultId(tenantId: string): Promise<string | null> {
    return this.redis.get(keys.defaultSite(tenantId));
  }

  idBySlug(tenantId: string, slug: string): Promise<string | null> {
    return this.redis.hget(keys.siteSlugs(tenantId), slug);
  }

  async list(tenantId: string): Promise<{ sites: StoredSite[]; defaultId: string | null }> {
    const [{ items }, defaultId] = await Promise.all([
      listDocs<StoredSite>(this.redis, { indexKey: keys.sites(tenantId), docKey: (id) => keys.site(tenantId, id) }),
      this.redis.get(keys.defaultSite(tenantId)),
    ]);
    return { sites: items, defaultId };
  }
}
