// Search rules (`/api/knowledge/search-rules`): for a query, products pinned at positions, hidden
// or filtered. The list, oldest first, by site (`#/merchandising/rules?site=…`); the rule open in
// the editor is the address's `rule` (`?rule=<id>`, `?rule=new`); deletion.
import { api } from '../../api.js';
import { ErrorBox, Loading, Notice, Pager, useAsync, useListActions } from '../../components/ui.js';
import { href, navigate } from '../../router.js';
import type { SearchRule } from '../../types.js';
import { rulePath, RULES } from './model.js';
import { RuleEditor } from './ruleEditor.js';
import { SiteScope, useSiteNames } from './shared.js';

const LIMIT = 50;
const day = (stored: string | null) => (stored ? stored.slice(0, 10) : null);

export function RulesTab({ params }: { params: URLSearchParams }) {
  const sites = useSiteNames();
  const site = params.get('site') ?? '';
  const open = params.get('rule');
  const offset = Number(params.get('offset') ?? 0) || 0;
  const page = useAsync(async () => {
    const answer = await api<SearchRule[]>('GET', RULES, { query: { site_id: site, offset, limit: LIMIT } });
    return { rules: answer.body, total: Number(answer.headers.get('X-Total-Count') ?? answer.body.length) };
  }, [site, offset]);
  const { error, notice, act, report } = useListActions(page.reload);
  const go = (changes: Record<string, string | undefined>) => navigate('merchandising/rules', { site, ...changes });

  const remove = async (rule: SearchRule) => {
    if (!confirm(`Delete the rule for “${rule.query}”? Searches stop applying it.`)) return;
    if (await act(() => api('DELETE', rulePath(rule.id)), `The rule for “${rule.query}” was deleted.`) && open === rule.id) go({});
  };

  return (
    <section class="rules">
      <div class="toolbar">
        <form class="filters row" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
          <SiteScope sites={sites.list} name="site" value={site} any="any" onChange={(id) => go({ site: id })} />
        </form>
        <a class="button primary" href={href('merchandising/rules', { site, rule: 'new' })}>New rule</a>
      </div>
      <ErrorBox error={page.error ?? sites.error ?? error} />
      {notice ? <Notice>{notice}</Notice> : null}
      {open ? <RuleEditor key={open} id={open} sites={sites.list} onSaved={(r, created) => report(`The rule for “${r.query}” was ${created ? 'created' : 'saved'}.`)} /> : null}
      {page.data ? (
        page.data.rules.length === 0 ? <p class="muted">{site ? 'No rule for this site.' : 'No search rule yet.'}</p> : (
          <table class="rules-table">
            <thead><tr><th>query</th><th>match</th><th>site</th><th>pinned</th><th>hidden</th><th>filters</th><th>active</th><th>enabled</th><th></th></tr></thead>
            <tbody>
              {page.data.rules.map((r) => (
                <tr key={r.id} data-rule={r.id} class={r.id === open ? 'selected' : undefined}>
                  <td>
                    <a href={href('merchandising/rules', { site, rule: r.id })}>{r.query}</a>
                    {r.description ? <div class="muted small">{r.description}</div> : null}
                  </td>
                  <td>{r.match}</td>
                  <td>{sites.nameOf(r.site_id)}</td>
                  <td class="pins">{r.pin.length}</td>
                  <td class="hides">{r.hide.length}</td>
                  <td>{r.filters && Object.keys(r.filters).length ? Object.keys(r.filters).join(', ') : '—'}</td>
                  <td class="dates">{day(r.active_from) ?? 'now'} – {day(r.active_until) ?? 'open'}</td>
                  <td><span class={`status ${r.enabled ? 'ready' : 'failed'}`}>{r.enabled ? 'enabled' : 'disabled'}</span></td>
                  <td class="actions">
                    <a href={href('merchandising/rules', { site, rule: r.id })}>Edit</a>
                    <button type="button" class="link danger" onClick={() => void remove(r)}>Delete</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
      {page.data ? <Pager offset={offset} limit={LIMIT} total={page.data.total} onChange={(o) => go({ offset: o ? String(o) : undefined })} /> : null}
      <Loading when={page.loading} />
    </section>
  );
}
