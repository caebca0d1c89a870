// A stored rule's preview: its query run through product search (its site, the first page), as a
// shopper gets it. The answer names the rules it applied (several may: exact ones first); pinned
// hits are marked, and the rule's hidden products are checked to be absent.
import { api } from '../../api.js';
import { ErrorBox, Loading, Notice, useAsync } from '../../components/ui.js';
import { href } from '../../router.js';
import type { ProductSearchRequest, ProductSearchResult, SearchRule } from '../../types.js';

const LIMIT = 20;

/** Why a stored rule may not apply today (the API decides; these are the rule's own reasons). */
function idleReason(rule: SearchRule): string | null {
  const today = new Date().toISOString();
  if (!rule.enabled) return 'it is disabled';
  if (rule.active_from && rule.active_from > today) return `it is active from ${rule.active_from}`;
  if (rule.active_until && rule.active_until.slice(0, 10) < today.slice(0, 10)) return `it was active until ${rule.active_until}`;
  return null;
}

export function RulePreview({ rule }: { rule: SearchRule }) {
  const search = useAsync(async () => {
    const body: ProductSearchRequest = { query: rule.query, site_id: rule.site_id ?? undefined, limit: LIMIT, analytics: false };
    return (await api<ProductSearchResult>('POST', '/api/knowledge/search/products', { body })).body;
  }, [rule]);
  const answer = search.data;
  const applied = answer?.applied_rules ?? [];
  const mine = applied.some((r) => r.id === rule.id);
  const shownIds = new Set(answer?.hits.map((h) => h.id) ?? []);
  const kept = rule.hide.filter((pid) => !shownIds.has(pid)).length;
  const reason = idleReason(rule);

  return (
    <section class="card rule-preview" aria-label="Preview">
      <div class="toolbar">
        <h2>Preview: “{rule.query}”</h2>
        <button type="button" disabled={search.loading} onClick={search.reload}>Run again</button>
      </div>
      <ErrorBox error={search.error} />
      <Loading when={search.loading} />
      {answer ? (
        <>
          <div class="applied">
            <span>Rules applied:</span>{' '}
            {applied.length === 0 ? <span class="muted">none</span> : (
              <ul>
                {applied.map((r) => (
                  <li key={r.id} data-rule={r.id}>
                    <a class={`badge${r.id === rule.id ? ' mine' : ''}`} href={href('merchandising/rules', { rule: r.id })}>
                      {r.id === rule.id ? 'this rule' : `rule ${r.id.slice(0, 8)}…`}
                    </a>
                    <span class="muted small">{[`${r.pinned.length} pinned`, `${r.hidden} hidden`, r.filtered ? 'filters' : null].filter(Boolean).join(' · ')}</span>
                  </li>
                ))}
              </ul>
            )}
          </div>
          {mine ? null : <Notice>This rule did not apply to the search{reason ? `: ${reason}` : ''}.</Notice>}
          {rule.hide.length ? <p class="muted small">Hidden products kept out of this page: {kept} of {rule.hide.length}.</p> : null}
          <p class="muted small">{answer.total.toLocaleString()} {answer.total === 1 ? 'match' : 'matches'}, the first {Math.min(LIMIT, answer.hits.length)} shown.</p>
          {answer.hits.length === 0 ? <p class="muted">No hits.</p> : (
            <ol class="preview-hits">
              {answer.hits.map((h) => (
                <li key={h.id} data-id={h.id} class={h.pinned ? 'pinned' : undefined}>
                  <span class="title">{h.product.title}</span>
                  {h.pinned ? <span class="badge mine">pinned</span> : null}
                  <span class="meta">{[h.product.brand, h.product.availability].filter(Boolean).join(' · ')}</span>
                </li>
              ))}
            </ol>
          )}
        </>
      ) : null}
    </section>
  );
}
