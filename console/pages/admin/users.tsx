// Users of the tenant (oldest first, paged) and a new user. Their keys are made with `kcs admin key
// create --user <email>`: over the API a key always belongs to its creator.
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useSignedIn } from '../../context.js';
import { ErrorBox, Field, formatDate, Loading, Notice, Pager, useAsync, useSubmit } from '../../components/ui.js';
import type { User, UserCreate } from '../../types.js';

const LIMIT = 50;

export function UsersTab() {
  const { whoami } = useSignedIn();
  const [offset, setOffset] = useState(0);
  const [added, setAdded] = useState<User | null>(null);
  const page = useAsync(async () => {
    const answer = await api<User[]>('GET', '/api/knowledge/users', { query: { limit: LIMIT, offset } });
    return { users: answer.body, total: Number(answer.headers.get('X-Total-Count') ?? answer.body.length) };
  }, [offset]);

  return (
    <div class="users">
      <NewUserForm onCreated={(u) => { setAdded(u); page.reload(); }} />
      {added ? <Notice>Added {added.email}. Keys for this user: <code>kcs admin key create --user {added.email}</code></Notice> : null}
      <ErrorBox error={page.error} />
      <Loading when={page.loading} />
      {page.data ? (
        <>
          <table>
            <thead><tr><th>email</th><th>name</th><th>id</th><th>created</th></tr></thead>
            <tbody>
              {page.data.users.map((u) => (
                <tr key={u.id}>
                  <td>{u.email}{u.id === whoami.user_id ? <span class="badge mine">you</span> : null}</td>
                  <td>{u.name}</td>
                  <td><code>{u.id}</code></td>
                  <td>{formatDate(u.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager offset={offset} limit={LIMIT} total={page.data.total} onChange={setOffset} />
        </>
      ) : null}
    </div>
  );
}

function NewUserForm({ onCreated }: { onCreated: (user: User) => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const { busy, error: failure, run } = useSubmit();
  const submit = () => run(async () => {
    const body: UserCreate = { email: email.trim(), name: name.trim() };
    onCreated((await api<User>('POST', '/api/knowledge/users', { body })).body);
    setEmail('');
    setName('');
  });
  return (
    <form class="card" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <h2>New user</h2>
      <div class="row">
        <Field label="E-mail">
          <input name="email" type="email" required maxLength={254} value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
        <Field label="Name">
          <input name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="primary" disabled={busy}>Add user</button>
      </div>
      <ErrorBox error={failure} />
    </form>
  );
}
