// The MCP endpoint driven by the SDK's own client over HTTP, with access tokens from the real
// OAuth flow (registration → consent → code exchange with PKCE): tools and their schemas, every
// tool called, resources, scopes and the read rules, audit of writes, and the 401 discovery hint.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as oauth from 'oauth4webapi';
import { approve, authorizationUrl, baseUrl, clientOptions, discover, loopbackFetch } from '../helpers/oauth.js';
import { newCategory } from '../helpers/fixtures.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const ENTRIES = '/api/knowledge/knowledge-entries';
const REDIRECT = 'http://127.0.0.1:8976/callback';
const TOOLS = ['forget', 'get_knowledge_entry', 'get_product', 'list_categories', 'related_products', 'remember', 'search_knowledge', 'search_products'];

let stack: Stack;
let acme: TenantFixture;
let as: oauth.AuthorizationServer;
let registered: { client: oauth.Client; auth: oauth.ClientAuth };
let categoryId: string;
let productId: string;
const entryIds: Record<string, string> = {};

before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none' });
  acme = await stack.tenant();
  as = await discover(stack, acme);
  categoryId = await newCategory(acme);
  assert.equal((await acme.request('POST', '/api/knowledge/sites', { body: { name: 'Shop', slug: 'shop', language: 'de' } })).status, 201);
  const product = await acme.request('POST', '/api/knowledge/products?site_id=shop', {
    body: { external_id: 'boot-1', title: 'Wanderschuhe Alpina', description: 'Robuste Schuhe für die Berge', brand: 'Alpina', language: 'de' },
  });
  assert.equal(product.status, 201, product.text);
  productId = product.body.id;
  const entries: [string, Record<string, unknown>][] = [
    ['policy', { title: 'Return policy', content: 'Returns are accepted within 30 days', visibility: 'public' }],
    ['secret', { title: 'Return fraud playbook', content: 'Internal returns handling', visibility: 'restricted' }],
    ['bootstrap', { title: 'Agent bootstrap', content: 'Always greet the customer', visibility: 'public', type: 'bootstrap' }],
    ['skills', { title: 'Skill index', content: 'returns, sizing', visibility: 'public', type: 'skill_index' }],
  ];
  for (const [name, body] of entries) {
    const res = await acme.request('POST', ENTRIES, { body: { category_id: categoryId, ...body } });
    assert.equal(res.status, 201, res.text);
    entryIds[name] = res.body.id;
  }
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    { client_name: 'MCP agent', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' },
    { initialAccessToken: acme.key, ...clientOptions(stack.port) },
  );
  registered = { client: (await oauth.processDynamicClientRegistrationResponse(response)) as oauth.Client, auth: oauth.None() };
});
after(() => stack.close());

const mcpUrl = () => new URL(`${baseUrl(stack, acme)}/mcp`);

/** An access token through the code flow: consent with the tenant user's key, PKCE exchange. */
async function accessToken(scope: string, resource = `${baseUrl(stack, acme)}/mcp`): Promise<string> {
  const { url, verifier, state } = await authorizationUrl(as, registered.client.client_id, REDIRECT, { scope, resource });
  const params = oauth.validateAuthResponse(as, registered.client, await approve(stack, url, acme.key), state);
  const response = await oauth.authorizationCodeGrantRequest(as, registered.client, registered.auth, params, REDIRECT, verifier, clientOptions(stack.port));
  const tokens = await oauth.processAuthorizationCodeResponse(as, registered.client, response);
  return tokens.access_token;
}

async function connect(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(mcpUrl(), {
    fetch: loopbackFetch(stack.port) as unknown as typeof fetch,
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'kcs-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The JSON a tool answered (its single text content). */
function payload(result: Awaited<ReturnType<Client['callTool']>>): any {
  assert.ok(!result.isError, `tool error: ${JSON.stringify(result.content)}`);
  const content = result.content as { type: string; text: string }[];
  assert.equal(content[0].type, 'text');
  return JSON.parse(content[0].text);
}

function errorText(result: Awaited<ReturnType<Client['callTool']>>): string {
  assert.equal(result.isError, true, `expected a tool error: ${JSON.stringify(result.content)}`);
  return (result.content as { text: string }[])[0].text;
}

describe('MCP without credentials', () => {
  test('a call without a token is a 401 whose header leads to the authorization server', async () => {
    const res = await acme.request('POST', '/mcp', {
      key: undefined,
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
      headers: { accept: 'application/json, text/event-stream' },
    });
    assert.equal(res.status, 401);
    const header = String(res.headers['www-authenticate']);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(header)?.[1];
    assert.equal(metadataUrl, `${baseUrl(stack, acme)}/.well-known/oauth-protected-resource`);
    const metadata = await stack.request('GET', new URL(metadataUrl!).pathname, { host: new URL(metadataUrl!).host });
    assert.equal(metadata.status, 200);
    assert.deepEqual(metadata.body.authorization_servers, [baseUrl(stack, acme)]);
  });

  test('the SDK client without a token cannot connect', async () => {
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { fetch: loopbackFetch(stack.port) as unknown as typeof fetch });
    await assert.rejects(new Client({ name: 'anon', version: '1' }).connect(transport));
  });

  test('an invalid token is a 401 as well', async () => {
    const res = await acme.request('POST', '/mcp', { key: 'kcs_at_not-a-token', body: {} });
    assert.equal(res.status, 401);
    assert.match(String(res.headers['www-authenticate']), /resource_metadata=/);
  });
});

describe('MCP with an OAuth access token', () => {
  let client: Client;
  before(async () => {
    client = await connect(await accessToken('catalog:read knowledge:read knowledge:write'));
  });
  after(() => client.close());

  test('lists every tool with a JSON schema and a description', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.ok(tool.description && tool.description.length > 10, tool.name);
    }
    const search = tools.find((t) => t.name === 'search_products')!;
    assert.deepEqual(search.inputSchema.required, ['query']);
    assert.equal((search.inputSchema.properties as any).limit.maximum, 50);
  });

  test('search_products, get_product and related_products', async () => {
    const found = payload(await client.callTool({ name: 'search_products', arguments: { query: 'wanderschuh', limit: 5 } }));
    assert.equal(found.total, 1);
    assert.equal(found.hits[0].id, productId);
    assert.equal(found.hits[0].title, 'Wanderschuhe Alpina');
    assert.equal(found.mode, 'keyword');
    assert.match(found.semantic_fallback, /KCS_EMBEDDER=none/);
    assert.deepEqual(found.understood, []);
    // An agent's plain request with a price: a price filter (the boot has no price, so nothing is in range).
    const priced = payload(await client.callTool({ name: 'search_products', arguments: { query: 'wanderschuh unter 100 €' } }));
    assert.deepEqual(priced.understood, [{ words: 'unter 100 €', filter: { price_max: 100 } }]);
    assert.equal(priced.total, 0);
    const asText = payload(await client.callTool({ name: 'search_products', arguments: { query: 'wanderschuh unter 100 €', understand: false } }));
    assert.deepEqual(asText.understood, []);

    const product = payload(await client.callTool({ name: 'get_product', arguments: { product_id: productId } }));
    assert.equal(product.id, productId);
    assert.equal(product.brand, 'Alpina');

    const related = payload(await client.callTool({ name: 'related_products', arguments: { product_id: productId } }));
    assert.deepEqual(related, { total: 0, hits: [] });

    const missing = errorText(await client.callTool({ name: 'get_product', arguments: { product_id: '00000000-0000-4000-8000-000000000000' } }));
    assert.match(missing, /not found/i);
  });

  test('invalid arguments are refused by the schema', async () => {
    const result = await client.callTool({ name: 'get_product', arguments: { product_id: 'nope' } });
    assert.equal(result.isError, true);
  });

  test('search_knowledge and get_knowledge_entry apply the visibility ceiling of the token', async () => {
    // The token holds no visibility scope: public only, whatever the user's key could read.
    const found = payload(await client.callTool({ name: 'search_knowledge', arguments: { query: 'return' } }));
    const ids = found.hits.map((h: { id: string }) => h.id);
    assert.ok(ids.includes(entryIds.policy));
    assert.ok(!ids.includes(entryIds.secret), 'a restricted entry is above the token ceiling');
    const entry = payload(await client.callTool({ name: 'get_knowledge_entry', arguments: { entry_id: entryIds.policy } }));
    assert.equal(entry.title, 'Return policy');
    assert.match(errorText(await client.callTool({ name: 'get_knowledge_entry', arguments: { entry_id: entryIds.secret } })), /not found/i);
  });

  test('list_categories', async () => {
    const tree = payload(await client.callTool({ name: 'list_categories', arguments: {} }));
    assert.ok(tree.some((c: { id: string }) => c.id === categoryId));
  });

  test('remember stores a personal memory of the user, audited as mcp with the client id; forget deletes it', async () => {
    const memory = payload(await client.callTool({ name: 'remember', arguments: { title: 'Prefers red', content: 'The customer prefers red shoes', tags: ['colour'] } }));
    const stored = await acme.request('GET', `${ENTRIES}/${memory.id}`);
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.body.visibility, 'personal');
    assert.equal(stored.body.type, 'memory');
    assert.equal(stored.body.created_by_user_id, acme.user.id);

    const audit = await acme.request('GET', `/api/knowledge/audit?entity_id=${memory.id}`);
    assert.equal(audit.status, 200, audit.text);
    assert.equal(audit.body[0].action, 'create');
    assert.equal(audit.body[0].audit_source, 'mcp');
    assert.equal(audit.body[0].client_id, registered.client.client_id);

    const found = payload(await client.callTool({ name: 'search_knowledge', arguments: { query: 'red shoes' } }));
    assert.ok(found.hits.some((h: { id: string }) => h.id === memory.id), 'own memories are searchable at once');

    assert.deepEqual(payload(await client.callTool({ name: 'forget', arguments: { entry_id: memory.id } })), { deleted: memory.id });
    assert.equal((await acme.request('GET', `${ENTRIES}/${memory.id}`)).status, 404);
    const deletion = await acme.request('GET', `/api/knowledge/audit?entity_id=${memory.id}`);
    assert.equal(deletion.body[0].action, 'delete');
    assert.equal(deletion.body[0].audit_source, 'mcp');
  });

  test('forget refuses entries that are not the caller\'s own memories', async () => {
    assert.match(errorText(await client.callTool({ name: 'forget', arguments: { entry_id: entryIds.policy } })), /own personal memories/);
    assert.equal((await acme.request('GET', `${ENTRIES}/${entryIds.policy}`)).status, 200);
  });

  test('resources: bootstrap and skill_index entries', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri).sort(), [`kcs://knowledge-entries/${entryIds.bootstrap}`, `kcs://knowledge-entries/${entryIds.skills}`].sort());
    const read = await client.readResource({ uri: `kcs://knowledge-entries/${entryIds.bootstrap}` });
    assert.equal((read.contents[0] as { text: string }).text, '# Agent bootstrap\n\nAlways greet the customer');
    await assert.rejects(client.readResource({ uri: `kcs://knowledge-entries/${entryIds.policy}` }), /bootstrap or skill_index/);
  });
});

describe('MCP scopes and credentials', () => {
  test('a token without knowledge scopes is refused by the knowledge tools', async () => {
    const client = await connect(await accessToken('catalog:read'));
    try {
      assert.equal(payload(await client.callTool({ name: 'search_products', arguments: { query: 'alpina' } })).total, 1);
      assert.match(errorText(await client.callTool({ name: 'search_knowledge', arguments: { query: 'return' } })), /Missing scope: knowledge:read/);
      assert.match(errorText(await client.callTool({ name: 'remember', arguments: { title: 'x', content: 'y' } })), /Missing scope: knowledge:write/);
      assert.match(errorText(await client.callTool({ name: 'get_knowledge_entry', arguments: { entry_id: entryIds.policy } })), /Missing scope/);
    } finally {
      await client.close();
    }
  });

  test('a token bound to /api is not accepted on /mcp', async () => {
    const token = await accessToken('catalog:read', `${baseUrl(stack, acme)}/api`);
    const res = await acme.request('POST', '/mcp', { key: token, body: {} });
    assert.equal(res.status, 401);
  });

  test('an API key works too (writes then record no client id)', async () => {
    const client = await connect(await acme.keyWith(['knowledge:read', 'knowledge:write']));
    try {
      const memory = payload(await client.callTool({ name: 'remember', arguments: { title: 'Key memory', content: 'Stored with an API key', ttl_seconds: 3600 } }));
      assert.ok(memory.expires_at);
      const audit = await acme.request('GET', `/api/knowledge/audit?entity_id=${memory.id}`);
      assert.equal(audit.body[0].client_id, null);
      assert.equal(audit.body[0].audit_source, 'mcp');
    } finally {
      await client.close();
    }
  });

  test('GET and DELETE /mcp answer 405 (stateless endpoint)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await acme.request(method, '/mcp');
      assert.equal(res.status, 405, method);
      // OPTIONS answers the CORS preflight of browser-based clients.
      assert.equal(res.headers.allow, 'POST, OPTIONS');
    }
  });
});
