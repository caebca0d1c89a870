// OAuth clients: the registered clients, one client's details (`#/admin/clients?client=<id>`), and
// deletion (every token of the client stops working at once). The console's own client, "kcs
// console", is marked: deleting it is allowed, the next console load registers another.
import { useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import { useSignedIn } from '../../context.js';
import { ErrorBox, formatDate, JsonView, Loading, useAsync } from '../../components/ui.js';
import { href, navigate } from '../../router.js';
import type { OAuthClient } from '../../types.js';

const clientPath = (id: string) => `/api/knowledge/oauth/clients/${encodeURIComponent(id)}`;
/** The console's client: named so on creation, and given to this page in its meta tag. */
const consoleClientId = () => document.querySelector<HTMLMetaElement>('meta[name="kcs-console-client"]')?.content ?? '';
const isConsole = (c: OAuthClient) => c.client_id === consoleClientId() || c.client_name === 'kcs console';
const issuedAt = (c: OAuthClient) => formatDate(new Date(c.client_id_issued_at * 1000).toISOString());

export function ClientsTab({ params }: { params: URLSearchParams }) {
  const clients = useAsync(() => get<OAuthClient[]>('/api/knowledge/oauth/clients'), []);
  const [failure, setFailure] = useState<unknown>(null);
  const open = params.get('client');

  const remove = async (c: OAuthClient) => {
    const note = isConsole(c) ? ' It is the console\'s own client: everyone signed in to the console through it is signed out.' : '';
    if (!confirm(`Delete the OAuth client "${c.client_name}"? Its tokens stop working at once.${note}`)) return;
    setFailure(null);
    try {
      await api('DELETE', clientPath(c.client_id));
      if (open === c.client_id) navigate('admin/clients');
      clients.reload();
    } catch (error) {
      setFailure(error);
    }
  };

  return (
    <div class="clients">
      <ErrorBox error={clients.error ?? failure} />
      <Loading when={clients.loading} />
      {open ? <ClientDetails id={open} onDelete={(c) => void remove(c)} /> : null}
      {clients.data ? (
        clients.data.length === 0 ? <p class="muted">No OAuth client is registered.</p> : (
          <table>
            <thead><tr><th>name</th><th>client id</th><th>grants</th><th>authentication</th><th>registered</th><th></th></tr></thead>
            <tbody>
              {clients.data.map((c) => (
                <tr key={c.client_id} class={c.client_id === open ? 'selected' : ''}>
                  <td>
                    <a href={href('admin/clients', { client: c.client_id })}>{c.client_name}</a>
                    {isConsole(c) ? <span class="badge mine">this console</span> : null}
                  </td>
                  <td><code>{c.client_id}</code></td>
                  <td>{c.grant_types.join(', ')}</td>
                  <td>{c.token_endpoint_auth_method === 'none' ? 'public (PKCE)' : c.token_endpoint_auth_method}</td>
                  <td>{issuedAt(c)}</td>
                  <td><button type="button" class="danger" onClick={() => void remove(c)}>Delete</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
    </div>
  );
}

function ClientDetails({ id, onDelete }: { id: string; onDelete: (c: OAuthClient) => void }) {
  const { whoami } = useSignedIn();
  const client = useAsync(() => get<OAuthClient>(clientPath(id)), [id]);
  const c = client.data;
  return (
    <section class="card client">
      <ErrorBox error={client.error} />
      {c ? (
        <>
          <div class="toolbar">
            <h2>{c.client_name}{isConsole(c) ? <span class="badge mine">this console</span> : null}</h2>
            <span class="actions">
              <button type="button" class="danger" onClick={() => onDelete(c)}>Delete</button>
              <a class="button" href={href('admin/clients')}>Close</a>
            </span>
          </div>
          <dl class="fields">
            <dt>Client id</dt><dd><code>{c.client_id}</code></dd>
            <dt>Registered</dt><dd>{issuedAt(c)}{c.registered_by_user_id ? ` by user ${c.registered_by_user_id}` : ' (open registration or kcs itself)'}</dd>
            <dt>Redirect URIs</dt><dd>{c.redirect_uris.length ? c.redirect_uris.map((u) => <div key={u}><code>{u}</code></div>) : '—'}</dd>
            <dt>Grant types</dt><dd>{c.grant_types.join(', ')}</dd>
            <dt>Response types</dt><dd>{c.response_types.join(', ') || '—'}</dd>
            <dt>Authentication</dt><dd>{c.token_endpoint_auth_method}</dd>
            <dt>Scope</dt><dd class="scopes">{c.scope.split(' ').filter(Boolean).map((s) => <code key={s}>{s}</code>)}</dd>
            <dt>Secret expires</dt><dd>{c.client_secret_expires_at ? formatDate(new Date(c.client_secret_expires_at * 1000).toISOString()) : 'never'}</dd>
          </dl>
          {whoami.client_id === c.client_id ? <p class="muted">You are signed in through this client.</p> : null}
          <details>
            <summary>JSON</summary>
            <JsonView value={c} />
          </details>
        </>
      ) : null}
    </section>
  );
}
