// OAuth test helpers: a fetch for oauth4webapi that reaches kcs on 127.0.0.1 while keeping the
// tenant's Host (Node cannot resolve *.localhost), and the consent step driven over plain HTTP.
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import * as oauth from 'oauth4webapi';
import type { HttpResult, Stack, TenantFixture } from './stack.js';

const agent = new Agent({ keepAlive: true });

/** A fetch that connects to 127.0.0.1:<port> and sends the URL's host as the Host header. */
export function loopbackFetch(port: number) {
  return (url: string, init: { method?: string; headers?: Record<string, string> | Headers; body?: unknown } = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      const headers: Record<string, string> = {};
      new Headers(init.headers as HeadersInit | undefined).forEach((value, name) => (headers[name] = value));
      headers.host = target.host;
      let payload: Buffer | undefined;
      if (init.body !== undefined && init.body !== null) {
        payload = Buffer.from(init.body instanceof URLSearchParams ? init.body.toString() : String(init.body));
        headers['content-length'] = String(payload.length);
      }
      const req = httpRequest(
        { host: '127.0.0.1', port, method: init.method ?? 'GET', path: target.pathname + target.search, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) responseHeaders.append(name, v);
            }
            const status = res.statusCode ?? 0;
            const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
            const response = new Response(body, { status, headers: responseHeaders });
            Object.defineProperty(response, 'url', { value: url });
            resolve(response);
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
}

/** oauth4webapi options for a kcs on loopback over http. */
export function clientOptions(port: number) {
  return { [oauth.customFetch]: loopbackFetch(port), [oauth.allowInsecureRequests]: true } as const;
}

export const baseUrl = (stack: Stack, t: TenantFixture) => `http://${t.tenant.slug}.localhost:${stack.port}`;

/** The authorization server metadata through oauth4webapi's discovery. */
export async function discover(stack: Stack, t: TenantFixture): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(baseUrl(stack, t));
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...clientOptions(stack.port) });
  return oauth.processDiscoveryResponse(issuer, response);
}

/** POST /oauth/register with an admin key (or none); the raw result. */
export function register(t: TenantFixture, metadata: unknown, key: string | null = t.key): Promise<HttpResult> {
  return t.request('POST', '/oauth/register', { body: metadata, ...(key ? { key } : { key: undefined }) });
}

export interface PkceRequest {
  url: URL;
  verifier: string;
  state: string;
}

/** An authorization URL with PKCE S256 and a state. */
export async function authorizationUrl(
  as: oauth.AuthorizationServer,
  clientId: string,
  redirectUri: string,
  extra: Record<string, string> = {},
): Promise<PkceRequest> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
  return { url, verifier, state };
}

/** GET of an absolute kcs URL through the stack (Host from the URL). */
export function get(stack: Stack, url: URL, headers: Record<string, string> = {}): Promise<HttpResult> {
  return stack.request('GET', url.pathname + url.search, { host: url.host, headers });
}

export interface ConsentPage {
  res: HttpResult;
  requestId: string;
  csrf: string;
  /** `name=value` of the page's CSRF cookie. */
  cookie: string;
}

/** Loads the consent page and reads its hidden fields and cookie. */
export async function openConsent(stack: Stack, url: URL): Promise<ConsentPage> {
  const res = await get(stack, url);
  assert.equal(res.status, 200, res.text);
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(res.text)?.[1];
  const requestId = field('request_id');
  const csrf = field('csrf_token');
  assert.ok(requestId && csrf, 'the consent page carries request_id and csrf_token');
  const setCookie = String(res.headers['set-cookie'] ?? '');
  const cookie = /^(kcs_csrf_[^=]+=[^;]*)/.exec(setCookie)?.[1];
  assert.ok(cookie, `a CSRF cookie is set: ${setCookie}`);
  return { res, requestId, csrf, cookie };
}

/** POSTs the consent form; fields override the page's own. */
export function answerConsent(
  stack: Stack,
  url: URL,
  page: ConsentPage,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const form = new URLSearchParams({ request_id: page.requestId, csrf_token: page.csrf, ...fields });
  return stack.request('POST', '/oauth/authorize', {
    host: url.host,
    raw: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie, ...headers },
  });
}

/** The whole consent step: open the page, approve with this key, return the redirect's URL. */
export async function approve(stack: Stack, url: URL, apiKey: string): Promise<URL> {
  const page = await openConsent(stack, url);
  const res = await answerConsent(stack, url, page, { api_key: apiKey, decision: 'approve' });
  assert.equal(res.status, 302, res.text);
  return new URL(String(res.headers.location));
}

/** A form POST to the token or revocation endpoint, with optional Basic credentials. */
export function postForm(
  t: TenantFixture,
  path: string,
  fields: Record<string, string>,
  basic?: { id: string; secret: string },
): Promise<HttpResult> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}`;
  return t.request('POST', path, { key: undefined, raw: new URLSearchParams(fields).toString(), headers });
}

/** An RFC 6749 §5.2 error answer: this status and error code, no caching. */
export function assertOAuthError(res: HttpResult, status: number, error: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error, error, res.text);
  assert.equal(typeof res.body.error_description, 'string');
  assert.deepEqual(Object.keys(res.body).sort(), ['error', 'error_description']);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.headers.pragma, 'no-cache');
}
