/** The authenticated caller of one request. */
export interface Principal {
  kind: 'api_key' | 'oauth';
  tenantId: string;
  userId: string;
  /** API key id or OAuth token id: the unit the rate limit counts. */
  credentialId: string;
  scopes: Set<string>;
  /** OAuth client_id when the caller used an OAuth token; never taken from a header. */
  clientId: string | null;
  /** The browser origins an API key is limited to (a request with another Origin is refused); absent or empty: no limit. */
  allowedOrigins?: readonly string[];
}
