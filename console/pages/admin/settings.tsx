// The tenant's settings (GET/PUT /api/knowledge/settings): the variant strategy of product search,
// the facetable attributes, whether queries are understood, open OAuth registration, the rate limit per key, and search analytics
// (on or off, retention, suggestions' threshold, the events' rates for search keys). Changes reach
// every server within a second.
import { useEffect, useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import { ErrorBox, Field, Loading, Notice, useAsync, useSubmit } from '../../components/ui.js';
import type { Settings, SettingsUpdate } from '../../types.js';

/** Copied from src/schemas/tenants.ts, with what each does. */
const STRATEGIES: { value: Settings['variant_strategy']; label: string }[] = [
  { value: 'all', label: 'all: parents and variants' },
  { value: 'children_only', label: 'children_only: search hides parent products' },
  { value: 'parents_only', label: 'parents_only: search hides variants' },
];

export function SettingsTab() {
  const stored = useAsync(() => get<Settings>('/api/knowledge/settings'), []);
  const [form, setForm] = useState<Settings | null>(null);
  const [saved, setSaved] = useState(false);
  const { busy, error: failure, run } = useSubmit();
  useEffect(() => setForm(stored.data ?? null), [stored.data]);

  const change = (changes: Partial<Settings>) => {
    setSaved(false);
    setForm((f) => (f ? { ...f, ...changes } : f));
  };
  const save = (f: Settings) => run(async () => {
    const body: SettingsUpdate = { ...f };
    setForm((await api<Settings>('PUT', '/api/knowledge/settings', { body })).body);
    setSaved(true);
  });

  return (
    <div class="settings">
      <ErrorBox error={stored.error} />
      <Loading when={stored.loading} />
      {form ? (
        <form class="card" onSubmit={(e) => { e.preventDefault(); void save(form); }}>
          <Field label="Variant strategy" hint="Which products of a variant family product search shows">
            <select name="variant_strategy" value={form.variant_strategy}
              onChange={(e) => change({ variant_strategy: e.currentTarget.value as Settings['variant_strategy'] })}>
              {STRATEGIES.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
            </select>
          </Field>
          <label class="check">
            <input type="checkbox" name="oauth_open_registration" checked={form.oauth_open_registration}
              onChange={(e) => change({ oauth_open_registration: e.currentTarget.checked })} />
            <span>Open OAuth registration: anyone may register a client at /oauth/register, without an admin key</span>
          </label>
          <Field label="Rate limit per key (requests per second)" hint="0: no limit">
            <input name="rate_limit_per_s" type="number" min={0} max={1_000_000} step={1} required value={form.rate_limit_per_s}
              onInput={(e) => change({ rate_limit_per_s: Math.trunc(Number(e.currentTarget.value)) })} />
          </Field>
          <Field label="Facetable attributes" hint="Comma-separated attribute names product search may facet on (facets: attributes.<name>)">
            <input name="facet_attributes" value={form.facet_attributes.join(', ')}
              onChange={(e) => change({ facet_attributes: e.currentTarget.value.split(',').map((a) => a.trim()).filter(Boolean) })} />
          </Field>
          <label class="check">
            <input type="checkbox" name="understand_queries" checked={form.understand_queries}
              onChange={(e) => change({ understand_queries: e.currentTarget.checked })} />
            <span>Understand queries: a price phrase of a product search ("unter 100 €", "under $80") becomes a price filter</span>
          </label>
          <label class="check">
            <input type="checkbox" name="search_analytics" checked={form.search_analytics}
              onChange={(e) => change({ search_analytics: e.currentTarget.checked })} />
            <span>Search analytics: count product searches per site and day, take click and conversion events, suggest popular queries</span>
          </label>
          <Field label="Analytics retention (days)" hint="1–730">
            <input name="analytics_retention_days" type="number" min={1} max={730} step={1} required value={form.analytics_retention_days}
              onInput={(e) => change({ analytics_retention_days: Math.trunc(Number(e.currentTarget.value)) })} />
          </Field>
          <Field label="Distinct searchers before a query is suggested" hint="A query fewer shoppers searched (each counted once a day) is never shown to others">
            <input name="suggestion_min_searches" type="number" min={1} max={1000} step={1} required value={form.suggestion_min_searches}
              onInput={(e) => change({ suggestion_min_searches: Math.trunc(Number(e.currentTarget.value)) })} />
          </Field>
          <Field label="Event requests per second per search key and address" hint="0: no limit">
            <input name="search_events_rate_per_s" type="number" min={0} max={100_000} step={1} required value={form.search_events_rate_per_s}
              onInput={(e) => change({ search_events_rate_per_s: Math.trunc(Number(e.currentTarget.value)) })} />
          </Field>
          <Field label="Event requests per second per search key, all addresses together" hint="0: no limit">
            <input name="search_events_key_rate_per_s" type="number" min={0} max={100_000} step={1} required value={form.search_events_key_rate_per_s}
              onInput={(e) => change({ search_events_key_rate_per_s: Math.trunc(Number(e.currentTarget.value)) })} />
          </Field>
          <ErrorBox error={failure} />
          {saved ? <Notice>Saved. Every server applies the settings within a second.</Notice> : null}
          <button type="submit" class="primary" disabled={busy}>Save settings</button>
        </form>
      ) : null}
    </div>
  );
}
