// Client registration (RFC 7591): the request's fields checked; every other key is ignored (spec §9).
import { isScope, SCOPES } from '../../schemas/scopes.js';
import { AUTH_METHODS, GRANT_TYPES } from '../../schemas/oauth.js';
import { DEFAULT_CLIENT_SCOPES, OAuthError } from './records.js';
import type { AuthMethod, GrantType } from '../../schemas/oauthRecords.js';
import { canonical, splitScope } from './rules.js';

const MAX_REDIRECT_URIS = 20;
const MAX_URI_LENGTH = 2000;
const MAX_CLIENT_NAME = 200;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

const metadataError = (description: string) => new OAuthError('invalid_client_metadata', description);
const redirectError = (description: string) => new OAuthError('invalid_redirect_uri', description);

function stringList(value: unknown, name: string, onError: (d: string) => OAuthError): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw onError(`${name} must be an array of strings`);
  return [...new Set(value as string[])];
}

function checkRedirectUri(uri: string): void {
  if (uri.length === 0 || uri.length > MAX_URI_LENGTH) throw redirectError(`A redirect URI has 1 to ${MAX_URI_LENGTH} characters`);
  if (uri.includes('#')) throw redirectError(`Redirect URI ${uri} must not contain a fragment`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw redirectError(`Redirect URI ${uri} is not an absolute URL`);
  }
  if (uri.trim() !== uri || /\s/.test(uri) || !uri.toLowerCase().startsWith(`${url.protocol}//`)) {
    throw redirectError(`Redirect URI ${uri} is not a well-formed absolute URL`);
  }
  if (url.username || url.password) throw redirectError(`Redirect URI ${uri} must not contain user information`);
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return;
  if (url.protocol === 'http:') {
    throw redirectError(`Redirect URI ${uri} uses http on a host that is not loopback; use https (http only for 127.0.0.1, [::1] or localhost)`);
  }
  throw redirectError(`Redirect URI ${uri} must use https (or http on 127.0.0.1, [::1] or localhost)`);
}

export interface ClientMetadata {
  client_name: string | null;
  redirect_uris: string[];
  grant_types: GrantType[];
  response_types: string[];
  token_endpoint_auth_method: AuthMethod;
  scope: string;
}

/**
 * The registration request's fields (spec §2.5), checked; every other key is ignored (spec §9).
 * `byAdmin`: registered with an admin key (client_credentials needs a user to act for).
 */
export function validateRegistration(body: unknown, byAdmin: boolean): ClientMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw metadataError('The registration body must be a JSON object');
  const input = body as Record<string, unknown>;

  let clientName: string | null = null;
  if (input.client_name !== undefined && input.client_name !== null) {
    if (typeof input.client_name !== 'string' || [...input.client_name].length > MAX_CLIENT_NAME) {
      throw metadataError(`client_name must be a string of at most ${MAX_CLIENT_NAME} characters`);
    }
    clientName = input.client_name.trim() || null;
  }

  const grantTypes = stringList(input.grant_types, 'grant_types', metadataError) ?? ['authorization_code'];
  if (grantTypes.length === 0) throw metadataError('grant_types must name at least one grant type');
  for (const grant of grantTypes) {
    if (!(GRANT_TYPES as readonly string[]).includes(grant)) {
      throw metadataError(`Unsupported grant type '${grant}'; use authorization_code, refresh_token or client_credentials`);
    }
  }
  const usesCode = grantTypes.includes('authorization_code');
  if (grantTypes.includes('refresh_token') && !usesCode) throw metadataError('refresh_token is only issued with the authorization_code grant');

  const responseTypes = stringList(input.response_types, 'response_types', metadataError) ?? (usesCode ? ['code'] : []);
  for (const type of responseTypes) {
    if (type !== 'code') throw metadataError(`Unsupported response type '${type}'; only code is supported`);
  }
  if (usesCode !== responseTypes.includes('code')) {
    throw metadataError('response_types must be ["code"] exactly when grant_types includes authorization_code');
  }

  const method = input.token_endpoint_auth_method ?? 'client_secret_basic';
  if (typeof method !== 'string' || !(AUTH_METHODS as readonly string[]).includes(method)) {
    // Only a string is quoted back: any other JSON value has no safe text (an object's own toString).
    const shown = typeof method === 'string' ? `'${method}'` : `of type ${Array.isArray(method) ? 'array' : typeof method}`;
    throw metadataError(`Unsupported token_endpoint_auth_method ${shown}; use client_secret_basic, client_secret_post or none`);
  }
  if (grantTypes.includes('client_credentials')) {
    if (method === 'none') throw metadataError('client_credentials needs a confidential client (token_endpoint_auth_method other than none)');
    if (!byAdmin) throw metadataError('client_credentials is only for clients registered with an admin key (its tokens act for that key\'s user)');
  }

  let scope: string[] = [...DEFAULT_CLIENT_SCOPES];
  if (input.scope !== undefined && input.scope !== null) {
    if (typeof input.scope !== 'string') throw metadataError('scope must be a space-separated string of scope names');
    const names = splitScope(input.scope);
    for (const name of names) {
      if (!isScope(name)) throw metadataError(`Unknown scope '${name}'; known scopes: ${SCOPES.join(' ')}`);
    }
    if (names.length > 0) scope = canonical(names);
  }

  const redirectUris = stringList(input.redirect_uris, 'redirect_uris', redirectError) ?? [];
  if (usesCode && redirectUris.length === 0) throw redirectError('redirect_uris must name at least one URI for the authorization_code grant');
  if (redirectUris.length > MAX_REDIRECT_URIS) throw redirectError(`At most ${MAX_REDIRECT_URIS} redirect URIs`);
  redirectUris.forEach(checkRedirectUri);

  return {
    client_name: clientName,
    redirect_uris: redirectUris,
    grant_types: grantTypes as GrantType[],
    response_types: responseTypes,
    token_endpoint_auth_method: method as AuthMethod,
    scope: scope.join(' '),
  };
}
