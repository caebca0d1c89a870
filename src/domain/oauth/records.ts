// The OAuth 2.1 authorization server's records and its error (DESIGN §5): what the endpoints
// (authorization.ts, tokens.ts) and the store (store/oauth.ts) hand each other.
import { AUTH_METHODS, GRANT_TYPES } from '../../schemas/oauth.js';
import { SCOPES } from '../scopes.js';

export type GrantType = (typeof GRANT_TYPES)[number];
export type AuthMethod = (typeof AUTH_METHODS)[number];
/** Paths below the tenant base URL that a token may be bound to (RFC 8707 `resource`): '' = all. */
export const RESOURCE_PATHS = ['', '/api', '/mcp'] as const;
/** Scopes a client gets when it registers without `scope`: everything except `admin`. */
export const DEFAULT_CLIENT_SCOPES = SCOPES.filter((s) => s !== 'admin');
/** How long the consent page waits for the user's answer. */
export const PENDING_TTL_MS = 10 * 60_000;

/** An error the OAuth endpoints answer in the RFC shape `{error, error_description}`. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

export interface ClientRecord {
  client_id: string;
  tenant_id: string;
  client_name: string;
  redirect_uris: string[];
  grant_types: GrantType[];
  response_types: string[];
  token_endpoint_auth_method: AuthMethod;
  /** Space-separated, like the wire format. */
  scope: string;
  client_id_issued_at: number;
  client_secret_expires_at: 0;
  /** The user of the admin key that registered the client; null when open registration was used. */
  registered_by_user_id: string | null;
  /** SHA-256 hex of the client secret; null for public clients. */
  secret_digest: string | null;
}

export type PublicClient = Omit<ClientRecord, 'secret_digest'>;

/** The RFC 7591 §3.2.1 answer (spec §2.5): the client as stored, its secret this once (confidential clients only). */
export type Registration = Omit<ClientRecord, 'tenant_id' | 'registered_by_user_id' | 'secret_digest'> & { client_secret?: string };

/** An authorization request waiting for the consent page's answer. */
export interface PendingAuthorization {
  id: string;
  client_id: string;
  redirect_uri: string;
  /** Whether redirect_uri was sent (then the token request must repeat it). */
  redirect_uri_given: boolean;
  state: string | null;
  scope: string[];
  resource: string;
  resource_path: string;
  code_challenge: string;
  /** Echoed by the consent form and its cookie. */
  csrf: string;
}

export interface CodeRecord {
  grant_id: string;
  client_id: string;
  user_id: string;
  api_key_id: string;
  redirect_uri: string;
  redirect_uri_given: boolean;
  code_challenge: string;
  scope: string[];
  resource: string;
  resource_path: string;
}

export interface GrantRecord {
  id: string;
  kind: 'authorization_code' | 'client_credentials';
  client_id: string;
  user_id: string;
  /** The API key that approved the consent (authorization_code): revoking the key revokes the grant. */
  api_key_id?: string;
  scope: string[];
  resource: string;
  resource_path: string;
  created_at: string;
}

/** What an access or refresh token carries. */
export interface TokenRecord {
  grant_id: string;
  client_id: string;
  user_id: string;
  scope: string[];
  resource: string;
  resource_path: string;
}

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
