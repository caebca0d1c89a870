// The OAuth authorization server's stored records (DESIGN §5): clients, pending authorization
// requests, codes, grants (token families) and tokens, as the store keeps them (JSON).
import type { AUTH_METHODS, GRANT_TYPES } from './oauth.js';

export type GrantType = (typeof GRANT_TYPES)[number];
export type AuthMethod = (typeof AUTH_METHODS)[number];

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
