// The knowledge entries, filtered and paged by the query of the address (`#/knowledge?type=skill`),
// so a reload or a shared link shows the same page. The filters are those of the list route
// (EntryListQuery): type, category, visibility, layer, project and expired memories.
import { api } from '../../api.js';
import { useSignedIn } from '../../context.js';
import { ErrorBox, formatDate, Loading, Pager, useAsync } from '../../components/ui.js';
import { href, navigate } from '../../router.js';
import type { KnowledgeEntry } from '../../types.js';
import { CategoryInput, useCategories } from './categories.js';
import { ENTRY_TYPES, TYPE_LABELS, VISIBILITIES } from './model.js';

const LIMIT = 25;
const FILTERS = ['type', 'category_id', 'visibility', 'layer', 'project_id', 'include_expired'] as const;
type Filter = (typeof FILTERS)[number];

export function EntryList({ params }: { params: URLSearchParams }) {
  const { can } = useSignedIn();
  const categories = useCategories();
  const filter = (name: Filter) => params.get(name) ?? '';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const key = params.toString();

  const page = useAsync(async () => {
    const query: Record<string, string | number> = { limit: LIMIT, offset };
    for (const name of FILTERS) if (filter(name)) query[name] = filter(name);
    const answer = await api<KnowledgeEntry[]>('GET', '/api/knowledge/knowledge-entries', { query });
    return { entries: answer.body, total: Number(answer.headers.get('X-Total-Count') ?? answer.body.length) };
  }, [key]);

  /** The address with one filter changed (back to the first page) or the page moved. */
  const go = (changes: Partial<Record<Filter | 'offset', string>>) => {
    const next: Record<string, string | undefined> = Object.fromEntries(params.entries());
    navigate('knowledge', { ...next, offset: undefined, ...changes });
  };
  const anyFilter = FILTERS.some((f) => filter(f));

  return (
    <div class="knowledge">
      <div class="toolbar">
        <h1>Knowledge entries</h1>
        {can('knowledge:write') ? <a class="button primary" href={href('knowledge/new')}>New entry</a> : null}
      </div>

      <form class="card filters row" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label class="field">
          <span>Type</span>
          <select name="type" value={filter('type')} onChange={(e) => go({ type: e.currentTarget.value })}>
            <option value="">any</option>
            {ENTRY_TYPES.map((t) => <option key={t} value={t}>{TYPE_LABELS[t]}</option>)}
          </select>
        </label>
        <label class="field">
          <span>Category</span>
          <CategoryInput categories={categories} name="category_id" value={filter('category_id')} empty="any" lazy onChange={(id) => go({ category_id: id })} />
        </label>
        <label class="field">
          <span>Visibility</span>
          <select name="visibility" value={filter('visibility')} onChange={(e) => go({ visibility: e.currentTarget.value })}>
            <option value="">any I may read</option>
            {VISIBILITIES.map((v) => <option key={v} value={v}>{v}</option>)}
          </select>
        </label>
        <label class="field">
          <span>Layer</span>
          <input name="layer" value={filter('layer')} placeholder="any" onChange={(e) => go({ layer: e.currentTarget.value.trim() })} />
        </label>
        <label class="field">
          <span>Project id</span>
          <input name="project_id" value={filter('project_id')} placeholder="any" onChange={(e) => go({ project_id: e.currentTarget.value.trim() })} />
        </label>
        <label class="check">
          <input type="checkbox" name="include_expired" checked={filter('include_expired') === 'true'}
            onChange={(e) => go({ include_expired: e.currentTarget.checked ? 'true' : '' })} />
          <span>Expired memories too</span>
        </label>
        {anyFilter ? <button type="button" class="link" onClick={() => navigate('knowledge')}>Clear filters</button> : null}
      </form>

      <ErrorBox error={page.error ?? categories.error} />
      {page.data ? (
        page.data.entries.length === 0 ? (
          <p class="muted">{anyFilter ? 'No entry matches these filters.' : 'No knowledge entry yet.'}</p>
        ) : (
          <table class="entries">
            <thead><tr><th>title</th><th>type</th><th>category</th><th>visibility</th><th>language</th><th>version</th><th>updated</th></tr></thead>
            <tbody>
              {page.data.entries.map((e) => (
                <tr key={e.id}>
                  <td><a href={href(`knowledge/${e.id}`)}>{e.title}</a>{e.tags.length ? <div class="tags">{e.tags.map((t) => <span key={t} class="tag">{t}</span>)}</div> : null}</td>
                  <td>{TYPE_LABELS[e.type]}</td>
                  <td>{categories.nameOf(e.category_id)}</td>
                  <td><span class={`badge ${e.visibility}`}>{e.visibility}</span></td>
                  <td>{e.language}</td>
                  <td>{e.version}</td>
                  <td>{formatDate(e.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
      {page.data ? <Pager offset={offset} limit={LIMIT} total={page.data.total} onChange={(o) => go({ offset: o ? String(o) : '' })} /> : null}
      <Loading when={page.loading} />
    </div>
  );
}
