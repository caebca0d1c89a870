// Pieces the merchandising tabs share: the tenant's sites by id and a site picker whose empty
// choice is "every site" (a set or rule for the whole tenant, or a list of all of them).
import { Field, useAsync } from '../../components/ui.js';
import type { Site } from '../../types.js';
import { loadSites } from '../catalogue/shared.js';

export interface Sites {
  list: Site[];
  error: Error | null;
  /** A site's slug by id (the id itself when unknown; `none` for null). */
  nameOf: (id: string | null, none?: string) => string;
}

export function useSiteNames(): Sites {
  const sites = useAsync(loadSites, []);
  const list = sites.data ?? [];
  return {
    list,
    error: sites.error,
    nameOf: (id, none = 'every site') => (id ? list.find((s) => s.id === id || s.slug === id)?.slug ?? id : none),
  };
}

export function SiteScope({ sites, value, onChange, name = 'site_id', label = 'Site', any = 'every site', hint }: {
  sites: Site[]; value: string; onChange: (id: string) => void; name?: string; label?: string; any?: string; hint?: string;
}) {
  return (
    <Field label={label} hint={hint}>
      <select name={name} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">{any}</option>
        {sites.map((s) => <option key={s.id} value={s.id}>{s.name} ({s.slug}, {s.language})</option>)}
      </select>
    </Field>
  );
}
