// The console's credential, kept in this tab's session storage only: an API key pasted at sign-in,
// or the tokens of the console's own OAuth client (authorization code + PKCE through the tenant's
// consent page, where the key is typed into kcs's own page, never into the console).
const STORE = 'kcs-console-session';
const PENDING = 'kcs-console-oauth';

export interface Session {
  kind: 'api_key' | 'oauth';
  token: string;
  refreshToken?: string;
  /** Epoch ms when the access token expires (OAuth). */
  expiresAt?: number;
}

const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
export const tenantSlug = () => meta('kcs-tenant');
export const tenantName = () => meta('kcs-tenant-name');
const clientId = () => meta('kcs-console-client');
const redirectUri = () => `${location.origin}/console`;

export function currentSession(): Session | null {
  const raw = sessionStorage.getItem(STORE);
  return raw ? (JSON.parse(raw) as Session) : null;
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(STORE, JSON.stringify(session));
  else sessionStorage.removeItem(STORE);
}

const base64url = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const randomString = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** Sends the browser to the tenant's consent page; it comes back to /console?code=…&state=…. */
export async function startOAuthSignIn(): Promise<void> {
  const verifier = randomString();
  const state = randomString();
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const query = new URLSearchParams({
    response_type: 'code', client_id: clientId(), redirect_uri: redirectUri(), state,
    code_challenge: challenge, code_challenge_method: 'S256',
  });
  location.assign(`/oauth/authorize?${query}`);
}

interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
}

async function tokenRequest(form: Record<string, string>): Promise<Session> {
  const res = await fetch('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId(), ...form }),
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error_description ?? body.error ?? `token request failed (${res.status})`);
  const tokens = body as TokenAnswer;
  return {
    kind: 'oauth', token: tokens.access_token, refreshToken: tokens.refresh_token,
    expiresAt: tokens.expires_in ? Date.now() + tokens.expires_in * 1000 : undefined,
  };
}

/**
 * The end of the OAuth round trip: exchanges the code in the address for tokens (null when the
 * address carries none). The address is cleaned either way, so a reload does not send it again.
 */
export async function finishOAuthSignIn(): Promise<Session | null> {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const error = params.get('error');
  if (!code && !error) return null;
  history.replaceState(null, '', `/console${location.hash}`);
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as { verifier: string; state: string } | null;
  sessionStorage.removeItem(PENDING);
  if (error) throw new Error(params.get('error_description') ?? error);
  if (!pending || params.get('state') !== pending.state) throw new Error('The sign-in answer does not belong to this tab; sign in again.');
  const session = await tokenRequest({ grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri(), code_verifier: pending.verifier });
  saveSession(session);
  return session;
}

/** A fresh access token from the refresh token (rotated), or null when the session cannot be renewed. */
export async function refreshSession(session: Session): Promise<Session | null> {
  if (session.kind !== 'oauth' || !session.refreshToken) return null;
  try {
    const renewed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: session.refreshToken });
    saveSession(renewed);
    return renewed;
  } catch {
    return null;
  }
}

/** Signs out: an OAuth session's refresh token is revoked (its whole grant goes with it). */
export async function signOut(session: Session | null): Promise<void> {
  saveSession(null);
  if (session?.kind === 'oauth' && session.refreshToken) {
    await fetch('/oauth/revoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId(), token: session.refreshToken }),
    }).then((res) => res.text(), () => undefined);
  }
}
