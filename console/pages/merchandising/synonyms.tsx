// Synonym sets (`/api/knowledge/synonyms`): the list, oldest first, filtered by site and language
// in the address (`#/merchandising/synonyms?site=…&language=de`); a set's form (new, or the one
// being edited); deletion; a Solr synonyms file imported and exported.
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { CommittedInput } from '../../components/search.js';
import { ErrorBox, Field, formatDate, Loading, Notice, Pager, useAsync, useListActions } from '../../components/ui.js';
import { navigate } from '../../router.js';
import type { SynonymSet } from '../../types.js';
import { SYNONYMS, synonymPath } from './model.js';
import { SiteScope, useSiteNames } from './shared.js';
import { SynonymFile } from './synonymFile.js';
import { SynonymForm } from './synonymForm.js';

const LIMIT = 50;

export function SynonymsTab({ params }: { params: URLSearchParams }) {
  const sites = useSiteNames();
  const site = params.get('site') ?? '';
  const language = params.get('language') ?? '';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const page = useAsync(async () => {
    const answer = await api<SynonymSet[]>('GET', SYNONYMS, { query: { site_id: site, language, limit: LIMIT, offset } });
    return { sets: answer.body, total: Number(answer.headers.get('X-Total-Count') ?? answer.body.length) };
  }, [site, language, offset]);
  const [editing, setEditing] = useState<SynonymSet | null>(null);
  /** Counts the sets made here: each one starts the new-set form afresh. */
  const [made, setMade] = useState(0);
  const { error, notice, act, report } = useListActions(page.reload);
  const go = (changes: Record<string, string | undefined>) => navigate('merchandising/synonyms', { site, language, ...changes });

  const remove = (set: SynonymSet) => {
    if (!confirm(`Delete the synonym set ${set.id}? Searches stop using it within a second.`)) return;
    if (editing?.id === set.id) setEditing(null);
    void act(() => api('DELETE', synonymPath(set.id)), `Synonym set ${set.id} deleted.`);
  };
  const saved = (set: SynonymSet, created: boolean) => {
    setEditing(null);
    if (created) setMade((n) => n + 1);
    report(`Synonym set ${set.id} ${created ? 'created' : 'saved'}.`);
  };

  return (
    <section class="synonyms">
      <form class="card filters row" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <SiteScope sites={sites.list} name="site" value={site} any="any" onChange={(id) => go({ site: id })} />
        <Field label="Language">
          <CommittedInput name="language" placeholder="any" size={5} value={language} onCommit={(l) => go({ language: l })} />
        </Field>
        {site || language ? <button type="button" class="link" onClick={() => navigate('merchandising/synonyms')}>Clear filters</button> : null}
      </form>
      <ErrorBox error={page.error ?? sites.error ?? error} />
      {notice ? <Notice>{notice}</Notice> : null}
      {page.data ? (
        page.data.sets.length === 0 ? <p class="muted">{site || language ? 'No synonym set matches these filters.' : 'No synonym set yet.'}</p> : (
          <table class="synonym-sets">
            <thead><tr><th>id</th><th>type</th><th>entries</th><th>site</th><th>language</th><th>updated</th><th></th></tr></thead>
            <tbody>
              {page.data.sets.map((set) => (
                <tr key={set.id} data-set={set.id} class={set.id === editing?.id ? 'selected' : undefined}>
                  <td><code>{set.id}</code></td>
                  <td>{set.type}</td>
                  <td class="entries">
                    {set.root ? <><span class="entry root">{set.root}</span> ⇒ </> : null}
                    {set.synonyms.map((s) => <span key={s} class="entry">{s}</span>)}
                  </td>
                  <td>{sites.nameOf(set.site_id)}</td>
                  <td>{set.language ?? 'any'}</td>
                  <td>{formatDate(set.updated_at)}</td>
                  <td class="actions">
                    <button type="button" class="link" onClick={() => setEditing(set)}>Edit</button>
                    <button type="button" class="link danger" onClick={() => remove(set)}>Delete</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
      {page.data ? <Pager offset={offset} limit={LIMIT} total={page.data.total} onChange={(o) => go({ offset: o ? String(o) : undefined })} /> : null}
      <Loading when={page.loading} />
      {editing
        ? <SynonymForm key={editing.id} set={editing} sites={sites.list} onSaved={(s) => saved(s, false)} onCancel={() => setEditing(null)} />
        : <SynonymForm key={`new-${made}`} sites={sites.list} onSaved={(s) => saved(s, true)} />}
      <SynonymFile sites={sites.list} site={site} language={language} onImported={(n) => report(`Imported ${n} synonym ${n === 1 ? 'set' : 'sets'}.`)} />
    </section>
  );
}
