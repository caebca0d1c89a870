// The console (DESIGN §8): a web UI on every tenant host, served by kcs itself. `/console` answers
// the page (its script and style sheet are files of this origin: the CSP allows no inline script
// or style and no other origin but https images, product pictures being on shops' hosts);
// `/console/assets/<name>` the bundle (consoleBundle.ts). A browser asking for `/` is sent to the
// console; an API client keeps getting JSON.
import type { OAuthService } from '../domain/oauth/service.js';
import { HttpError } from '../http/errors.js';
import { defineRoute, json, type Route } from '../http/route.js';
import type { Guard } from './guard.js';
import { escapeHtml } from './consent.js';
import { consoleBundle } from './consoleBundle.js';

const CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self' data: https:",
  "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'",
].join('; ');

const PAGE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Content-Security-Policy': CSP,
};

export function consoleRoutes(oauth: OAuthService, guard: Guard): Route[] {
  const tags = ['console'];
  return [
    defineRoute({
      method: 'GET', path: '/', tags, summary: 'A browser is sent to the console',
      description: 'With `Accept: text/html`, 302 to `/console`; otherwise 404 (the API lives under `/api`).',
      auth: 'tenant',
      responses: { 302: { description: 'To /console' }, 404: { description: '{"detail":"Not Found"}' } },
      handler: ({ req }) => {
        if (!(req.headers.accept ?? '').includes('text/html')) throw new HttpError(404, 'Not Found');
        return { status: 302, headers: { Location: '/console', 'Cache-Control': 'no-store' } };
      },
    }),
    defineRoute({
      method: 'GET', path: '/console', tags, summary: 'The console (HTML)',
      description: 'Signs in with the tenant\'s own OAuth code flow and PKCE (its public client `kcs console` is created on first use) or an API key kept in the tab\'s session storage.',
      auth: 'tenant',
      responses: { 200: { description: 'The console page', contentType: 'text/html' } },
      handler: async ({ tenant, req }) => {
        const base = guard.baseUrl(req);
        const [bundle, clientId] = await Promise.all([consoleBundle(), oauth.consoleClient(tenant, `${base}/console`)]);
        const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="kcs-tenant" content="${escapeHtml(tenant.slug)}">
<meta name="kcs-tenant-name" content="${escapeHtml(tenant.name)}">
<meta name="kcs-console-client" content="${escapeHtml(clientId)}">
<title>kcs console · ${escapeHtml(tenant.name)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/${bundle.styles.name}">
<script type="module" src="/console/assets/${bundle.script.name}"></script>
</head>
<body><div id="app"></div></body>
</html>
`;
        return { status: 200, raw: { contentType: 'text/html; charset=utf-8', data: html }, headers: PAGE_HEADERS };
      },
    }),
    defineRoute({
      method: 'GET', path: '/console/assets/:name', tags, summary: 'The console\'s script and style sheet',
      auth: 'tenant',
      responses: { 200: { description: 'The file (cached for good: its name changes with its bytes)', contentType: 'text/javascript' }, 404: { description: 'No such file' } },
      handler: async ({ req }) => {
        const name = req.path.slice('/console/assets/'.length);
        const bundle = await consoleBundle();
        const asset = [bundle.script, bundle.styles].find((a) => a.name === name);
        if (!asset) return json(404, { detail: 'Not Found' });
        return {
          status: 200,
          raw: { contentType: asset.contentType, data: asset.data },
          headers: { 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' },
        };
      },
    }),
  ];
}
