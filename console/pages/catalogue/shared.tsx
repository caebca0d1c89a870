// Pieces the catalogue tabs and the import page share: the site list and a site picker.
import { get } from '../../api.js';
import { Field, useAsync } from '../../components/ui.js';
import type { Site } from '../../types.js';

export const loadSites = () => get<Site[]>('/api/knowledge/sites');

/** The site a page starts on: the one named (id or slug), else the tenant's default, else the first. */
export const pickSite = (sites: Site[], wanted?: string | null): Site | undefined =>
  sites.find((s) => s.id === wanted || s.slug === wanted) ?? sites.find((s) => s.is_default) ?? sites[0];

export function useSites() {
  return useAsync(loadSites, []);
}

export function SiteSelect({ sites, value, onChange, label = 'Site' }: { sites: Site[]; value: string | undefined; onChange: (id: string) => void; label?: string }) {
  return (
    <Field label={label}>
      <select name="site" value={value ?? ''} onChange={(e) => onChange(e.currentTarget.value)}>
        {sites.map((s) => <option key={s.id} value={s.id}>{s.name} ({s.slug}, {s.language}){s.is_default ? ' · default' : ''}</option>)}
      </select>
    </Field>
  );
}
