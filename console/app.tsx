// The console's frame: sign-in until there is a session, then the navigation (pages the
// credential's scopes allow) and the page of the address.
import type { JSX } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, get, whenSignedOut } from './api.js';
import { SignedIn, type Scope, type Whoami } from './context.js';
import { ErrorBox } from './components/ui.js';
import { href, useLocation } from './router.js';
import { currentSession, finishOAuthSignIn, signOut, tenantName } from './session.js';
import { SignInPage } from './pages/signIn.js';
import { OverviewPage } from './pages/overview.js';
import { SearchPage } from './pages/search.js';
import { CataloguePage } from './pages/catalogue.js';
import { ImportPage } from './pages/import.js';
import { KnowledgePage } from './pages/knowledge.js';
import { AdminPage } from './pages/admin.js';
import { MerchandisingPage } from './pages/merchandising.js';

interface Section {
  path: string;
  title: string;
  /** Shown when the credential holds any of these (none: always). */
  needs: Scope[];
  page: () => JSX.Element;
}

const SECTIONS: Section[] = [
  { path: 'overview', title: 'Overview', needs: [], page: OverviewPage },
  { path: 'search', title: 'Search', needs: ['catalog:read', 'knowledge:read'], page: SearchPage },
  { path: 'catalogue', title: 'Catalogue', needs: ['catalog:read'], page: CataloguePage },
  { path: 'import', title: 'Bulk import', needs: ['catalog:write'], page: ImportPage },
  { path: 'knowledge', title: 'Knowledge', needs: ['knowledge:read'], page: KnowledgePage },
  { path: 'merchandising', title: 'Merchandising', needs: ['admin'], page: MerchandisingPage },
  { path: 'admin', title: 'Admin', needs: ['admin'], page: AdminPage },
];

export function App() {
  const [whoami, setWhoami] = useState<Whoami | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [checking, setChecking] = useState(true);
  const at = useLocation();

  const load = async () => {
    setChecking(true);
    try {
      await finishOAuthSignIn();
      setWhoami(currentSession() ? await get<Whoami>('/api/knowledge/whoami') : null);
    } catch (e) {
      setError(e instanceof ApiError && e.status === 401 ? new Error('The credential was refused: check the key, or sign in again.') : e);
      setWhoami(null);
    } finally {
      setChecking(false);
    }
  };
  useEffect(() => {
    whenSignedOut(() => setWhoami(null));
    void load();
  }, []);

  const signed = useMemo(() => (whoami ? { whoami, can: (s: Scope) => whoami.scopes.includes(s) } : null), [whoami]);
  if (checking) return <main class="center"><p>Loading…</p></main>;
  if (!signed) return <SignInPage error={error} onSignedIn={() => { setError(null); void load(); }} />;

  const visible = SECTIONS.filter((s) => s.needs.length === 0 || s.needs.some(signed.can));
  const section = visible.find((s) => s.path === at.path[0]) ?? visible[0];
  const Page = section.page;
  return (
    <SignedIn.Provider value={signed}>
      <header class="top">
        <strong class="brand">kcs</strong>
        <span class="tenant">{tenantName() || signed.whoami.tenant.name}</span>
        <nav>
          {visible.map((s) => <a key={s.path} href={href(s.path)} class={s === section ? 'active' : ''}>{s.title}</a>)}
        </nav>
        <span class="who" title={signed.whoami.scopes.join(' ')}>
          {signed.whoami.credential === 'oauth' ? 'OAuth' : 'API key'}
        </span>
        <button type="button" class="link" onClick={() => void signOut(currentSession()).then(() => setWhoami(null))}>Sign out</button>
      </header>
      <main class="page">
        <ErrorBox error={error} />
        <Page />
      </main>
    </SignedIn.Provider>
  );
}
