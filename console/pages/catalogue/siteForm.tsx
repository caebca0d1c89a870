// A site's create or edit form. Slug and language are fixed once a site exists (PUT ignores them),
// so editing shows them read-only; `config` is free JSON, checked here before it is sent.
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { ErrorBox, Field, useSubmit } from '../../components/ui.js';
import type { Site, SiteCreate, SiteUpdate } from '../../types.js';

interface Draft {
  slug: string;
  name: string;
  language: string;
  domain: string;
  site_type: string;
  platform: string;
  config: string;
  is_default: boolean;
}

const draftOf = (site?: Site): Draft => ({
  slug: site?.slug ?? '',
  name: site?.name ?? '',
  language: site?.language ?? 'en',
  domain: site?.domain ?? '',
  site_type: site?.site_type ?? 'shop',
  platform: site?.platform ?? '',
  config: JSON.stringify(site?.config ?? {}, null, 2),
  is_default: site?.is_default ?? false,
});

function parseConfig(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text.trim() || '{}');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('config must be a JSON object');
  return value as Record<string, unknown>;
}

export function SiteForm({ site, onSaved, onCancel }: { site?: Site; onSaved: (site: Site) => void; onCancel?: () => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(site));
  const { busy, error, run } = useSubmit();
  const set = (key: keyof Draft) => (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
    setDraft((d) => ({ ...d, [key]: key === 'is_default' ? (e.currentTarget as HTMLInputElement).checked : e.currentTarget.value }));

  const save = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      let config: Record<string, unknown>;
      try {
        config = parseConfig(draft.config);
      } catch (parse) {
        throw new Error(`config: ${(parse as Error).message}`);
      }
      const common = { name: draft.name, domain: draft.domain || null, platform: draft.platform || null, config };
      const saved = site
        ? await api<Site>('PUT', `/api/knowledge/sites/${site.id}`, {
          // null is "no change": the default moves by setting it on another site, never by clearing it.
          body: { ...common, site_type: draft.site_type || null, is_default: draft.is_default ? true : null } satisfies SiteUpdate,
        })
        : await api<Site>('POST', '/api/knowledge/sites', {
          body: { ...common, slug: draft.slug, language: draft.language, site_type: draft.site_type || undefined, is_default: draft.is_default } satisfies SiteCreate,
        });
      onSaved(saved.body);
      if (!site) setDraft(draftOf());
    });
  };

  return (
    <form class="card site-form" onSubmit={save} aria-label={site ? `Edit site ${site.slug}` : 'New site'}>
      <h2>{site ? `Edit ${site.slug}` : 'New site'}</h2>
      <div class="row">
        <Field label="Slug" hint={site ? 'fixed' : 'a-z, 0-9 and -'}>
          <input name="slug" value={draft.slug} onInput={set('slug')} readOnly={!!site} required pattern="[a-z0-9]([a-z0-9\-]*[a-z0-9])?" maxLength={100} />
        </Field>
        <Field label="Name">
          <input name="name" value={draft.name} onInput={set('name')} required maxLength={200} />
        </Field>
        <Field label="Language" hint={site ? 'fixed' : 'e.g. en, de, fr-CH'}>
          <input name="language" value={draft.language} onInput={set('language')} readOnly={!!site} required minLength={2} maxLength={5} />
        </Field>
      </div>
      <div class="row">
        <Field label="Domain">
          <input name="domain" value={draft.domain} onInput={set('domain')} maxLength={255} placeholder="shop.example.com" />
        </Field>
        <Field label="Type">
          <input name="site_type" value={draft.site_type} onInput={set('site_type')} maxLength={50} />
        </Field>
        <Field label="Platform">
          <input name="platform" value={draft.platform} onInput={set('platform')} maxLength={50} placeholder="shopware, magento…" />
        </Field>
      </div>
      <Field label="Config (JSON object)">
        <textarea name="config" value={draft.config} onInput={set('config')} rows={3} />
      </Field>
      <label class="check">
        <input type="checkbox" name="is_default" checked={draft.is_default} onChange={set('is_default')} disabled={site?.is_default} />
        <span>{site?.is_default ? 'The default site (make another site the default to move it)' : 'Make this the default site'}</span>
      </label>
      <ErrorBox error={error} />
      <div class="row actions">
        <button type="submit" class="primary" disabled={busy}>{site ? 'Save' : 'Create site'}</button>
        {onCancel ? <button type="button" onClick={onCancel}>Cancel</button> : null}
      </div>
    </form>
  );
}
