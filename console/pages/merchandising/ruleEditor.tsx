// A search rule's editor (`#/merchandising/rules?rule=<id>`, `?rule=new`): the query it answers,
// how it matches, its site, dates and filters; the products it pins (each at a position) and
// hides, found with the product search beside the form; and, once stored, its preview.
import { useEffect, useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import { ErrorBox, Field, formatDate, Loading, useAsync, useSubmit } from '../../components/ui.js';
import { href, navigate } from '../../router.js';
import type { Product, SearchRule, Site } from '../../types.js';
import { newRuleId, rulePath, RULE_LIMITS } from './model.js';
import { ProductPicker, type PickedHit } from './productPicker.js';
import { bodyOf, dateInputValue, draftOf, nextPosition, type RuleDraft } from './ruleDraft.js';
import { RulePreview } from './rulePreview.js';
import { SiteScope } from './shared.js';

/** `id` 'new': a rule not stored yet. `onSaved`: the list shows it again. */
export function RuleEditor({ id, sites, onSaved }: { id: string; sites: Site[]; onSaved: (rule: SearchRule, created: boolean) => void }) {
  const stored = useAsync(() => (id === 'new' ? Promise.resolve(null) : get<SearchRule>(rulePath(id))), [id]);
  return (
    <section class="rule-editor">
      <div class="toolbar">
        <h2>{id === 'new' ? 'New search rule' : stored.data ? `Rule for “${stored.data.query}”` : 'Search rule'}</h2>
        <a class="button" href={href('merchandising/rules')}>Close</a>
      </div>
      <ErrorBox error={stored.error} />
      <Loading when={stored.loading} />
      {/* Keyed by what was read: a save starts the form again from the rule as stored. */}
      {stored.data || (id === 'new' && !stored.loading) ? (
        <RuleForm key={`${id}:${stored.data?.updated_at ?? ''}`} rule={stored.data ?? null} sites={sites}
          onSaved={(rule, created) => {
            onSaved(rule, created);
            if (created) navigate('merchandising/rules', { rule: rule.id });
            else stored.reload();
          }} />
      ) : null}
      {stored.data ? <RulePreview key={`${stored.data.id}:${stored.data.updated_at}`} rule={stored.data} /> : null}
    </section>
  );
}

/** Product titles by id: those of the hits picked, and the stored rule's products read once. */
function useTitles(rule: SearchRule | null) {
  const [titles, setTitles] = useState<Record<string, string>>({});
  useEffect(() => {
    const ids = rule ? [...rule.pin.map((p) => p.product_id), ...rule.hide] : [];
    void Promise.all(ids.map((pid) => get<Product>(`/api/knowledge/products/${encodeURIComponent(pid)}`).then(
      (p): [string, string] => [pid, p.title], (): [string, string] => [pid, 'unknown product'],
    ))).then((pairs) => setTitles((t) => ({ ...Object.fromEntries(pairs), ...t })));
  }, [rule]);
  return { titleOf: (pid: string) => titles[pid], add: (hit: PickedHit) => setTitles((t) => ({ ...t, [hit.id]: hit.product.title })) };
}

function RuleForm({ rule, sites, onSaved }: { rule: SearchRule | null; sites: Site[]; onSaved: (rule: SearchRule, created: boolean) => void }) {
  const [draft, setDraft] = useState<RuleDraft>(() => draftOf(rule));
  const titles = useTitles(rule);
  const { busy, error, run } = useSubmit();
  const change = (changes: Partial<RuleDraft>) => setDraft((d) => ({ ...d, ...changes }));
  const text = (key: keyof RuleDraft) => (e: { currentTarget: { value: string } }) => change({ [key]: e.currentTarget.value });

  const pin = (hit: PickedHit) => {
    titles.add(hit);
    setDraft((d) => ({ ...d, hides: d.hides.filter((h) => h !== hit.id), pins: [...d.pins, { product_id: hit.id, position: nextPosition(d.pins) }] }));
  };
  const hide = (hit: PickedHit) => {
    titles.add(hit);
    setDraft((d) => ({ ...d, pins: d.pins.filter((p) => p.product_id !== hit.id), hides: [...d.hides, hit.id] }));
  };
  const save = () => run(async () => {
    const answer = await api<SearchRule>('PUT', rulePath(rule?.id ?? newRuleId()), { body: bodyOf(draft) });
    onSaved(answer.body, !rule);
  });
  const title = (pid: string) => titles.titleOf(pid) ?? pid;

  return (
    <div class="rule-layout">
      <form class="card rule-form" aria-label="Search rule" onSubmit={(e) => { e.preventDefault(); void save(); }}>
        <div class="row">
          <Field label="Query" hint="The shoppers' query the rule answers">
            <input name="query" required maxLength={RULE_LIMITS.query} value={draft.query} onInput={text('query')} />
          </Field>
          <Field label="Match">
            <select name="match" value={draft.match} onChange={(e) => change({ match: e.currentTarget.value as RuleDraft['match'] })}>
              <option value="exact">exact: the query as a whole</option>
              <option value="contains">contains: queries holding it</option>
            </select>
          </Field>
          <SiteScope sites={sites} value={draft.site_id} onChange={(site_id) => change({ site_id })} hint="Only this site's searches" />
        </div>
        <div class="row">
          <Field label="Active from" hint="Empty: already">
            <input name="active_from" type="date" value={dateInputValue(draft.active_from)} onInput={text('active_from')} />
          </Field>
          <Field label="Active until" hint="Empty: no end">
            <input name="active_until" type="date" value={dateInputValue(draft.active_until)} onInput={text('active_until')} />
          </Field>
          <label class="check">
            <input type="checkbox" name="enabled" checked={draft.enabled} onChange={(e) => change({ enabled: e.currentTarget.checked })} />
            <span>Enabled</span>
          </label>
        </div>
        <Field label="Description">
          <input name="description" maxLength={RULE_LIMITS.description} value={draft.description} onInput={text('description')} />
        </Field>

        <h3>Pinned <span class="muted small">({draft.pins.length} of at most {RULE_LIMITS.pins})</span></h3>
        {draft.pins.length === 0 ? <p class="muted small">None: pin products found beside.</p> : (
          <table class="pins">
            <thead><tr><th>position</th><th>product</th><th></th></tr></thead>
            <tbody>
              {draft.pins.map((p, i) => (
                <tr key={p.product_id} data-id={p.product_id}>
                  <td>
                    <input name="position" type="number" min={1} max={RULE_LIMITS.position} step={1} required size={4} aria-label={`Position of ${title(p.product_id)}`}
                      value={p.position} onInput={(e) => {
                        const position = e.currentTarget.value;
                        setDraft((d) => ({ ...d, pins: d.pins.map((q, j) => (j === i ? { ...q, position } : q)) }));
                      }} />
                  </td>
                  <td>{title(p.product_id)}</td>
                  <td><button type="button" class="link danger" onClick={() => change({ pins: draft.pins.filter((_, j) => j !== i) })}>Remove</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <h3>Hidden <span class="muted small">({draft.hides.length} of at most {RULE_LIMITS.hides})</span></h3>
        {draft.hides.length === 0 ? <p class="muted small">None.</p> : (
          <ul class="hidden-products">
            {draft.hides.map((pid) => (
              <li key={pid} data-id={pid}>
                {title(pid)} <button type="button" class="link danger" onClick={() => change({ hides: draft.hides.filter((h) => h !== pid) })}>Remove</button>
              </li>
            ))}
          </ul>
        )}

        <fieldset class="rule-filters">
          <legend>Filters the rule adds</legend>
          <div class="row">
            <Field label="Brands" hint="Comma-separated"><input name="brand" value={draft.brand} onInput={text('brand')} /></Field>
            <Field label="Availability" hint="e.g. InStock"><input name="availability" value={draft.availability} onInput={text('availability')} /></Field>
            <Field label="Price min"><input name="price_min" type="number" min={0} step="any" value={draft.price_min} onInput={text('price_min')} /></Field>
            <Field label="Price max"><input name="price_max" type="number" min={0} step="any" value={draft.price_max} onInput={text('price_max')} /></Field>
            <Field label="Stock">
              <select name="in_stock" value={draft.in_stock} onChange={(e) => change({ in_stock: e.currentTarget.value as RuleDraft['in_stock'] })}>
                <option value="">any</option>
                <option value="true">in stock</option>
                <option value="false">not in stock</option>
              </select>
            </Field>
          </div>
          <Field label="Other filters (JSON)" hint='As product search takes them, e.g. {"attributes": {"color": "red"}}'>
            <textarea name="more_filters" rows={2} value={draft.more} onInput={text('more')} />
          </Field>
        </fieldset>
        <p class="muted small">A rule pins, hides or filters: at least one of them.</p>
        <ErrorBox error={error} />
        <div class="row actions">
          <button type="submit" class="primary" disabled={busy}>{rule ? 'Save rule' : 'Create rule'}</button>
          {rule ? <span class="muted small">The preview below shows the rule as stored (saved {formatDate(rule.updated_at)}).</span> : null}
        </div>
      </form>
      <ProductPicker siteId={draft.site_id} initialQuery={draft.query} pinned={draft.pins.map((p) => p.product_id)} hidden={draft.hides} onPin={pin} onHide={hide} />
    </div>
  );
}
