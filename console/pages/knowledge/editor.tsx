// Create or edit an entry: the common fields and the metadata form of its type. An edit sends only
// what changed, with `If-Match: <the version read>`; when the entry moved on meanwhile (412) the
// page says so and offers a reload instead of overwriting someone else's change.
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useSignedIn } from '../../context.js';
import { ErrorBox, Field, Loading, Notice, useAsync, useSubmit } from '../../components/ui.js';
import { href, navigate } from '../../router.js';
import type { KnowledgeEntry } from '../../types.js';
import { useCategories, type Categories } from './categories.js';
import { ConflictBox, entryPath, readEntry, recoverStale, type Stale } from './conflict.js';
import { createBody, draftOf, newDraft, updateBody, type Draft } from './draft.js';
import { CommonFields, MetadataFields } from './fields.js';
import { ENTRY_TYPES, mayWrite, metadataToForm, TYPE_LABELS, type EntryType } from './model.js';

const BASE = '/api/knowledge/knowledge-entries';

/** `id` null: a new entry of `type`. */
export function EntryEditor({ id, type }: { id: string | null; type: EntryType }) {
  const { can } = useSignedIn();
  const categories = useCategories();
  const entry = useAsync(() => (id ? readEntry(id) : Promise.resolve(null)), [id]);
  if (!can('knowledge:write')) return <Notice>Writing entries takes the knowledge:write scope.</Notice>;
  const read = entry.data ?? null;

  return (
    <div class="knowledge editor">
      <p><a href={href(read ? `knowledge/${read.id}` : 'knowledge')}>‹ {read ? read.title : 'Knowledge entries'}</a></p>
      <h1>{read ? `Edit “${read.title}”` : 'New knowledge entry'}</h1>
      <ErrorBox error={entry.error ?? categories.error} />
      <Loading when={entry.loading} />
      {/* Keyed by the version read: a reload starts a new form from the entry as stored, in the
          same render that shows its version (never the old draft under the new version). */}
      {read || !id ? (
        <EntryForm key={read ? `${read.id}@${read.version}` : `new:${type}`} read={read} type={type}
          categories={categories} reload={entry.reload} />
      ) : null}
    </div>
  );
}

interface EntryFormProps {
  /** The entry as read; null: a new entry of `type`. */
  read: KnowledgeEntry | null;
  type: EntryType;
  categories: Categories;
  reload: () => void;
}

function EntryForm({ read, type, categories, reload }: EntryFormProps) {
  const { can } = useSignedIn();
  const [draft, setDraft] = useState<Draft>(() =>
    read ? draftOf(read) : newDraft(type, 'de', mayWrite('internal', can) ? 'internal' : 'public'));
  const [stale, setStale] = useState<Stale | null>(null);
  const { busy, error: failure, run } = useSubmit();
  const change = (changes: Partial<Draft>) => setDraft((d) => ({ ...d, ...changes }));

  const save = (d: Draft) => {
    setStale(null);
    return run(async () => {
      if (read) {
        await api('PUT', entryPath(read.id), { body: updateBody(d, read), headers: { 'If-Match': String(read.version) } });
        navigate(`knowledge/${read.id}`);
      } else {
        const path = d.visibility === 'personal' ? `${BASE}/personal` : BASE;
        const created = await api<KnowledgeEntry>('POST', path, { body: createBody(d) });
        navigate(`knowledge/${created.body.id}`);
      }
    }, read ? recoverStale(read.id, read.version, setStale) : undefined);
  };

  return (
    <form class="card entry-form" onSubmit={(e) => { e.preventDefault(); void save(draft); }}>
      {read ? (
        <p class="muted">{TYPE_LABELS[read.type]} · editing version {read.version}</p>
      ) : (
        <Field label="Type" hint="Fixed once created">
          <select name="type" value={draft.type} onChange={(e) => {
            const t = e.currentTarget.value as EntryType;
            change({ type: t, metadata: metadataToForm(t, {}) });
          }}>
            {ENTRY_TYPES.map((t) => <option key={t} value={t}>{TYPE_LABELS[t]}</option>)}
          </select>
        </Field>
      )}
      <CommonFields draft={draft} change={change} categories={categories} creating={!read} />
      <fieldset class="metadata">
        <legend>{TYPE_LABELS[draft.type]} details</legend>
        <MetadataFields draft={draft} change={change} />
      </fieldset>
      <ErrorBox error={failure} />
      {stale ? <ConflictBox stale={stale} onReload={() => { setStale(null); reload(); }} /> : null}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{read ? 'Save' : 'Create'}</button>
        <a class="button" href={href(read ? `knowledge/${read.id}` : 'knowledge')}>Cancel</a>
      </div>
    </form>
  );
}
