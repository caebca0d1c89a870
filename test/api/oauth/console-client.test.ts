// The console's own public OAuth client: created by the first console load of a tenant, one per
// tenant (two first loads at once share it), given each console address as a redirect URI, a
// code flow with PKCE through the consent page like any public client; deleted by an admin, the
// next load creates another.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approve, authorizationUrl, discover, postForm } from '../../helpers/oauth.js';
import { acme, CLIENTS, globex, stack, useStack } from './fixtures.js';

useStack();

const consoleClients = async () => (await acme.request('GET', CLIENTS)).body.filter((c: { client_name: string }) => c.client_name === 'kcs console');
const clientIdOf = (html: string) => /name="kcs-console-client" content="([^"]+)"/.exec(html)?.[1];

test('one console client per tenant, public, every scope, the console address as its redirect URI', async () => {
  const loads = await Promise.all([acme.request('GET', '/console'), acme.request('GET', '/console')]);
  assert.deepEqual(loads.map((l) => l.status), [200, 200]);
  const [clientId] = new Set(loads.map((l) => clientIdOf(l.text)));
  const clients = await consoleClients();
  assert.equal(clients.length, 1);
  assert.equal(clients[0].client_id, clientId);
  assert.equal(clients[0].token_endpoint_auth_method, 'none');
  assert.deepEqual(clients[0].redirect_uris, [`http://${acme.tenant.slug}.localhost:${stack.port}/console`]);
  assert.notEqual(clientIdOf((await globex.request('GET', '/console')).text), clientId, 'another tenant has its own');

  // Another address of the same tenant (another port or scheme in front) is added.
  await acme.request('GET', '/console', { host: `${acme.tenant.slug}.localhost:9999` });
  assert.deepEqual((await consoleClients())[0].redirect_uris, [
    `http://${acme.tenant.slug}.localhost:${stack.port}/console`, `http://${acme.tenant.slug}.localhost:9999/console`,
  ]);
});

test('the code flow with PKCE gives the console tokens of the approving key\'s scopes', async () => {
  const clientId = clientIdOf((await acme.request('GET', '/console')).text)!;
  const redirect = `http://${acme.tenant.slug}.localhost:${stack.port}/console`;
  const { url, verifier } = await authorizationUrl(await discover(stack, acme), clientId, redirect, {});
  const code = (await approve(stack, url, await acme.keyWith(['catalog:read']))).searchParams.get('code')!;
  const tokens = await postForm(acme, '/oauth/token', { grant_type: 'authorization_code', client_id: clientId, redirect_uri: redirect, code, code_verifier: verifier });
  assert.equal(tokens.status, 200, tokens.text);
  assert.equal(tokens.body.scope, 'catalog:read');
  const whoami = await acme.request('GET', '/api/knowledge/whoami', { key: tokens.body.access_token });
  assert.deepEqual([whoami.body.credential, whoami.body.client_id, whoami.body.scopes], ['oauth', clientId, ['catalog:read']]);
});

test('deleted by an admin: the next console load creates another', async () => {
  const [before] = await consoleClients();
  assert.equal((await acme.request('DELETE', `${CLIENTS}/${before.client_id}`)).status, 204);
  const after = clientIdOf((await acme.request('GET', '/console')).text);
  assert.ok(after && after !== before.client_id);
  assert.deepEqual((await consoleClients()).map((c: { client_id: string }) => c.client_id), [after]);
});
