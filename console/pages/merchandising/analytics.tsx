// Search analytics (`GET /api/knowledge/search/analytics`): for a site (or all) and a range of days
// (`#/merchandising/analytics?site=…&from=2025-01-01&to=2025-01-07`; none: the API's last 7
// days), the figures of product search, searches per day and per hour, the top queries and the
// queries that found nothing. Days and hours are UTC, as the API counts them.
import { get } from '../../api.js';
import { BarChart, type ChartBar } from '../../components/charts.js';
import { ErrorBox, Field, Loading, useAsync } from '../../components/ui.js';
import { href, navigate } from '../../router.js';
import { daysBefore, isoDay, type SearchAnalytics } from './model.js';
import { SiteScope, useSiteNames } from './shared.js';

const LIMITS = [10, 25, 50];
const PRESETS = [7, 30];

const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)} %`);
const decimal = (n: number | null) => (n === null ? '—' : n.toFixed(1));

/** Every day from `from` to `to` (inclusive), so a day without searches is a bar of none. */
function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = new Date(`${from}T00:00:00Z`); isoDay(at) <= to && days.length < 400; at = new Date(at.getTime() + 86_400_000)) days.push(isoDay(at));
  return days;
}

function dayBars(a: SearchAnalytics): ChartBar[] {
  const byDay = new Map(a.per_day.map((d) => [d.date, d]));
  return daysOf(a.from, a.to).map((date) => {
    const d = byDay.get(date) ?? { searches: 0, no_result_searches: 0 };
    return {
      label: date.slice(5),
      values: [d.searches - d.no_result_searches, d.no_result_searches],
      title: `${date}: ${d.searches} ${d.searches === 1 ? 'search' : 'searches'}, ${d.no_result_searches} without results`,
    };
  });
}

/** A bar an hour of the range (from the API's list, every hour given), a label at each day's start. */
function hourBars(a: SearchAnalytics): ChartBar[] {
  return a.per_hour.map((h) => {
    const at = new Date(h.hour).toISOString();
    const [day, time] = [at.slice(0, 10), at.slice(11, 16)];
    return {
      label: time === '00:00' ? day.slice(5) : '',
      values: [h.searches],
      title: `${day} ${time} UTC: ${h.searches} ${h.searches === 1 ? 'search' : 'searches'}`,
    };
  });
}

export function AnalyticsTab({ params }: { params: URLSearchParams }) {
  const sites = useSiteNames();
  const site = params.get('site') ?? '';
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const limit = Number(params.get('limit')) || LIMITS[0];
  const figures = useAsync(() => get<SearchAnalytics>('/api/knowledge/search/analytics', { site_id: site, from, to, limit }), [site, from, to, limit]);
  const go = (changes: Record<string, string | undefined>) =>
    navigate('merchandising/analytics', { site, from, to, limit: limit === LIMITS[0] ? undefined : String(limit), ...changes });
  const a = figures.data;
  const shownFrom = from || a?.from || '';
  const shownTo = to || a?.to || '';
  const today = isoDay(new Date());

  return (
    <section class="analytics">
      <form class="card filters row" aria-label="Range" onSubmit={(e) => e.preventDefault()}>
        <SiteScope sites={sites.list} name="site" value={site} any="all sites" onChange={(id) => go({ site: id })} />
        <Field label="From">
          <input name="from" type="date" max={shownTo || undefined} value={shownFrom} onChange={(e) => go({ from: e.currentTarget.value, to: shownTo })} />
        </Field>
        <Field label="To">
          <input name="to" type="date" min={shownFrom || undefined} value={shownTo} onChange={(e) => go({ from: shownFrom, to: e.currentTarget.value })} />
        </Field>
        <span class="presets">
          {PRESETS.map((days) => {
            const on = shownFrom === daysBefore(days - 1) && shownTo === today;
            return (
              <button key={days} type="button" class={on ? 'on' : undefined} aria-pressed={on} onClick={() => go({ from: daysBefore(days - 1), to: today })}>
                Last {days} days
              </button>
            );
          })}
        </span>
        <Field label="Queries listed">
          <select name="limit" value={String(limit)} onChange={(e) => go({ limit: e.currentTarget.value })}>
            {LIMITS.map((n) => <option key={n} value={String(n)}>{n}</option>)}
          </select>
        </Field>
      </form>
      <ErrorBox error={figures.error ?? sites.error} />
      <Loading when={figures.loading} />
      {a ? <Figures a={a} site={site} /> : null}
    </section>
  );
}

function Tile({ name, label, value, note }: { name: string; label: string; value: string; note?: string }) {
  return (
    <div class="tile" data-tile={name}>
      <span class="label">{label}</span>
      <span class="value">{value}</span>
      {note ? <span class="muted small">{note}</span> : null}
    </div>
  );
}

function Figures({ a, site }: { a: SearchAnalytics; site: string }) {
  const searchLink = (query: string) => href('search', { tab: 'products', q: query, site: site || undefined });
  return (
    <>
      <p class="muted small range">{a.from} – {a.to} (UTC)</p>
      <div class="tiles">
        <Tile name="searches" label="Searches" value={a.searches.toLocaleString()} />
        <Tile name="no_result_rate" label="No-result rate" value={percent(a.no_result_rate)} note={`${a.no_result_searches.toLocaleString()} without results`} />
        <Tile name="click_through_rate" label="Click-through rate" value={percent(a.click_through_rate)} note={`${a.clicks.toLocaleString()} ${a.clicks === 1 ? 'click' : 'clicks'}`} />
        <Tile name="average_click_position" label="Average click position" value={decimal(a.average_click_position)} />
        <Tile name="conversions" label="Conversions" value={a.conversions.toLocaleString()} note={`conversion rate ${percent(a.conversion_rate)}`} />
      </div>
      <div class="charts">
        <section class="card">
          <h2>Searches per day</h2>
          <BarChart title="Searches per day" bars={dayBars(a)}
            series={[{ key: 'found', label: 'with results' }, { key: 'none', label: 'without results' }]} />
        </section>
        <section class="card">
          <h2>Searches per hour</h2>
          {/* A label a day, or every few days on a long range. */}
          <BarChart title="Searches per hour" bars={hourBars(a)} labelEvery={24 * Math.ceil(a.per_hour.length / 24 / 8)}
            series={[{ key: 'found', label: 'searches an hour (UTC)' }]} />
        </section>
      </div>
      <div class="query-tables">
        <section class="card">
          <h2>Top queries</h2>
          {a.top_queries.length === 0 ? <p class="muted">No search in this range.</p> : (
            <table class="top-queries">
              <thead><tr><th>query</th><th>searches</th><th>hits</th></tr></thead>
              <tbody>
                {a.top_queries.map((q) => (
                  <tr key={q.query} data-query={q.query}>
                    <td><a href={searchLink(q.query)}>{q.query || <span class="muted">(empty)</span>}</a></td>
                    <td>{q.count.toLocaleString()}</td>
                    <td>{q.hits.toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section class="card">
          <h2>Queries without results</h2>
          {a.no_result_queries.length === 0 ? <p class="muted">{a.searches ? 'Every search found something.' : 'No search in this range.'}</p> : (
            <table class="no-result-queries">
              <thead><tr><th>query</th><th>searches</th></tr></thead>
              <tbody>
                {a.no_result_queries.map((q) => (
                  <tr key={q.query} data-query={q.query}>
                    <td><a href={searchLink(q.query)}>{q.query}</a></td>
                    <td>{q.count.toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p class="muted small">A synonym set or a rule can give these queries results: <a href={href('merchandising/synonyms')}>Synonyms</a>, <a href={href('merchandising/rules')}>Rules</a>.</p>
        </section>
      </div>
    </>
  );
}
