import { Type } from '@sinclair/typebox';
import { DateTime, StringEnum, Uuid } from './common.js';

export const VARIANT_STRATEGIES = ['all', 'children_only', 'parents_only'] as const;

const FacetAttributes = Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }), {
  maxItems: 50, default: [], description: 'Attributes product search can facet on (facets: ["attributes.<name>"]), case-insensitive; filters work on every attribute',
});

export const TenantSettings = Type.Object(
  {
    variant_strategy: StringEnum(VARIANT_STRATEGIES, {
      default: 'all',
      description: 'children_only hides is_parent products from search; parents_only hides is_variant products',
    }),
    oauth_open_registration: Type.Boolean({ default: false, description: 'Allow /oauth/register without an admin key' }),
    rate_limit_per_s: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Requests per second per key; 0 = no limit' }),
    facet_attributes: FacetAttributes,
  },
  { $id: 'TenantSettings' },
);

export const TenantSettingsUpdate = Type.Partial(Type.Object({
  variant_strategy: StringEnum(VARIANT_STRATEGIES),
  oauth_open_registration: Type.Boolean(),
  rate_limit_per_s: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  facet_attributes: FacetAttributes,
}, { additionalProperties: false }), { $id: 'TenantSettingsUpdate' });

export const TenantSlug = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$' });

export const Tenant = Type.Object(
  { id: Uuid(), slug: TenantSlug, name: Type.String(), settings: TenantSettings, created_at: DateTime() },
  { $id: 'Tenant' },
);
