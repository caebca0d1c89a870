// A synonym set's form: multi-way (entries that all stand for each other) or one-way (a root and
// the synonyms it also finds), for every search or one site's or language's. A new set's id is
// the one typed or one made from its first entry; saving is `PUT /synonyms/{id}` (the API's 422
// items are shown in the form).
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { ErrorBox, Field, useSubmit } from '../../components/ui.js';
import type { Site, SynonymSet, SynonymSetWrite } from '../../types.js';
import { entriesOf, newSetId, synonymPath } from './model.js';
import { SiteScope } from './shared.js';

type Kind = SynonymSet['type'];

interface Draft {
  id: string;
  type: Kind;
  root: string;
  entries: string;
  site_id: string;
  language: string;
}

const draftOf = (set?: SynonymSet): Draft => ({
  id: set?.id ?? '',
  type: set?.type ?? 'multi-way',
  root: set?.root ?? '',
  // One a line; a comma inside an entry stays one.
  entries: (set?.synonyms ?? []).map((s) => s.replace(/,/g, '\\,')).join('\n'),
  site_id: set?.site_id ?? '',
  language: set?.language ?? '',
});

function bodyOf(d: Draft): SynonymSetWrite {
  const synonyms = entriesOf(d.entries);
  return {
    ...(d.type === 'one-way' ? { root: d.root.trim() } : {}),
    synonyms,
    site_id: d.site_id || null,
    language: d.language.trim() || null,
  };
}

/** `set`: the set edited (its id fixed); none: a new set. `onSaved` learns whether the PUT created it. */
export function SynonymForm({ set, sites, onSaved, onCancel }: {
  set?: SynonymSet; sites: Site[]; onSaved: (set: SynonymSet, created: boolean) => void; onCancel?: () => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(set));
  const { busy, error, run } = useSubmit();
  const change = (changes: Partial<Draft>) => setDraft((d) => ({ ...d, ...changes }));
  const oneWay = draft.type === 'one-way';

  const save = () => run(async () => {
    const body = bodyOf(draft);
    const id = set?.id ?? (draft.id.trim() || newSetId(body.root ?? body.synonyms[0] ?? ''));
    const answer = await api<SynonymSet>('PUT', synonymPath(id), { body });
    onSaved(answer.body, answer.status === 201);
  });

  return (
    <form class="card synonym-form" aria-label={set ? `Edit synonym set ${set.id}` : 'New synonym set'}
      onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <h2>{set ? <>Edit synonym set <code>{set.id}</code></> : 'New synonym set'}</h2>
      <div class="row">
        {set ? null : (
          <Field label="Id" hint="Letters, digits, _ and -. Empty: made from the first entry">
            <input name="id" maxLength={100} pattern="[A-Za-z0-9_\-]+" value={draft.id} onInput={(e) => change({ id: e.currentTarget.value })} />
          </Field>
        )}
        <Field label="Type">
          <select name="type" value={draft.type} onChange={(e) => change({ type: e.currentTarget.value as Kind })}>
            <option value="multi-way">multi-way: every entry finds the others</option>
            <option value="one-way">one-way: the root also finds its synonyms</option>
          </select>
        </Field>
        <SiteScope sites={sites} value={draft.site_id} onChange={(site_id) => change({ site_id })} hint="Only this site's searches" />
        <Field label="Language" hint="Only searches in this language; empty: any">
          <input name="language" maxLength={5} size={5} placeholder="any" value={draft.language} onInput={(e) => change({ language: e.currentTarget.value })} />
        </Field>
      </div>
      {oneWay ? (
        <Field label="Root" hint="A query holding the root also finds the synonyms (not back)">
          <input name="root" required maxLength={100} value={draft.root} onInput={(e) => change({ root: e.currentTarget.value })} />
        </Field>
      ) : null}
      <Field label={oneWay ? 'Synonyms' : 'Entries'} hint="One a line or comma-separated (\, is a comma in an entry); words or phrases, 2–50 in a set">
        <textarea name="synonyms" rows={3} value={draft.entries} onInput={(e) => change({ entries: e.currentTarget.value })} />
      </Field>
      <ErrorBox error={error} />
      <div class="row actions">
        <button type="submit" class="primary" disabled={busy}>{set ? 'Save set' : 'Create set'}</button>
        {onCancel ? <button type="button" onClick={onCancel}>Cancel</button> : null}
      </div>
    </form>
  );
}
