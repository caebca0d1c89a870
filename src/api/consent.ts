// The server-rendered consent page of /oauth/authorize and its error page: plain HTML with one
// inline style sheet, no script, no framework. Every value is HTML-escaped. The page may not be
// framed or cached; the form carries a CSRF token that must match the one stored with the pending
// request and the one in a per-request cookie (SameSite=Strict, HttpOnly).
import { createHash } from 'node:crypto';
import type { ClientRecord, PendingAuthorization } from '../schemas/oauthRecords.js';
import type { Reply } from '../http/route.js';

const SCOPE_TEXT: Record<string, string> = {
  'catalog:read': 'Read sites, products and categories',
  'catalog:write': 'Create, change and delete sites, products and categories',
  search: 'Search products and see related products (storefront search only)',
  'knowledge:read': 'Read knowledge entries',
  'knowledge:write': 'Create, change and delete knowledge entries',
  admin: 'Administer this tenant: settings, users, API keys and OAuth clients',
  'visibility:community': 'See knowledge entries up to community visibility',
  'visibility:internal': 'See knowledge entries up to internal visibility',
  'visibility:restricted': 'See knowledge entries up to restricted visibility',
};

const CSS = `
*{box-sizing:border-box}
body{margin:0;background:#f3f4f6;color:#111827;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:34rem;margin:3rem auto;padding:2rem;background:#fff;border:1px solid #e5e7eb;border-radius:12px}
h1{font-size:1.35rem;margin:0 0 1rem}
p{margin:.5rem 0}
.muted{color:#6b7280;font-size:.875rem;word-break:break-all}
ul{padding-left:1.2rem;margin:.5rem 0 1rem}
li{margin:.25rem 0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em;background:#f3f4f6;padding:0 .25em;border-radius:4px}
label{display:block;font-weight:600;margin:1.25rem 0 .35rem}
input[type=password]{width:100%;padding:.6rem .7rem;border:1px solid #d1d5db;border-radius:8px;font:inherit}
.error{background:#fef2f2;border:1px solid #fecaca;color:#991b1b;padding:.6rem .8rem;border-radius:8px;margin:1rem 0}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}
button{flex:1;padding:.65rem 1rem;border-radius:8px;border:1px solid #d1d5db;background:#fff;font:inherit;font-weight:600;cursor:pointer}
button.approve{background:#1d4ed8;border-color:#1d4ed8;color:#fff}
`.trim();

const CSS_HASH = createHash('sha256').update(CSS).digest('base64');

/** Security headers of every HTML answer. */
const HTML_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer the browser sends `Origin: null` on the form's POST.
  'Referrer-Policy': 'same-origin',
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${CSS_HASH}'; frame-ancestors 'none'; base-uri 'none'`,
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>
`;
}

export function htmlReply(status: number, html: string, headers: Record<string, string> = {}): Reply {
  return { status, raw: { contentType: 'text/html; charset=utf-8', data: html }, headers: { ...HTML_HEADERS, ...headers } };
}

/** The name of the cookie that binds a consent form to the browser that loaded it. */
export const csrfCookieName = (requestId: string) => `kcs_csrf_${requestId}`;

export interface CsrfCookie {
  requestId: string;
  value: string;
  /** Sent over https only (KCS_PUBLIC_SCHEME https). */
  secure: boolean;
  maxAgeS: number;
}

export function csrfCookie({ requestId, value, secure, maxAgeS }: CsrfCookie): string {
  return `${csrfCookieName(requestId)}=${value}; Path=/oauth/authorize; Max-Age=${maxAgeS}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** One cookie's value from a Cookie header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}

export interface ConsentView {
  tenantName: string;
  client: ClientRecord;
  pending: PendingAuthorization;
  error?: string;
}

export function consentPage({ tenantName, client, pending, error }: ConsentView): string {
  const redirect = new URL(pending.redirect_uri);
  const scopes = pending.scope
    .map((s) => `<li><code>${escapeHtml(s)}</code> ${escapeHtml(SCOPE_TEXT[s] ?? s)}</li>`)
    .join('\n');
  const name = escapeHtml(client.client_name);
  return page(
    `Authorize ${client.client_name}`,
    `<h1>Authorize ${name}</h1>
<p><strong>${name}</strong> asks for access to <strong>${escapeHtml(tenantName)}</strong> on your behalf.</p>
<p>After your answer you return to <strong>${escapeHtml(redirect.host)}</strong>.</p>
<p class="muted">${escapeHtml(pending.redirect_uri)}</p>
<p>It asks for these permissions:</p>
<ul>
${scopes}
</ul>
<p class="muted">Resource: ${escapeHtml(pending.resource)}<br>Client id: ${escapeHtml(client.client_id)}</p>
${error ? `<div class="error" role="alert">${escapeHtml(error)}</div>` : ''}
<form method="post" action="/oauth/authorize">
<input type="hidden" name="request_id" value="${escapeHtml(pending.id)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(pending.csrf)}">
<label for="api_key">Sign in with one of your API keys</label>
<input type="password" id="api_key" name="api_key" autocomplete="off" spellcheck="false" required>
<p class="muted">The key only proves who you are; the application never sees it. It is granted the listed permissions that your key holds.</p>
<div class="actions">
<button type="submit" name="decision" value="approve" class="approve">Approve</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>`,
  );
}
