// API keys: the live keys (never a secret), a new key (its secret shown this once), revocation. A
// key made here belongs to the caller and holds only scopes the caller holds (docs/API.md, API
// keys): the form offers just those; keys for other users are made with `kcs admin key create`.
// A storefront key (docs/storefront.md) is one with the `search` scope and the origins of the shop's pages.
import { useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import { useSignedIn, type Scope } from '../../context.js';
import { CopyButton, ErrorBox, Field, formatDate, Loading, useAsync, useSubmit } from '../../components/ui.js';
import type { ApiKey, ApiKeyCreate, ApiKeyCreated, User } from '../../types.js';

/** Copied from src/schemas/scopes.ts (the console bundles no server code). */
const SCOPES: readonly Scope[] = [
  'catalog:read', 'catalog:write', 'search', 'knowledge:read', 'knowledge:write', 'admin',
  'visibility:community', 'visibility:internal', 'visibility:restricted',
];

/** The origins typed into the form: one per line or comma-separated; the server checks and normalises them. */
const originsOf = (text: string): string[] => text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);

export function KeysTab() {
  const { whoami } = useSignedIn();
  const keys = useAsync(() => get<ApiKey[]>('/api/knowledge/api-keys'), []);
  const users = useAsync(() => get<User[]>('/api/knowledge/users', { limit: 200 }), []);
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const userName = (id: string) => users.data?.find((u) => u.id === id)?.email ?? id;

  const revoke = async (key: ApiKey) => {
    const own = whoami.credential === 'api_key' && whoami.credential_id === key.id;
    const warning = own ? ' This is the key you are signed in with: the console signs out.' : '';
    if (!confirm(`Revoke the key "${key.name}"? It stops working at once.${warning}`)) return;
    setFailure(null);
    try {
      await api('DELETE', `/api/knowledge/api-keys/${encodeURIComponent(key.id)}`);
      keys.reload();
    } catch (error) {
      setFailure(error);
    }
  };

  return (
    <div class="keys">
      {created ? <SecretBox created={created} onDone={() => setCreated(null)} /> : null}
      <NewKeyForm users={users.data ?? []} onCreated={(k) => { setCreated(k); keys.reload(); }} />
      <ErrorBox error={keys.error ?? users.error ?? failure} />
      <Loading when={keys.loading} />
      {keys.data ? (
        <table>
          <thead><tr><th>name</th><th>scopes</th><th>origins</th><th>user</th><th>created</th><th>expires</th><th>last used</th><th></th></tr></thead>
          <tbody>
            {keys.data.map((k) => (
              <tr key={k.id} data-key-id={k.id}>
                <td>{k.name}{whoami.credential === 'api_key' && whoami.credential_id === k.id ? <span class="badge mine">this session</span> : null}</td>
                <td class="scopes">{k.scopes.map((s) => <code key={s}>{s}</code>)}</td>
                <td class="origins">{k.allowed_origins.length > 0 ? k.allowed_origins.map((o) => <code key={o}>{o}</code>) : 'any (server-side)'}</td>
                <td>{userName(k.user_id)}</td>
                <td>{formatDate(k.created_at)}</td>
                <td>{k.expires_at ? formatDate(k.expires_at) : 'never'}</td>
                <td>{formatDate(k.last_used_at)}</td>
                <td><button type="button" class="danger" onClick={() => void revoke(k)}>Revoke</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

function NewKeyForm({ users, onCreated }: { users: User[]; onCreated: (key: ApiKeyCreated) => void }) {
  const { whoami, can } = useSignedIn();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [expires, setExpires] = useState('');
  const [origins, setOrigins] = useState('');
  const { busy, error: failure, run } = useSubmit();
  const toggle = (s: Scope, on: boolean) => setScopes((now) => (on ? [...now, s] : now.filter((x) => x !== s)));

  const submit = () => run(async () => {
    const body: ApiKeyCreate = {
      name: name.trim(), scopes, user_id: whoami.user_id, expires_at: expires ? new Date(expires).toISOString() : null, allowed_origins: originsOf(origins),
    };
    onCreated((await api<ApiKeyCreated>('POST', '/api/knowledge/api-keys', { body })).body);
    setName('');
    setScopes([]);
    setExpires('');
    setOrigins('');
  });

  return (
    <form class="card new-key" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <h2>New API key</h2>
      <div class="row">
        <Field label="Name">
          <input name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field label="User" hint="A key made here is your own; keys for other users: kcs admin key create --user">
          <select name="user_id" value={whoami.user_id}>
            {users.length === 0 ? <option value={whoami.user_id}>{whoami.user_id}</option> : null}
            {users.map((u) => <option key={u.id} value={u.id} disabled={u.id !== whoami.user_id}>{u.email} ({u.name})</option>)}
          </select>
        </Field>
        <Field label="Expires" hint="Empty: never">
          <input name="expires_at" type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </Field>
      </div>
      <fieldset class="checks">
        <legend>Scopes</legend>
        {SCOPES.map((s) => (
          <label key={s} class="check" title={can(s) ? undefined : 'You do not hold this scope'}>
            <input type="checkbox" name="scopes" value={s} disabled={!can(s)} checked={scopes.includes(s)} onChange={(e) => toggle(s, e.currentTarget.checked)} />
            <code>{s}</code>
          </label>
        ))}
      </fieldset>
      <Field label="Allowed origins" hint="Browser pages that may use the key, e.g. https://shop.example (one per line or comma-separated). Empty: a server-side key. A storefront search key: the search scope and its shop's origins.">
        <textarea name="allowed_origins" rows={2} placeholder="https://shop.example" value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />
      </Field>
      <ErrorBox error={failure} />
      <button type="submit" class="primary" disabled={busy || scopes.length === 0 || !name.trim()}>Create key</button>
    </form>
  );
}

function SecretBox({ created, onDone }: { created: ApiKeyCreated; onDone: () => void }) {
  return (
    <section class="secret" role="status">
      <h2>The key “{created.name}” was created</h2>
      <p><strong>Copy its secret now: it will not be shown again.</strong> Only a digest of it is stored.</p>
      <div class="secret-value">
        <code>{created.key}</code>
        <CopyButton text={created.key} />
      </div>
      <button type="button" onClick={onDone}>I have stored it</button>
    </section>
  );
}
