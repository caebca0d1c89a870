import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, Uuid } from './common.js';
import { AllowedOrigins } from './origins.js';
import { SCOPES } from './scopes.js';

export const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' });

export const UserCreate = Type.Object(
  { email: Email, name: Type.String({ minLength: 1, maxLength: 200 }) },
  { $id: 'UserCreate' },
);

export const User = Type.Object(
  { id: Uuid(), tenant_id: Uuid(), email: Type.String(), name: Type.String(), created_at: DateTime() },
  { $id: 'User' },
);

export const ScopeName = StringEnum(SCOPES);

export const ApiKeyCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Array(ScopeName, { minItems: 1, maxItems: SCOPES.length }),
    user_id: Type.Optional(Nullable(Uuid({ description: 'Owner; defaults to the caller' }))),
    expires_at: Type.Optional(Nullable(DateTime())),
    allowed_origins: Type.Optional(Nullable(AllowedOrigins)),
  },
  { $id: 'ApiKeyCreate' },
);

export const ApiKey = Type.Object(
  {
    id: Uuid(),
    tenant_id: Uuid(),
    user_id: Uuid(),
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    created_at: DateTime(),
    expires_at: Nullable(DateTime()),
    last_used_at: Nullable(DateTime()),
    allowed_origins: Type.Array(Type.String(), { description: 'Origins a browser may call with this key; empty: a server-side key' }),
  },
  { $id: 'ApiKey' },
);

export const ApiKeyCreated = Type.Composite([ApiKey, Type.Object({ key: Type.String({ description: 'The secret, shown once' }) })], {
  $id: 'ApiKeyCreated',
});

export const KeyIdParams = Type.Object({ key_id: Uuid() });
