// Sign-in: through the tenant's own consent page (OAuth, PKCE: the key is typed into kcs's page,
// not here), or with an API key kept in this tab's session storage only.
import { useState } from 'preact/hooks';
import { ErrorBox } from '../components/ui.js';
import { saveSession, startOAuthSignIn, tenantName } from '../session.js';

export function SignInPage({ error, onSignedIn }: { error: unknown; onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [failure, setFailure] = useState<unknown>(null);
  return (
    <main class="center">
      <section class="card signin">
        <h1>kcs console</h1>
        <p class="muted">{tenantName()}</p>
        <ErrorBox error={failure ?? error} />
        <button type="button" class="primary wide" onClick={() => startOAuthSignIn().catch(setFailure)}>Sign in with kcs</button>
        <p class="muted small">You approve the console on this tenant's consent page; it gets the permissions your key holds there.</p>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!key.trim()) return;
            saveSession({ kind: 'api_key', token: key.trim() });
            onSignedIn();
          }}
        >
          <label class="field">
            <span>Or an API key</span>
            <input name="api_key" type="password" autocomplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} placeholder="kcs_…" />
            <small>Kept in this tab only (session storage); sent as a Bearer token.</small>
          </label>
          <button type="submit" class="wide">Sign in with the key</button>
        </form>
      </section>
    </main>
  );
}
