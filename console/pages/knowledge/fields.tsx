// The inputs of the entry form: the fields every entry has, and the metadata fields of its type
// (an input of the field's kind: text, one item per line, date and time, number, choice).
import { useSignedIn } from '../../context.js';
import { Field } from '../../components/ui.js';
import { CategoryInput, type Categories } from './categories.js';
import type { Draft } from './draft.js';
import { METADATA_FIELDS, mayWrite, SOURCES, VISIBILITIES, type MetaField } from './model.js';

type Change = (changes: Partial<Draft>) => void;
type TextEvent = { currentTarget: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement };
const text = (e: TextEvent) => e.currentTarget.value;

export function CommonFields({ draft, change, categories, creating }: { draft: Draft; change: Change; categories: Categories; creating: boolean }) {
  const { can } = useSignedIn();
  // Personal entries are made through their own route and stay personal.
  const wasPersonal = !creating && draft.visibility === 'personal';
  return (
    <>
      <Field label="Title">
        <input name="title" required maxLength={500} value={draft.title} onInput={(e) => change({ title: text(e) })} />
      </Field>
      <Field label="Content">
        <textarea name="content" required rows={10} value={draft.content} onInput={(e) => change({ content: text(e) })} />
      </Field>
      <div class="row">
        <Field label="Category">
          <CategoryInput categories={categories} name="category_id" required value={draft.category_id} onChange={(id) => change({ category_id: id })} />
        </Field>
        <Field label="Visibility" hint={creating && draft.visibility === 'personal' ? 'Only you will see it' : undefined}>
          <select name="visibility" value={draft.visibility} disabled={wasPersonal} onChange={(e) => change({ visibility: text(e) as Draft['visibility'] })}>
            {VISIBILITIES.filter((v) => v !== 'personal' || creating || wasPersonal).map((v) => (
              <option key={v} value={v} disabled={!mayWrite(v, can)}>{v}{mayWrite(v, can) ? '' : ' (above your scopes)'}</option>
            ))}
          </select>
        </Field>
        <Field label="Language" hint={creating ? 'e.g. de, en' : 'Fixed once created'}>
          <input name="language" minLength={2} maxLength={5} disabled={!creating} value={draft.language} onInput={(e) => change({ language: text(e) })} />
        </Field>
        <Field label="Layer">
          <input name="layer" maxLength={50} value={draft.layer} onInput={(e) => change({ layer: text(e) })} />
        </Field>
      </div>
      <Field label="Summary">
        <input name="summary" value={draft.summary} onInput={(e) => change({ summary: text(e) })} />
      </Field>
      <Field label="Tags" hint="Comma-separated">
        <input name="tags" value={draft.tags} onInput={(e) => change({ tags: text(e) })} />
      </Field>
      <details class="more">
        <summary>More fields</summary>
        <Field label="Search keywords" hint="Alternative spellings and synonyms, comma-separated">
          <input name="search_keywords" value={draft.search_keywords} onInput={(e) => change({ search_keywords: text(e) })} />
        </Field>
        <div class="row">
          <Field label="Source" hint={creating ? undefined : 'Fixed once created'}>
            <select name="source" value={draft.source} disabled={!creating} onChange={(e) => change({ source: text(e) as Draft['source'] })}>
              {SOURCES.map((s) => <option key={s} value={s}>{s}</option>)}
            </select>
          </Field>
          <Field label="Source reference">
            <input name="source_reference" value={draft.source_reference} onInput={(e) => change({ source_reference: text(e) })} />
          </Field>
        </div>
        <Field label="Similarity anchor" hint="Anchor text for related themes">
          <input name="similarity_text" value={draft.similarity_text} onInput={(e) => change({ similarity_text: text(e) })} />
        </Field>
        <Field label="Project ids" hint="UUIDs, one per line">
          <textarea name="project_ids" rows={2} value={draft.project_ids} onInput={(e) => change({ project_ids: text(e) })} />
        </Field>
      </details>
    </>
  );
}

export function MetadataFields({ draft, change }: { draft: Draft; change: Change }) {
  const set = (key: string, value: string) => change({ metadata: { ...draft.metadata, [key]: value } });
  return (
    <div class="row metadata">
      {METADATA_FIELDS[draft.type].map((field) => (
        <Field key={field.key} label={field.label} hint={field.hint}>
          <MetadataInput field={field} value={draft.metadata[field.key] ?? ''} onValue={(v) => set(field.key, v)} />
        </Field>
      ))}
    </div>
  );
}

function MetadataInput({ field, value, onValue }: { field: MetaField; value: string; onValue: (value: string) => void }) {
  const name = `metadata.${field.key}`;
  const input = (e: TextEvent) => onValue(text(e));
  switch (field.kind) {
    case 'list':
      return <textarea name={name} rows={field.key === 'steps' ? 6 : 3} value={value} onInput={input} />;
    case 'datetime':
      return <input name={name} type="datetime-local" value={value} onInput={input} />;
    case 'integer':
      return <input name={name} type="number" step={1} min={field.min} max={field.max} value={value} onInput={input} />;
    case 'select':
      return (
        <select name={name} value={value} onChange={input}>
          {(field.options ?? []).map((o) => <option key={o} value={o}>{o}</option>)}
        </select>
      );
    default:
      return <input name={name} value={value} onInput={input} />;
  }
}
