// POST /mcp: the Model Context Protocol over Streamable HTTP (stateless, JSON responses; GET and
// DELETE answer 405 as the protocol allows for servers without streams or sessions), built on
// the SDK's web-standard transport. Authenticated like every /api route (OAuth access token or API
// key); a 401 carries WWW-Authenticate with resource_metadata so MCP clients find the
// authorization server by themselves.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { defineRoute, type IncomingRequest, type Reply, type Route } from '../http/route.js';
import { createMcpServer, type McpDeps } from '../mcp/server.js';
import type { Principal } from '../domain/types.js';
import type { Tenant } from '../schemas/records.js';
import { BEYOND_SEARCH } from '../schemas/scopes.js';

const tags = ['mcp'];

/** The request headers the transport reads (the credential reaches it as authInfo). */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];
/** A fetch Request takes only header values of bytes (code points up to U+00FF). */
const BYTE_STRING = /^[\x00-\xff]*$/;

/**
 * Only what the transport needs, and only values a Request can carry: any other header (a
 * cookie, an X-Audit-Source of any characters) would make `new Request` throw.
 */
function transportHeaders(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of TRANSPORT_HEADERS) if (headers[name] !== undefined && BYTE_STRING.test(headers[name])) kept[name] = headers[name];
  return kept;
}

export function mcpRoutes(deps: McpDeps, scheme: string): Route[] {
  return [
    defineRoute({
      method: 'POST', path: '/mcp', tags, summary: 'MCP (Streamable HTTP): tools and resources of the catalogue and knowledge base',
      description: 'JSON-RPC over POST, answered as application/json. Tools: search_products, get_product, related_products, ' +
        'search_knowledge, get_knowledge_entry, list_categories, remember, forget; each checks the scopes of its HTTP ' +
        'counterpart. Resources: knowledge entries of type bootstrap and skill_index (kcs://knowledge-entries/{id}).',
      // Any credential but a search-only key (public by design, it reaches the storefront routes alone).
      auth: { anyOf: BEYOND_SEARCH },
      cors: true,
      bodyKind: 'raw',
      contentTypes: ['application/json'],
      responses: { 200: { description: 'JSON-RPC response' }, 202: { description: 'Notification accepted' } },
      errors: [405, 406],
      handler: (call) => handle(deps, scheme, call),
    }),
  ];
}

/** One authenticated POST /mcp: the route context's tenant, caller and request. */
interface McpCall {
  tenant: Tenant;
  principal: Principal;
  req: IncomingRequest;
}

async function handle(deps: McpDeps, scheme: string, { tenant, principal, req }: McpCall): Promise<Reply> {
  const server = createMcpServer(deps, tenant, principal);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const request = new Request(`${scheme}://${req.headers.host}${req.path}`, {
      method: req.method,
      headers: transportHeaders(req.headers),
      body: new Uint8Array(req.body),
    });
    const token = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const response = await transport.handleRequest(request, {
      authInfo: { token, clientId: principal.clientId ?? principal.credentialId, scopes: [...principal.scopes], extra: { userId: principal.userId } },
    });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'content-type' && name !== 'content-length') headers[name] = value;
    });
    const data = Buffer.from(await response.arrayBuffer());
    const contentType = response.headers.get('content-type');
    return contentType ? { status: response.status, headers, raw: { contentType, data } } : { status: response.status, headers };
  } finally {
    await server.close();
  }
}
