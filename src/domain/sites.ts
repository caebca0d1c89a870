import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Site, SiteCreate, SiteUpdate } from '../schemas/sites.js';
import { isUuid } from '../schemas/common.js';
import { SYSTEM_ACTOR, type AuditActor } from '../store/audit.js';
import type { SiteRepository, StoredSite } from '../store/sites.js';
import { ConflictError, InvalidError, NotFoundError } from './errors.js';
import { ShortCache } from './shortCache.js';

export type SiteView = Static<typeof Site>;

/** Called after a site is deleted, to remove its products in the background. */
export type PurgeScheduler = (tenantId: string, siteId: string) => Promise<void>;

const MAX_CAS_ATTEMPTS = 16;
/** How long a process reuses what a search asked of a tenant's sites. */
const SEARCH_CACHE_MS = 1000;
/** The contract's default language (of knowledge entries): a tenant's language before it has a site. */
export const DEFAULT_LANGUAGE = 'de';
const view = (site: StoredSite, defaultId: string | null): SiteView => ({
  id: site.id,
  tenant_id: site.tenant_id,
  slug: site.slug,
  name: site.name,
  domain: site.domain,
  language: site.language,
  site_type: site.site_type,
  platform: site.platform,
  config: site.config,
  is_default: site.id === defaultId,
  created_at: site.created_at,
});

export class SiteService {
  /** What searches ask of sites: `<tenant> site <id or slug>` (resolve) and `<tenant> default` (defaultLanguage). */
  private readonly searchCache = new ShortCache(SEARCH_CACHE_MS);

  constructor(
    private readonly repo: SiteRepository,
    private readonly schedulePurge: PurgeScheduler,
  ) {}

  async create(tenantId: string, input: Static<typeof SiteCreate>, actor: AuditActor = SYSTEM_ACTOR): Promise<SiteView> {
    const site: StoredSite = {
      id: randomUUID(),
      tenant_id: tenantId,
      slug: input.slug,
      name: input.name,
      domain: input.domain ?? null,
      language: input.language,
      site_type: input.site_type ?? 'shop',
      platform: input.platform ?? null,
      config: input.config ?? {},
      created_at: new Date().toISOString(),
    };
    const created = await this.repo.create(site, input.is_default === true, actor);
    this.searchCache.forget(`${tenantId} `);
    if (created === 'slug_taken') throw new ConflictError(`A site with slug '${input.slug}' already exists`);
    return this.get(tenantId, site.id);
  }

  async list(tenantId: string): Promise<SiteView[]> {
    const { sites, defaultId } = await this.repo.list(tenantId);
    return sites.map((site) => view(site, defaultId));
  }

  async get(tenantId: string, idOrSlug: string): Promise<SiteView> {
    const { site, defaultId } = await this.load(tenantId, idOrSlug);
    return view(site, defaultId);
  }

  /** The site's id for a UUID or slug; NotFoundError when there is none. */
  async resolveId(tenantId: string, idOrSlug: string): Promise<string> {
    return (await this.load(tenantId, idOrSlug)).site.id;
  }

  /**
   * The site's id and language for a UUID or slug (NotFoundError when there is none), as every
   * search asks: cached for SEARCH_CACHE_MS per process, and forgotten at once when this process
   * changes a site of the tenant (another process's change reaches searches here within that time).
   */
  async resolve(tenantId: string, idOrSlug: string): Promise<{ id: string; language: string }> {
    return this.searchCache.get(`${tenantId} site ${idOrSlug}`, async () => {
      const { site } = await this.load(tenantId, idOrSlug);
      return { id: site.id, language: site.language };
    });
  }

  /** A site a written document names by UUID or slug (null: none), as search resolves it; an unknown one is a 422 at `loc`. */
  async referencedId(tenantId: string, ref: string | null, loc: (string | number)[]): Promise<string | null> {
    if (ref === null) return null;
    try {
      return (await this.resolve(tenantId, ref)).id;
    } catch (error) {
      if (error instanceof NotFoundError) throw InvalidError.at(loc, `Site '${ref}' not found`, 'site_unknown');
      throw error;
    }
  }

  /** The tenant's default language: its default site's, or the contract's default (de) without a site (cached as resolve). */
  async defaultLanguage(tenantId: string): Promise<string> {
    return this.searchCache.get(`${tenantId} default`, async () => {
      const defaultId = await this.repo.defaultId(tenantId);
      const raw = defaultId ? (await this.repo.getRaw(tenantId, defaultId)).raw : null;
      return raw ? (JSON.parse(raw) as StoredSite).language : DEFAULT_LANGUAGE;
    });
  }

  async update(
    tenantId: string, idOrSlug: string, { changes, actor = SYSTEM_ACTOR }: { changes: Static<typeof SiteUpdate>; actor?: AuditActor },
  ): Promise<SiteView> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const { site, raw, defaultId } = await this.load(tenantId, idOrSlug);
      if (changes.is_default === false && site.id === defaultId) {
        throw new ConflictError('This is the default site; set is_default on another site to move the default');
      }
      const next: StoredSite = {
        ...site,
        name: changes.name ?? site.name,
        domain: changes.domain !== undefined ? changes.domain : site.domain,
        site_type: changes.site_type ?? site.site_type,
        platform: changes.platform !== undefined ? changes.platform : site.platform,
        config: changes.config ?? site.config,
      };
      const result = await this.repo.replace(next, { raw, makeDefault: changes.is_default === true }, actor);
      this.searchCache.forget(`${tenantId} `);
      if (result === 'ok') return this.get(tenantId, site.id);
      if (result === 'missing') throw new NotFoundError('Site not found');
    }
    throw new ConflictError('The site is being changed concurrently; retry');
  }

  async delete(tenantId: string, idOrSlug: string, actor: AuditActor = SYSTEM_ACTOR): Promise<void> {
    const { site } = await this.load(tenantId, idOrSlug);
    const deleted = await this.repo.delete(site, actor);
    this.searchCache.forget(`${tenantId} `);
    if (!deleted) throw new NotFoundError('Site not found');
    await this.schedulePurge(tenantId, site.id);
  }

  /** By id when the value is a UUID, else (or when no site has that id) by slug: a slug may look like a UUID. */
  private async load(tenantId: string, idOrSlug: string) {
    const candidates = isUuid(idOrSlug) ? [idOrSlug.toLowerCase(), null] : [null];
    for (const candidate of candidates) {
      const id = candidate ?? (await this.repo.idBySlug(tenantId, idOrSlug));
      if (!id) continue;
      const { raw, defaultId } = await this.repo.getRaw(tenantId, id);
      if (raw !== null) return { site: JSON.parse(raw) as StoredSite, raw, defaultId };
    }
    throw new NotFoundError('Site not found');
  }
}
