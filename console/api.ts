// Calls to the kcs API of this tenant (same origin), with the session's bearer. An expired OAuth
// access token is renewed once with the refresh token; a credential the API refuses (401) ends
// the session.
import { currentSession, refreshSession, saveSession } from './session.js';

export interface ApiAnswer<T> {
  status: number;
  body: T;
  headers: Headers;
}

/** A 4xx/5xx answer: its status and the API's `detail` (a message, or FastAPI-style error items). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(describeDetail(status, detail));
  }
}

export function describeDetail(status: number, detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail.map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join('.')}: ${d.msg ?? ''}`).join('; ');
  }
  return `HTTP ${status}`;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is (a file being imported), with this content type. */
  raw?: { data: Blob | string; contentType: string };
  query?: Record<string, string | number | boolean | undefined | null>;
  headers?: Record<string, string>;
}

let onSignedOut: () => void = () => undefined;
/** What the app does when the API refuses the credential. */
export const whenSignedOut = (handler: () => void) => (onSignedOut = handler);

export async function api<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<ApiAnswer<T>> {
  let session = currentSession();
  if (session?.kind === 'oauth' && session.expiresAt && session.expiresAt - Date.now() < 10_000) session = (await refreshSession(session)) ?? session;
  const send = (token: string | undefined) => {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined && v !== null && v !== '') query.set(k, String(v));
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    if (token) headers.Authorization = `Bearer ${token}`;
    let body: BodyInit | undefined;
    if (options.raw) {
      headers['Content-Type'] = options.raw.contentType;
      body = options.raw.data;
    } else if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    return fetch(`${path}${query.size ? `?${query}` : ''}`, { method, headers, body });
  };
  let res = await send(session?.token);
  if (res.status === 401 && session?.kind === 'oauth') {
    const renewed = await refreshSession(session);
    if (renewed) res = await send(renewed.token);
  }
  const text = await res.text();
  // A text/plain answer (a file being exported) is its text; every other answer is JSON.
  const plain = (res.headers.get('Content-Type') ?? '').startsWith('text/plain');
  const body = text ? (plain ? text : (JSON.parse(text) as unknown)) : null;
  if (res.status === 401 && session) {
    saveSession(null);
    onSignedOut();
  }
  if (!res.ok) throw new ApiError(res.status, (body as { detail?: unknown } | null)?.detail ?? body);
  return { status: res.status, body: body as T, headers: res.headers };
}

/** GET and the body only (a text/plain answer's text). */
export const get = async <T>(path: string, query?: CallOptions['query']): Promise<T> => (await api<T>('GET', path, { query })).body;
