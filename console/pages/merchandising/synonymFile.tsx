// Synonym sets as a Solr synonyms file (docs/API.md, Synonyms): one pasted or picked is imported
// as new sets for a site and language (all or nothing: a bad line is a 422 naming its number),
// and the sets the list's filters select are exported, shown and offered as a download.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { ErrorBox, Field, useSubmit } from '../../components/ui.js';
import type { Site, SynonymImportResult } from '../../types.js';
import { SYNONYMS } from './model.js';
import { SiteScope } from './shared.js';

export function SynonymFile({ sites, site, language, onImported }: {
  sites: Site[];
  /** The list's filters: what an export holds. */
  site: string;
  language: string;
  onImported: (count: number) => void;
}) {
  return (
    <div class="synonym-file">
      <ImportForm sites={sites} onImported={onImported} />
      <ExportBox site={site} language={language} />
    </div>
  );
}

function ImportForm({ sites, onImported }: { sites: Site[]; onImported: (count: number) => void }) {
  const [text, setText] = useState('');
  const [site, setSite] = useState('');
  const [language, setLanguage] = useState('');
  const { busy, error, setError, run } = useSubmit();

  const pick = (file: File | undefined) => {
    if (file) file.text().then(setText, (e: Error) => setError(e));
  };
  const submit = () => run(async () => {
    const answer = await api<SynonymImportResult>('POST', `${SYNONYMS}/import`, {
      raw: { data: text, contentType: 'text/plain; charset=utf-8' }, query: { site_id: site, language: language.trim() },
    });
    setText('');
    onImported(answer.body.imported);
  });

  return (
    <form class="card synonym-import" aria-label="Import synonyms" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <h2>Import a Solr synonyms file</h2>
      <p class="muted small">
        One set a line: <code>a, b, c</code> multi-way, <code>a =&gt; b, c</code> one-way; <code>#</code> comments and blank lines are skipped.
        Each line becomes a new set; a bad line imports nothing.
      </p>
      <Field label="File">
        <input name="file" type="file" accept=".txt,text/plain" onChange={(e) => pick(e.currentTarget.files?.[0])} />
      </Field>
      <Field label="Synonyms">
        <textarea name="solr" rows={5} placeholder={'handy, smartphone, mobiltelefon\nhose => jeans, chino'} value={text}
          onInput={(e) => setText(e.currentTarget.value)} />
      </Field>
      <div class="row">
        <SiteScope sites={sites} value={site} onChange={setSite} name="import_site" label="For site" />
        <Field label="For language">
          <input name="import_language" maxLength={5} size={5} placeholder="any" value={language} onInput={(e) => setLanguage(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="primary" disabled={busy || !text.trim()}>Import</button>
      </div>
      <ErrorBox error={error} />
    </form>
  );
}

function ExportBox({ site, language }: { site: string; language: string }) {
  const [file, setFile] = useState<{ text: string; url: string } | null>(null);
  const { busy, error, run } = useSubmit();
  useEffect(() => () => {
    if (file) URL.revokeObjectURL(file.url);
  }, [file]);
  // A new filter, a new file to ask for.
  useEffect(() => setFile(null), [site, language]);

  const load = () => run(async () => {
    const answer = await api<string>('GET', `${SYNONYMS}/export`, { query: { site_id: site, language }, headers: { Accept: 'text/plain' } });
    const text = answer.body ?? '';
    setFile({ text, url: URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' })) });
  });

  return (
    <section class="card synonym-export" aria-label="Export synonyms">
      <div class="toolbar">
        <h2>Export</h2>
        <span class="actions">
          <button type="button" disabled={busy} onClick={() => void load()}>{file ? 'Export again' : 'Export'}</button>
          {file ? <a class="button" href={file.url} download="synonyms.txt">Download synonyms.txt</a> : null}
        </span>
      </div>
      <p class="muted small">The sets the list's filters select, as a Solr synonyms file.</p>
      <ErrorBox error={error} />
      {file ? <pre class="export">{file.text || '(no set)'}</pre> : null}
    </section>
  );
}
