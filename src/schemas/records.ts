// The records of tenants, users and API keys as stored and as answered on the wire (snake_case,
// like the contract).
import type { Static } from '@sinclair/typebox';
import type { TenantSettings } from './tenants.js';

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
  /** Normalised browser origins the key may be used from; absent on keys made before origins existed. */
  allowed_origins?: string[];
  /** SHA-256 hex of the whole key; the key itself is never stored. */
  digest: string;
}
