// The token endpoint (authorization_code with PKCE, refresh_token with rotation and reuse
// detection, client_credentials), revocation (RFC 7009) and the client authentication of both.
import { randomUUID } from 'node:crypto';
import type { OAuthLifetimes } from '../../config.js';
import { isUuid } from '../../schemas/common.js';
import { GRANT_TYPES } from '../../schemas/oauth.js';
import type { IssueResult, NewTokens, OAuthRepository } from '../../store/oauth.js';
import type { Tenant } from '../../schemas/records.js';
import { OAuthError, type OAuthContext, type PresentedClient, type TokenResponse } from './records.js';
import type { ClientRecord, CodeRecord, GrantRecord, GrantType } from '../../schemas/oauthRecords.js';
import { canonical, CODE_RE, digestOf, narrowResource, parseToken, randomSecret, resolveResource, s256, safeEqual, splitScope, VERIFIER_RE } from './rules.js';

/** What an access token holds: its scope, and the resource it is bound to. */
interface AccessGrant {
  scope: string[];
  target: { resource: string; resource_path: string };
}

export class TokenEndpoint {
  constructor(
    private readonly repo: OAuthRepository,
    private readonly lifetimes: OAuthLifetimes,
  ) {}

  async token(context: OAuthContext, presented: PresentedClient): Promise<TokenResponse> {
    const form = presented.form;
    const repeated = [...new Set([...form.keys()].filter((k) => form.getAll(k).length > 1 && k !== 'resource'))];
    if (repeated.length > 0) throw new OAuthError('invalid_request', `Repeated parameter: ${repeated.join(', ')}`);
    if (form.getAll('resource').length > 1) throw new OAuthError('invalid_target', 'Send at most one resource');
    const client = await this.authenticateClient(context.tenant.id, presented);
    const grantType = form.get('grant_type');
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
    if (!(GRANT_TYPES as readonly string[]).includes(grantType)) {
      throw new OAuthError('unsupported_grant_type', `Unsupported grant_type '${grantType}'; use authorization_code, refresh_token or client_credentials`);
    }
    if (!client.grant_types.includes(grantType as GrantType)) {
      throw new OAuthError('unauthorized_client', `This client is not registered for the ${grantType} grant`);
    }
    switch (grantType as GrantType) {
      case 'authorization_code':
        return this.exchangeCode(context, client, form);
      case 'refresh_token':
        return this.refresh(context, client, form);
      case 'client_credentials':
        return this.clientCredentials(context, client, form);
    }
  }

  private async exchangeCode({ tenant, issuer }: OAuthContext, client: ClientRecord, form: URLSearchParams): Promise<TokenResponse> {
    const code = form.get('code');
    const verifier = form.get('code_verifier');
    const redirectUri = form.get('redirect_uri');
    if (!code) throw new OAuthError('invalid_request', 'code is required');
    const invalid = () => new OAuthError('invalid_grant', 'The authorization code is unknown, expired or already used');
    if (!CODE_RE.test(code)) throw invalid();
    const codeDigest = digestOf(code);
    const stored = await this.repo.getCode<CodeRecord>(tenant.id, codeDigest);
    if (!stored) throw invalid();
    const found = stored.record;
    if (found.client_id !== client.client_id) throw new OAuthError('invalid_grant', 'The authorization code was issued to another client');
    // A code seen again is replayed, whatever else the request says: the script revokes its grant.
    if (!stored.used) {
      if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
      if (!VERIFIER_RE.test(verifier) || !safeEqual(s256(verifier), found.code_challenge)) {
        throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
      }
      if ((found.redirect_uri_given || redirectUri !== null) && redirectUri !== found.redirect_uri) {
        throw new OAuthError('invalid_grant', 'redirect_uri does not match the one of the authorization request');
      }
    }
    const target = stored.used ? found : narrowResource(issuer, found, form.get('resource'));
    const grant: GrantRecord = {
      id: found.grant_id,
      kind: 'authorization_code',
      client_id: client.client_id,
      user_id: found.user_id,
      api_key_id: found.api_key_id,
      scope: found.scope,
      resource: found.resource,
      resource_path: found.resource_path,
      created_at: new Date().toISOString(),
    };
    const issued = this.newTokens(grant, { scope: grant.scope, target }, client.grant_types.includes('refresh_token'));
    const result = await this.repo.exchangeCode(
      tenant.id, { digest: codeDigest, usedMemoryMs: Math.max(this.lifetimes.accessTtlS, this.lifetimes.codeTtlS) * 1000 }, issued.tokens,
    );
    this.check(result, 'The authorization code was already used; the tokens issued from it are revoked');
    return issued.response;
  }

  private async refresh({ tenant, issuer }: OAuthContext, client: ClientRecord, form: URLSearchParams): Promise<TokenResponse> {
    const presented = form.get('refresh_token');
    if (!presented) throw new OAuthError('invalid_request', 'refresh_token is required');
    const invalid = () => new OAuthError('invalid_grant', 'The refresh token is unknown, expired or revoked');
    const parsed = parseToken(presented);
    if (!parsed || parsed.kind !== 'rt') throw invalid();
    const digest = digestOf(presented);
    const found = await this.repo.getRefresh(tenant.id, digest);
    if (!found || found.record.grant_id !== parsed.grantId) throw invalid();
    const { record } = found;
    if (record.client_id !== client.client_id) throw new OAuthError('invalid_grant', 'The refresh token was issued to another client');

    let scope = record.scope;
    const scopeParam = form.get('scope');
    if (scopeParam !== null && scopeParam.trim() !== '') {
      const names = splitScope(scopeParam);
      const outside = names.filter((s) => !record.scope.includes(s));
      if (outside.length > 0) throw new OAuthError('invalid_scope', `Scope beyond the original grant: ${outside.join(' ')}`);
      scope = canonical(names);
    }
    const target = narrowResource(issuer, record, form.get('resource'));
    const grant: GrantRecord = { ...record, id: record.grant_id, kind: 'authorization_code', created_at: '' };
    const issued = this.newTokens(grant, { scope, target }, true);
    const result = await this.repo.rotateRefresh(tenant.id, digest, { ...issued.tokens, refresh: issued.tokens.refresh! });
    this.check(result, 'The refresh token was already used; every token of its grant is revoked');
    return issued.response;
  }

  private async clientCredentials({ tenant, issuer }: OAuthContext, client: ClientRecord, form: URLSearchParams): Promise<TokenResponse> {
    if (client.token_endpoint_auth_method === 'none' || !client.secret_digest || !client.registered_by_user_id) {
      throw new OAuthError('unauthorized_client', 'client_credentials is only for confidential clients registered with an admin key');
    }
    const allowed = splitScope(client.scope);
    let scope = allowed;
    const scopeParam = form.get('scope');
    if (scopeParam !== null && scopeParam.trim() !== '') {
      const names = splitScope(scopeParam);
      const outside = names.filter((s) => !allowed.includes(s));
      if (outside.length > 0) throw new OAuthError('invalid_scope', `Scope not registered for this client: ${outside.join(' ')}`);
      scope = canonical(names);
    }
    const target = resolveResource(issuer, form.get('resource'));
    const grant: GrantRecord = {
      id: randomUUID(),
      kind: 'client_credentials',
      client_id: client.client_id,
      user_id: client.registered_by_user_id,
      scope,
      ...target,
      created_at: new Date().toISOString(),
    };
    const issued = this.newTokens(grant, { scope, target }, false);
    this.check(await this.repo.issueAccessOnly(tenant.id, issued.tokens), '');
    return issued.response;
  }

  /** The grant's new tokens; the access token holds `scope`, bound to the resource of `target`. */
  private newTokens(grant: GrantRecord, { scope, target }: AccessGrant, withRefresh: boolean) {
    const access = `kcs_at_${grant.id}_${randomSecret()}`;
    const refresh = withRefresh ? `kcs_rt_${grant.id}_${randomSecret()}` : null;
    const base = { grant_id: grant.id, client_id: grant.client_id, user_id: grant.user_id };
    const tokens: NewTokens = {
      grant,
      access: { digest: digestOf(access), record: { ...base, scope, ...target }, ttlMs: this.lifetimes.accessTtlS * 1000 },
      refresh: refresh
        ? { digest: digestOf(refresh), record: { ...base, scope: grant.scope, resource: grant.resource, resource_path: grant.resource_path }, ttlMs: this.lifetimes.refreshTtlS * 1000 }
        : null,
    };
    const response: TokenResponse = {
      access_token: access,
      token_type: 'Bearer',
      expires_in: this.lifetimes.accessTtlS,
      ...(refresh ? { refresh_token: refresh } : {}),
      scope: scope.join(' '),
    };
    return { tokens, response };
  }

  private check(result: IssueResult, reusedMessage: string): void {
    if (result === 'issued') return;
    if (result === 'client_gone') throw invalidClient('The client is no longer registered');
    if (result === 'reused') throw new OAuthError('invalid_grant', reusedMessage);
    throw new OAuthError('invalid_grant', 'The grant is unknown, expired or revoked');
  }

  // ---- revocation (RFC 7009) ----

  /** Revokes a token of the authenticated client; unknown tokens and other clients' tokens are ignored. */
  async revoke(tenant: Tenant, presented: PresentedClient): Promise<void> {
    const form = presented.form;
    const client = await this.authenticateClient(tenant.id, presented);
    const token = form.get('token');
    if (!token) throw new OAuthError('invalid_request', 'token is required');
    const parsed = parseToken(token);
    if (!parsed) return;
    const digest = digestOf(token);
    if (parsed.kind === 'at') {
      const record = await this.repo.getAccessRecord(tenant.id, digest);
      if (record && record.client_id === client.client_id) await this.repo.deleteAccess(tenant.id, digest);
      return;
    }
    const found = await this.repo.getRefresh(tenant.id, digest);
    if (found && found.record.client_id === client.client_id && found.record.grant_id === parsed.grantId) {
      await this.repo.revokeGrant(tenant.id, { clientId: client.client_id, grantId: parsed.grantId, refreshDigest: digest });
    }
  }

  // ---- client authentication ----

  /**
   * The client of a token or revocation request: HTTP Basic, or client_id (+ client_secret) form
   * fields. Confidential clients prove their secret by either method; public clients send only
   * client_id (PKCE protects their codes).
   */
  async authenticateClient(tenantId: string, { basic, form }: PresentedClient): Promise<ClientRecord> {
    const formId = form.get('client_id');
    const formSecret = form.get('client_secret');
    if (basic) {
      if (formSecret !== null) throw new OAuthError('invalid_request', 'Use one client authentication method, not Basic and client_secret together');
      if (formId !== null && formId !== basic.clientId) throw new OAuthError('invalid_request', 'client_id differs from the one in the Authorization header');
    }
    const clientId = basic?.clientId ?? formId;
    const secret = basic?.secret ?? formSecret;
    if (!clientId) throw invalidClient('Client authentication is required (client_id)');
    const client = isUuid(clientId) ? await this.repo.getClient(tenantId, clientId.toLowerCase()) : null;
    if (!client) throw invalidClient('Unknown client');
    if (client.secret_digest === null) {
      if (secret) throw invalidClient('This is a public client: it has no secret');
      return client;
    }
    if (!secret) throw invalidClient('Client authentication failed: client_secret is required');
    if (!safeEqual(digestOf(secret), client.secret_digest)) throw invalidClient('Client authentication failed');
    return client;
  }
}


function invalidClient(description: string): OAuthError {
  // A 401 always names the scheme to use (RFC 9110 §11.6.1); Basic is what RFC 6749 §5.2 asks for.
  return new OAuthError('invalid_client', description, { status: 401, headers: { 'WWW-Authenticate': 'Basic realm="kcs"' } });
}
