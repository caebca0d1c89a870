// Who is calling: the tenant from the Host header, the bearer credential, its scopes
// (narrowed by X-Scopes), the browser origins its key allows, and the tenant's per-key rate limit
// (DESIGN §2).
import type { ApiKeyService } from '../domain/apiKeys.js';
import { normalizeOrigin } from '../schemas/origins.js';
import { narrowScopes, unmetRule, type ScopeRule } from '../schemas/scopes.js';
import type { TenantService } from '../domain/tenants.js';
import type { Principal } from '../domain/types.js';
import type { Tenant } from '../schemas/records.js';
import { HttpError } from '../http/errors.js';
import type { IncomingRequest } from '../http/route.js';

/**
 * Turns a presented bearer token into a principal of the tenant, or null when it is not one of its
 * own (or, for a resource-bound OAuth token, not valid for the request's path).
 */
export type CredentialResolver = (
  tenant: Tenant,
  token: string,
  req: IncomingRequest,
) => Promise<Omit<Principal, 'scopes'> & { scopes: Iterable<string> } | null>;

export interface GuardOptions {
  /** KCS_BASE_DOMAIN: the tenant is the Host's leftmost label below it. */
  baseDomain: string;
  /** KCS_PUBLIC_SCHEME, for the base URLs handed out. */
  scheme: string;
  tenants: TenantService;
  apiKeys: ApiKeyService;
  /** Credentials besides API keys (OAuth access tokens), tried in order after them. */
  resolvers?: CredentialResolver[];
}

export class Guard {
  private readonly baseDomain: string;
  private readonly scheme: string;
  private readonly tenants: TenantService;
  private readonly apiKeys: ApiKeyService;
  private readonly resolvers: CredentialResolver[];

  constructor(options: GuardOptions) {
    this.baseDomain = options.baseDomain;
    this.scheme = options.scheme;
    this.tenants = options.tenants;
    this.apiKeys = options.apiKeys;
    this.resolvers = [this.apiKeyResolver, ...(options.resolvers ?? [])];
  }

  /** The tenant slug of a well-formed Host header: its leftmost label below the base domain. */
  private tenantSlug(host: string): string | null {
    const name = host.toLowerCase().replace(/:\d+$/, '');
    const suffix = `.${this.baseDomain}`;
    if (!name.endsWith(suffix)) return null;
    const label = name.slice(0, -suffix.length).split('.')[0];
    return label || null;
  }

  /** The tenant's base URL as the caller addressed it: the OAuth issuer and protected resource. */
  baseUrl(req: IncomingRequest): string {
    return `${this.scheme}://${(req.headers.host ?? '').toLowerCase()}`;
  }

  /** The tenant the Host names; 400 when the Host is malformed, 404 when it names no tenant. */
  async tenant(req: IncomingRequest): Promise<Tenant> {
    const host = req.headers.host;
    // The Host becomes part of URLs kcs hands out (issuer, metadata, the MCP request URL): only a
    // host name and an optional port in range get that far.
    if (host !== undefined && !isValidHost(host)) throw new HttpError(400, 'Invalid Host header: expected a host name and an optional port 1-65535');
    const slug = host ? this.tenantSlug(host) : null;
    const tenant = slug ? await this.tenants.bySlug(slug) : null;
    if (!tenant) throw new HttpError(404, 'Unknown tenant');
    return tenant;
  }

  /** The caller with its effective scopes, admitted to a route asking `rule`; 401, 403 or 429 when it may not go on. */
  async authenticate(tenant: Tenant, req: IncomingRequest, rule: ScopeRule): Promise<Principal> {
    const principal = await this.identify(tenant, req);
    await this.admit(tenant, req, principal, rule);
    return principal;
  }

  /** The caller with its effective scopes (after X-Scopes); 401 when there is none. */
  async identify(tenant: Tenant, req: IncomingRequest): Promise<Principal> {
    const token = bearerToken(req.headers.authorization);
    const found = token ? await this.resolve(tenant, token, req) : null;
    if (!found) {
      throw new HttpError(401, token ? 'Invalid or expired credentials' : 'Missing bearer token', {
        'WWW-Authenticate': `Bearer resource_metadata="${this.baseUrl(req)}/.well-known/oauth-protected-resource"`,
      });
    }
    return { ...found, scopes: narrowScopes(found.scopes, req.headers['x-scopes']) };
  }

  /** Whether the caller may go on: 403 for an Origin its key does not allow or a scope it lacks, 429 over the rate limit. */
  async admit(tenant: Tenant, req: IncomingRequest, principal: Principal, rule: ScopeRule): Promise<void> {
    this.checkOrigin(req, principal);
    const unmet = unmetRule(principal.scopes, rule);
    if (unmet) {
      throw new HttpError(403, unmet.detail, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${unmet.scope}"` });
    }
    await this.rateLimit(tenant, principal);
  }

  /**
   * A key with allowed_origins answers a request carrying an Origin only when it is one of them,
   * or the tenant's own (the console, served on the tenant host, sends its base URL).
   */
  private checkOrigin(req: IncomingRequest, principal: Principal): void {
    const origin = req.headers.origin;
    const allowed = principal.allowedOrigins;
    if (origin === undefined || !allowed || allowed.length === 0) return;
    const normalized = normalizeOrigin(origin);
    if (normalized !== null && (allowed.includes(normalized) || normalized === normalizeOrigin(this.baseUrl(req)))) return;
    throw new HttpError(403, "Requests from this Origin are not allowed with this API key (it is not in the key's allowed_origins)");
  }

  private async resolve(tenant: Tenant, token: string, req: IncomingRequest) {
    for (const resolver of this.resolvers) {
      const principal = await resolver(tenant, token, req);
      if (principal) return principal;
    }
    return null;
  }

  private readonly apiKeyResolver: CredentialResolver = async (tenant, token) => {
    const record = await this.apiKeys.verify(tenant.id, token);
    if (!record) return null;
    return {
      kind: 'api_key', tenantId: tenant.id, userId: record.user_id, credentialId: record.id, scopes: record.scopes, clientId: null,
      allowedOrigins: record.allowed_origins ?? [],
    };
  };

  private async rateLimit(tenant: Tenant, principal: Principal): Promise<void> {
    const rate = tenant.settings.rate_limit_per_s;
    if (rate <= 0) return;
    const waitMs = await this.apiKeys.takeToken(tenant.id, principal.credentialId, rate);
    if (waitMs > 0) {
      throw new HttpError(429, `Rate limit exceeded: ${rate} requests per second per key`, {
        'Retry-After': String(Math.max(1, Math.ceil(waitMs / 1000))),
      });
    }
  }
}

const HOST_RE = /^[a-z0-9.-]+(?::(\d{1,5}))?$/i;

/** A host name of letters, digits, dots and hyphens, with an optional port 1–65535. */
export function isValidHost(host: string): boolean {
  const match = HOST_RE.exec(host);
  if (!match) return false;
  const port = match[1] === undefined ? null : Number(match[1]);
  return port === null || (port >= 1 && port <= 65_535);
}

function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}
