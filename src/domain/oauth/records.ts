// The OAuth 2.1 authorization server's records and its error (DESIGN §5): what the endpoints
// (authorization.ts, tokens.ts) and the store (store/oauth.ts) hand each other.
import type { ClientRecord, PendingAuthorization } from '../../schemas/oauthRecords.js';
import type { Tenant } from '../../schemas/records.js';
import { SCOPES } from '../../schemas/scopes.js';

/** Paths below the tenant base URL that a token may be bound to (RFC 8707 `resource`): '' = all. */
export const RESOURCE_PATHS = ['', '/api', '/mcp'] as const;
/** Scopes a client gets when it registers without `scope`: everything except `admin`. */
export const DEFAULT_CLIENT_SCOPES = SCOPES.filter((s) => s !== 'admin');
/** How long the consent page waits for the user's answer. */
export const PENDING_TTL_MS = 10 * 60_000;

/** How an OAuthError is answered besides its body: the status (400 unless given) and extra headers. */
export interface OAuthErrorReply {
  status?: number;
  headers?: Record<string, string>;
}

/** An error the OAuth endpoints answer in the RFC shape `{error, error_description}`. */
export class OAuthError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly error: string,
    readonly description: string,
    { status = 400, headers = {} }: OAuthErrorReply = {},
  ) {
    super(description);
    this.status = status;
    this.headers = headers;
  }
}

/** Whose authorization server a request reaches: the tenant, and its issuer (the base URL the caller addressed). */
export interface OAuthContext {
  tenant: Tenant;
  issuer: string;
}

export type PublicClient = Omit<ClientRecord, 'secret_digest'>;

/** The RFC 7591 §3.2.1 answer (spec §2.5): the client as stored, its secret this once (confidential clients only). */
export type Registration = Omit<ClientRecord, 'tenant_id' | 'registered_by_user_id' | 'secret_digest'> & { client_secret?: string };

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

export type AuthorizeOutcome =
  | { kind: 'error_page'; status: number; title: string; message: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'consent'; status: number; pending: PendingAuthorization; client: ClientRecord; error?: string };

/** Client credentials as presented: HTTP Basic (already decoded) and the form fields. */
export interface PresentedClient {
  basic: { clientId: string; secret: string } | null;
  form: URLSearchParams;
}

export const toPublicClient = ({ secret_digest: _secret, ...rest }: ClientRecord): PublicClient => rest;
