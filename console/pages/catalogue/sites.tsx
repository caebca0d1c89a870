// Sites: the tenant's sites (oldest first); with catalog:write also create, edit, delete and
// "make default" (a tenant with sites always has exactly one default).
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useSignedIn } from '../../context.js';
import { ErrorBox, formatDate, Loading, Notice, useListActions } from '../../components/ui.js';
import { href } from '../../router.js';
import type { Site } from '../../types.js';
import { SiteForm } from './siteForm.js';
import { useSites } from './shared.js';

export function SitesTab() {
  const { can } = useSignedIn();
  const writable = can('catalog:write');
  const sites = useSites();
  const [editing, setEditing] = useState<Site | null>(null);
  const { error, notice, act, report } = useListActions(sites.reload);
  const makeDefault = (site: Site) =>
    act(() => api('PUT', `/api/knowledge/sites/${site.id}`, { body: { is_default: true } }), `${site.slug} is now the default site.`);
  const remove = (site: Site) => {
    if (!confirm(`Delete the site ${site.slug}? Its products are purged in the background.`)) return;
    if (editing?.id === site.id) setEditing(null);
    void act(() => api('DELETE', `/api/knowledge/sites/${site.id}`), `Site ${site.slug} deleted.`);
  };
  const saved = (site: Site, verb: string) => {
    setEditing(null);
    report(`Site ${site.slug} ${verb}.`);
  };

  return (
    <section class="sites">
      <ErrorBox error={sites.error ?? error} />
      {notice ? <Notice>{notice}</Notice> : null}
      {sites.data && sites.data.length === 0 ? <p class="muted">No site yet.{writable ? ' Create the first one below: it becomes the default.' : ''}</p> : null}
      {sites.data && sites.data.length > 0 ? (
        <table class="sites-table">
          <thead>
            <tr><th>slug</th><th>name</th><th>language</th><th>domain</th><th>type</th><th>platform</th><th>created</th>{writable ? <th></th> : null}</tr>
          </thead>
          <tbody>
            {sites.data.map((site) => (
              <tr key={site.id} data-site={site.slug}>
                <td>
                  <code>{site.slug}</code> {site.is_default ? <span class="status ready">default</span> : null}
                </td>
                <td><a href={href('catalogue/products', { site: site.id })}>{site.name}</a></td>
                <td>{site.language}</td>
                <td>{site.domain ?? '—'}</td>
                <td>{site.site_type}</td>
                <td>{site.platform ?? '—'}</td>
                <td>{formatDate(site.created_at)}</td>
                {writable ? (
                  <td class="actions">
                    <button type="button" class="link" onClick={() => setEditing(site)}>Edit</button>
                    {site.is_default ? null : <button type="button" class="link" onClick={() => void makeDefault(site)}>Make default</button>}
                    <button type="button" class="link danger" onClick={() => remove(site)}>Delete</button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Loading when={sites.loading} />
      {writable ? (
        editing
          ? <SiteForm key={editing.id} site={editing} onSaved={(s) => saved(s, 'saved')} onCancel={() => setEditing(null)} />
          : <SiteForm key="new" onSaved={(s) => saved(s, 'created')} />
      ) : <p class="muted small">Read-only: changing sites needs the catalog:write scope.</p>}
    </section>
  );
}
