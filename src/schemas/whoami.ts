// GET /api/knowledge/whoami: the tenant and the caller's credential, so a client (the console)
// can show only what the credential may do.
import { Type, type Static } from '@sinclair/typebox';
import { SCOPES } from './scopes.js';

export const Whoami = Type.Object({
  tenant: Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() }),
  credential: Type.Union([Type.Literal('api_key'), Type.Literal('oauth')]),
  /** The API key id, or the OAuth grant the token belongs to. */
  credential_id: Type.String(),
  user_id: Type.String(),
  /** The OAuth client the token was issued to (null for an API key). */
  client_id: Type.Union([Type.String(), Type.Null()]),
  scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s)))),
});
export type WhoamiView = Static<typeof Whoami>;
