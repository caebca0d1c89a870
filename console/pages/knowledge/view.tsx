// One entry: its fields, its type's metadata, its version and the whole JSON; edit and delete with
// knowledge:write. Delete sends the version shown (If-Match), so it never removes a newer text.
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useSignedIn } from '../../context.js';
import { ErrorBox, formatDate, JsonView, Loading, useAsync, useSubmit } from '../../components/ui.js';
import { href, navigate } from '../../router.js';
import type { KnowledgeEntry } from '../../types.js';
import { useCategories } from './categories.js';
import { ConflictBox, entryPath, readEntry, recoverStale, type Stale } from './conflict.js';
import { METADATA_FIELDS, TYPE_LABELS } from './model.js';

export function EntryView({ id }: { id: string }) {
  const { can } = useSignedIn();
  const entry = useAsync(() => readEntry(id), [id]);
  const categories = useCategories();
  const [stale, setStale] = useState<Stale | null>(null);
  const { busy, error: failure, run } = useSubmit();

  const remove = async (e: KnowledgeEntry) => {
    if (!confirm(`Delete the entry "${e.title}" for good?`)) return;
    await run(async () => {
      await api('DELETE', entryPath(e.id), { headers: { 'If-Match': String(e.version) } });
      navigate('knowledge');
    }, recoverStale(e.id, e.version, setStale));
  };

  const e = entry.data;
  return (
    <div class="knowledge entry">
      <p><a href={href('knowledge')}>‹ Knowledge entries</a></p>
      <ErrorBox error={entry.error ?? failure} />
      {stale ? <ConflictBox stale={stale} onReload={() => { setStale(null); entry.reload(); }} /> : null}
      <Loading when={entry.loading} />
      {e ? (
        <>
          <div class="toolbar">
            <h1>{e.title}</h1>
            {can('knowledge:write') ? (
              <span class="actions">
                <a class="button" href={href(`knowledge/${e.id}/edit`)}>Edit</a>
                <button type="button" class="danger" disabled={busy} onClick={() => void remove(e)}>Delete</button>
              </span>
            ) : null}
          </div>
          <section class="card">
            <dl class="fields">
              <dt>Type</dt><dd>{TYPE_LABELS[e.type]}</dd>
              <dt>Version</dt><dd>{e.version}</dd>
              <dt>Category</dt><dd>{categories.nameOf(e.category_id)}</dd>
              <dt>Visibility</dt><dd><span class={`badge ${e.visibility}`}>{e.visibility}</span></dd>
              <dt>Language</dt><dd>{e.language}</dd>
              <dt>Layer</dt><dd>{e.layer ?? '—'}</dd>
              <dt>Tags</dt><dd>{e.tags.length ? e.tags.map((t) => <span key={t} class="tag">{t}</span>) : '—'}</dd>
              <dt>Summary</dt><dd>{e.summary ?? '—'}</dd>
              <dt>Search keywords</dt><dd>{e.search_keywords.join(', ') || '—'}</dd>
              <dt>Source</dt><dd>{e.source}{e.source_reference ? ` · ${e.source_reference}` : ''}</dd>
              <dt>Embedding</dt><dd><span class={`status ${e.embedding_status}`}>{e.embedding_status}</span>{e.embedding_model ? ` ${e.embedding_model}` : ''}</dd>
              <dt>Created</dt><dd>{formatDate(e.created_at)}</dd>
              <dt>Updated</dt><dd>{formatDate(e.updated_at)}</dd>
            </dl>
          </section>
          <section class="card">
            <h2>Content</h2>
            <pre class="content">{e.content}</pre>
          </section>
          <section class="card">
            <h2>{TYPE_LABELS[e.type]} metadata</h2>
            <dl class="fields">
              {METADATA_FIELDS[e.type].filter((f) => !f.writeOnly).map((f) => (
                <Fragment key={f.key}>
                  <dt>{f.label}</dt>
                  <dd>{showValue(e.metadata[f.key], f.kind === 'datetime')}</dd>
                </Fragment>
              ))}
            </dl>
          </section>
          <details class="card">
            <summary>JSON</summary>
            <JsonView value={e} />
          </details>
        </>
      ) : null}
    </div>
  );
}

function showValue(value: unknown, isDate: boolean): string {
  if (value === undefined || value === null || value === '') return '—';
  if (Array.isArray(value)) return value.length ? value.map(String).join(' · ') : '—';
  return isDate && typeof value === 'string' ? formatDate(value) : String(value);
}
