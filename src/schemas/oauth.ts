// The OAuth surface as TypeBox schemas. The OAuth endpoints parse their own input (their errors are
// RFC-shaped, not 422), so the request schemas here document the wire format in /openapi.json;
// the response schemas describe what the handlers answer.
import { Type } from '@sinclair/typebox';
import { SCOPES } from './scopes.js';
import { Nullable, StringEnum, Uuid } from './common.js';

export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;

const ScopeString = Type.String({ description: `Space-separated scope names: ${SCOPES.join(' ')}` });

/** RFC 6749 §5.2 / RFC 7591 §3.2.2 error body. */
export const OAuthErrorBody = Type.Object(
  { error: Type.String(), error_description: Type.String() },
  { $id: 'OAuthError' },
);

export const ClientRegistrationRequest = Type.Object(
  {
    client_name: Type.Optional(Type.String({ maxLength: 200, description: 'Shown on the consent page; default: the client_id' })),
    redirect_uris: Type.Optional(Type.Array(Type.String(), {
      maxItems: 20,
      description: 'https, or http only on 127.0.0.1, [::1] or localhost; no fragment. Required with authorization_code.',
    })),
    grant_types: Type.Optional(Type.Array(StringEnum(GRANT_TYPES), { description: 'Default ["authorization_code"]' })),
    response_types: Type.Optional(Type.Array(Type.Literal('code'), { description: 'Default ["code"] with authorization_code, else []' })),
    token_endpoint_auth_method: Type.Optional(StringEnum(AUTH_METHODS, { default: 'client_secret_basic' })),
    scope: Type.Optional(Type.String({ description: 'Space-separated scope names; default: every scope except admin' })),
  },
  { $id: 'ClientRegistrationRequest', additionalProperties: true },
);

const clientFields = {
  client_id: Uuid(),
  client_id_issued_at: Type.Integer({ description: 'Unix seconds' }),
  client_name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  grant_types: Type.Array(StringEnum(GRANT_TYPES)),
  response_types: Type.Array(Type.String()),
  token_endpoint_auth_method: StringEnum(AUTH_METHODS),
  scope: ScopeString,
  client_secret_expires_at: Type.Integer({ description: '0: the secret does not expire' }),
};

export const ClientRegistrationResponse = Type.Object(
  {
    ...clientFields,
    client_secret: Type.Optional(Type.String({ description: 'Confidential clients only; shown this once, stored as a SHA-256 digest' })),
  },
  { $id: 'ClientRegistrationResponse' },
);

export const OAuthClient = Type.Object(
  {
    ...clientFields,
    tenant_id: Uuid(),
    registered_by_user_id: Nullable(Uuid({ description: 'The user of the admin key that registered it; null with open registration' })),
  },
  { $id: 'OAuthClient' },
);

export const ClientIdParams = Type.Object({ client_id: Uuid() });

export const AuthorizeQuery = Type.Object(
  {
    response_type: Type.Literal('code'),
    client_id: Uuid(),
    redirect_uri: Type.Optional(Type.String({ description: 'Exactly one of the registered URIs; optional when only one is registered' })),
    code_challenge: Type.String({ description: 'BASE64URL(SHA-256(code_verifier)), 43 characters' }),
    code_challenge_method: Type.Literal('S256'),
    state: Type.Optional(Type.String({ description: 'Echoed in the redirect' })),
    scope: Type.Optional(Type.String({ description: 'Space-separated; ⊆ the client\'s scope; default the client\'s scope' })),
    resource: Type.Optional(Type.String({ description: 'RFC 8707: the tenant base URL (default), <base>/api or <base>/mcp' })),
  },
  { $id: 'AuthorizeQuery' },
);

export const ConsentForm = Type.Object(
  {
    request_id: Uuid(),
    csrf_token: Type.String(),
    decision: StringEnum(['approve', 'deny'] as const),
    api_key: Type.Optional(Type.String({ description: 'An API key of the signing-in user (needed to approve)' })),
  },
  { $id: 'ConsentForm' },
);

export const TokenRequest = Type.Object(
  {
    grant_type: StringEnum(GRANT_TYPES),
    code: Type.Optional(Type.String()),
    redirect_uri: Type.Optional(Type.String()),
    code_verifier: Type.Optional(Type.String()),
    refresh_token: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String({ description: 'refresh_token / client_credentials: narrows the scope' })),
    resource: Type.Optional(Type.String({ description: 'RFC 8707: narrows the token to <base>/api or <base>/mcp' })),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
  },
  { $id: 'TokenRequest' },
);

export const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
    refresh_token: Type.Optional(Type.String({ description: 'Only for clients registered with the refresh_token grant; never for client_credentials' })),
    scope: ScopeString,
  },
  { $id: 'TokenResponse' },
);

export const RevocationRequest = Type.Object(
  {
    token: Type.String(),
    token_type_hint: Type.Optional(StringEnum(['access_token', 'refresh_token'] as const)),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
  },
  { $id: 'RevocationRequest' },
);

export const AuthorizationServerMetadata = Type.Object(
  {
    issuer: Type.String(),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    registration_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    scopes_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
    response_modes_supported: Type.Array(Type.String()),
    grant_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    code_challenge_methods_supported: Type.Array(Type.String()),
    authorization_response_iss_parameter_supported: Type.Boolean(),
  },
  { $id: 'AuthorizationServerMetadata' },
);

export const ProtectedResourceMetadata = Type.Object(
  {
    resource: Type.String(),
    authorization_servers: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    bearer_methods_supported: Type.Array(Type.String()),
    resource_name: Type.String(),
  },
  { $id: 'ProtectedResourceMetadata' },
);
