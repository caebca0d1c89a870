// What every page knows: who is signed in, and what their credential may do.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export type Scope =
  | 'catalog:read' | 'catalog:write' | 'search' | 'knowledge:read' | 'knowledge:write' | 'admin'
  | 'visibility:community' | 'visibility:internal' | 'visibility:restricted';

export interface Whoami {
  tenant: { id: string; slug: string; name: string };
  credential: 'api_key' | 'oauth';
  credential_id: string;
  user_id: string;
  client_id: string | null;
  scopes: Scope[];
}

export interface Signed {
  whoami: Whoami;
  can: (scope: Scope) => boolean;
}

export const SignedIn = createContext<Signed | null>(null);

export function useSignedIn(): Signed {
  const signed = useContext(SignedIn);
  if (!signed) throw new Error('useSignedIn outside the signed-in console');
  return signed;
}
