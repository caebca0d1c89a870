import { ConflictError } from './errors.js';
import { SCOPES } from '../schemas/scopes.js';
import type { ApiKeyService } from './apiKeys.js';
import type { TenantService, UserService } from './tenants.js';

/**
 * On the first start with an empty store: a `demo` tenant with an admin user and one key that
 * holds every scope. Returns the key (shown once), or null when the store was not empty.
 */
export async function bootstrapDemo(tenants: TenantService, users: UserService, apiKeys: ApiKeyService): Promise<string | null> {
  if ((await tenants.count()) > 0) return null;
  try {
    const tenant = await tenants.create('demo', 'Demo');
    const admin = await users.create(tenant.id, { email: 'admin@demo.localhost', name: 'Demo admin' });
    const { key } = await apiKeys.create(tenant.id, { userId: admin.id, name: 'first-start key', scopes: [...SCOPES] });
    return key;
  } catch (error) {
    if (error instanceof ConflictError) return null; // another process bootstrapped at the same moment
    throw error;
  }
}
