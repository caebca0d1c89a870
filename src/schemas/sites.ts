import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from './common.js';

const Config = Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form settings of the site' });

export const SiteCreate = Type.Object(
  {
    slug: Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$' }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    language: Type.String({ minLength: 2, maxLength: 5 }),
    domain: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    site_type: Type.Optional(Type.String({ maxLength: 50, default: 'shop' })),
    platform: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { default: {} })),
    is_default: Type.Optional(Type.Boolean({ default: false })),
  },
  { $id: 'SiteCreate' },
);

/** Partial: only provided fields change. null for name, site_type, config or is_default means "no change". */
export const SiteUpdate = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    domain: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    site_type: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
    platform: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
    config: Type.Optional(Nullable(Config)),
    is_default: Type.Optional(Nullable(Type.Boolean())),
  },
  { $id: 'SiteUpdate' },
);

export const Site = Type.Object(
  {
    id: Uuid(),
    tenant_id: Uuid(),
    slug: Type.String(),
    name: Type.String(),
    domain: Nullable(Type.String()),
    language: Type.String(),
    site_type: Type.String(),
    platform: Nullable(Type.String()),
    config: Config,
    is_default: Type.Boolean(),
    created_at: DateTime(),
  },
  { $id: 'Site' },
);

export const SiteIdParams = Type.Object({
  site_id: Type.String({ minLength: 1, maxLength: 100, description: 'Site UUID or slug' }),
});
