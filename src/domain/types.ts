// Records of the service as stored and as answered on the wire (snake_case, like the contract).
import type { Static } from '@sinclair/typebox';
import type { TenantSettings } from '../schemas/tenants.js';

export interface Tenant {
  id: string;
  slug: string;
  name: string;
  settings: Static<typeof TenantSettings>;
  created_at: string;
}

export interface User {
  id: string;
  tenant_id: string;
  email: string;
  name: string;
  created_at: string;
}

export interface ApiKeyRecord {
  id: string;
  tenant_id: string;
  user_id: string;
  name: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  /** SHA-256 hex of the whole key; the key itself is never stored. */
  digest: string;
}

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
}
