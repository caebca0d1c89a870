// The OAuth 2.1 authorization server of a tenant (DESIGN §5): client registration (RFC 7591), the
// authorization code flow with PKCE S256 and a consent step, the token endpoint (authorization_code,
// refresh_token with rotation and reuse detection, client_credentials), revocation (RFC 7009), and
// the bearer check of access tokens. The issuer is the tenant's base URL; the HTTP layer passes it in.
//
// Every code and token is opaque and random, stored only as its SHA-256 with a TTL. Access and
// refresh tokens name their grant (`kcs_at_<grant id>_<secret>`): a grant is one authorization (one
// consent, or one client_credentials request) and every token issued under it is valid only while
// the grant exists, so revoking a grant (reuse, revocation of a refresh token, client deletion)
// stops all its tokens at once.
import { randomUUID } from 'node:crypto';
import type { OAuthLifetimes } from '../../config.js';
import { SYSTEM_ACTOR, type AuditActor } from '../../store/audit.js';
import type { OAuthRepository } from '../../store/oauth.js';
import type { ApiKeyService } from '../apiKeys.js';
import { NotFoundError } from '../errors.js';
import type { Tenant } from '../../schemas/records.js';
import { AuthorizationEndpoint } from './authorization.js';
import { OAuthError, toPublicClient, type PublicClient, type Registration } from './records.js';
import type { ClientRecord, TokenRecord } from '../../schemas/oauthRecords.js';
import { validateRegistration } from './registration.js';
import { digestOf, parseToken, pathWithin, randomSecret, splitScope } from './rules.js';
import { TokenEndpoint } from './tokens.js';
import { SCOPES } from '../../schemas/scopes.js';

/** Console addresses (scheme, host, port) kept as the console client's redirect URIs, the latest ones. */
const MAX_CONSOLE_ADDRESSES = 20;

export class OAuthService {
  /** GET and POST /oauth/authorize. */
  readonly authorization: AuthorizationEndpoint;
  /** POST /oauth/token and /oauth/revoke. */
  readonly tokens: TokenEndpoint;

  constructor(
    private readonly repo: OAuthRepository,
    apiKeys: ApiKeyService,
    lifetimes: OAuthLifetimes,
  ) {
    this.authorization = new AuthorizationEndpoint(repo, apiKeys, lifetimes);
    this.tokens = new TokenEndpoint(repo, lifetimes);
  }

  // ---- clients ----

  /**
   * `registrant`: who registers (actor.userId null: open registration) and, with an admin key, its
   * effective scopes. client_credentials tokens act for the registrant with the client's scope, so
   * that scope may hold nothing the registrant lacks (403 otherwise).
   */
  async register(tenant: Tenant, body: unknown, registrant: { actor: AuditActor; scopes: Set<string> | null }): Promise<Registration> {
    const registeredBy = registrant.actor.userId;
    const meta = validateRegistration(body, registeredBy !== null);
    const beyond = meta.grant_types.includes('client_credentials') ? splitScope(meta.scope).filter((s) => !registrant.scopes?.has(s)) : [];
    if (beyond.length > 0) {
      throw new OAuthError('insufficient_scope', `A client_credentials client cannot hold scopes its registrant lacks: ${beyond.join(' ')}`, { status: 403 });
    }
    const clientId = randomUUID();
    const secret = meta.token_endpoint_auth_method === 'none' ? null : `kcs_cs_${randomSecret()}`;
    const client: ClientRecord = {
      client_id: clientId,
      tenant_id: tenant.id,
      client_name: meta.client_name ?? clientId,
      redirect_uris: meta.redirect_uris,
      grant_types: meta.grant_types,
      response_types: meta.response_types,
      token_endpoint_auth_method: meta.token_endpoint_auth_method,
      scope: meta.scope,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      client_secret_expires_at: 0,
      registered_by_user_id: registeredBy,
      secret_digest: secret ? digestOf(secret) : null,
    };
    await this.repo.createClient(client, registrant.actor);
    return {
      client_id: client.client_id,
      ...(secret ? { client_secret: secret } : {}),
      client_id_issued_at: client.client_id_issued_at,
      client_name: client.client_name,
      redirect_uris: client.redirect_uris,
      grant_types: client.grant_types,
      response_types: client.response_types,
      token_endpoint_auth_method: client.token_endpoint_auth_method,
      scope: client.scope,
      client_secret_expires_at: 0,
    };
  }

  /**
   * The console's own public client (authorization code + PKCE, every scope; the consent grants
   * those the approving key holds), created on first use and given each console address it is
   * opened at as a redirect URI. Deleting it is allowed: the next console load creates another.
   */
  async consoleClient(tenant: Tenant, redirectUri: string): Promise<string> {
    const recorded = await this.repo.consoleClientId(tenant.id);
    const client = recorded ? await this.repo.getClient(tenant.id, recorded) : null;
    if (!client) {
      // None yet, or an admin deleted it.
      if (recorded) await this.repo.forgetConsoleClient(tenant.id, recorded);
      const fresh: ClientRecord = {
        client_id: randomUUID(),
        tenant_id: tenant.id,
        client_name: 'kcs console',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: SCOPES.join(' '),
        client_id_issued_at: Math.floor(Date.now() / 1000),
        client_secret_expires_at: 0,
        registered_by_user_id: null,
        secret_digest: null,
      };
      // Created before it is claimed, so that a load seeing the claim finds the client. Two first
      // loads at once: one claim wins, both use it, and the other's client goes again.
      await this.repo.createClient(fresh, SYSTEM_ACTOR);
      const clientId = await this.repo.claimConsoleClient(tenant.id, fresh.client_id);
      if (clientId !== fresh.client_id) await this.repo.deleteClient(tenant.id, fresh.client_id, SYSTEM_ACTOR);
      return clientId;
    }
    if (!client.redirect_uris.includes(redirectUri)) {
      await this.repo.replaceClient({ ...client, redirect_uris: [...client.redirect_uris, redirectUri].slice(-MAX_CONSOLE_ADDRESSES) });
    }
    return client.client_id;
  }

  async listClients(tenantId: string): Promise<PublicClient[]> {
    return (await this.repo.listClients(tenantId)).map(toPublicClient);
  }

  async getClient(tenantId: string, clientId: string): Promise<PublicClient> {
    const client = await this.repo.getClient(tenantId, clientId);
    if (!client) throw new NotFoundError('OAuth client not found');
    return toPublicClient(client);
  }

  /** Deletes the client and revokes every token issued to it. */
  async deleteClient(tenantId: string, clientId: string, actor: AuditActor = SYSTEM_ACTOR): Promise<void> {
    if (!(await this.repo.deleteClient(tenantId, clientId, actor))) throw new NotFoundError('OAuth client not found');
  }

  // ---- bearer check ----

  /** The access token's record when it is live in this tenant and bound to a resource covering `path`. */
  async verifyAccessToken(tenantId: string, token: string, path: string): Promise<TokenRecord | null> {
    const parsed = parseToken(token);
    if (!parsed || parsed.kind !== 'at') return null;
    const record = await this.repo.getAccess(tenantId, digestOf(token), parsed.grantId);
    if (!record || !pathWithin(path, record.resource_path)) return null;
    return record;
  }
}
