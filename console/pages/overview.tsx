// Overview: how much the tenant holds, its latest imports, embedding progress, the search engine
// and whether the service is ready.
import { get, api } from '../api.js';
import { useSignedIn } from '../context.js';
import { JobsTable } from '../components/jobs.js';
import { ErrorBox, Loading, useAsync } from '../components/ui.js';
import { href } from '../router.js';
import type { EmbeddingOverview, JobSummary, Site } from '../types.js';

const total = async (path: string, query: Record<string, string | number> = {}) =>
  Number((await api('GET', path, { query: { ...query, limit: 1 } })).headers.get('X-Total-Count') ?? 0);

export function OverviewPage() {
  const { can } = useSignedIn();
  const counts = useAsync(async () => {
    const sites = can('catalog:read') ? await get<Site[]>('/api/knowledge/sites') : [];
    const products = (await Promise.all(sites.map((s) => total('/api/knowledge/products', { site_id: s.id })))).reduce((a, b) => a + b, 0);
    const entries = can('knowledge:read') ? await total('/api/knowledge/knowledge-entries') : null;
    return { sites: can('catalog:read') ? sites.length : null, products: can('catalog:read') ? products : null, entries };
  }, []);
  const jobs = useAsync(() => (can('catalog:write') ? get<JobSummary[]>('/api/knowledge/jobs', { limit: 5 }) : Promise.resolve(null)), []);
  const embedding = useAsync(() => (can('catalog:read') ? get<EmbeddingOverview>('/api/knowledge/embedding') : Promise.resolve(null)), []);
  const service = useAsync(async () => {
    const ready = await fetch('/readyz').then((r) => r.json() as Promise<{ status: string }>);
    const engine = can('catalog:read')
      ? (await api<{ engine: string }>('POST', '/api/knowledge/search/products', { body: { query: '', limit: 1, analytics: false } })).body.engine
      : null;
    return { ready: ready.status, engine };
  }, []);

  return (
    <div class="overview">
      <h1>Overview</h1>
      <div class="tiles">
        <Tile label="Sites" value={counts.data?.sites} link={href('catalogue')} />
        <Tile label="Products" value={counts.data?.products} link={href('catalogue/products')} />
        <Tile label="Knowledge entries" value={counts.data?.entries} link={href('knowledge')} />
        <Tile label="Search engine" value={service.data ? (service.data.engine === 'redis-query-engine' ? 'Redis Query Engine' : service.data.engine === 'builtin' ? 'built-in' : '—') : undefined} />
        <Tile label="Service" value={service.data?.ready} />
      </div>
      <ErrorBox error={counts.error ?? service.error} />

      {embedding.data ? (
        <section class="card">
          <h2>Embedding</h2>
          <p>
            Model <code>{embedding.data.model ?? 'off'}</code>
            {embedding.data.languages.length ? ` · serves ${embedding.data.languages.join(', ')}` : ''}
            {embedding.data.rate_per_s ? ` · ${embedding.data.rate_per_s.toFixed(1)} documents/s` : ''}
            {embedding.data.eta_s ? ` · about ${Math.ceil(embedding.data.eta_s)} s left` : ''}
          </p>
          <table>
            <thead><tr><th></th><th>ready</th><th>pending</th><th>failed</th><th>skipped</th></tr></thead>
            <tbody>
              {(['products', 'entries'] as const).map((kind) => (
                <tr key={kind}>
                  <th>{kind}</th>
                  <td>{embedding.data![kind].ready}</td><td>{embedding.data![kind].pending}</td>
                  <td>{embedding.data![kind].failed}</td><td>{embedding.data![kind].skipped}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {embedding.data.reembedding ? (
            <p>Re-embedding with <code>{embedding.data.reembedding.model}</code>: {embedding.data.reembedding.done} of {embedding.data.reembedding.total}</p>
          ) : null}
        </section>
      ) : <ErrorBox error={embedding.error} />}

      {jobs.data ? (
        <section class="card">
          <h2>Latest imports</h2>
          {jobs.data.length === 0
            ? <p class="muted">No import in the last 7 days. <a href={href('import')}>Import products</a></p>
            : <JobsTable jobs={jobs.data} />}
        </section>
      ) : <ErrorBox error={jobs.error} />}
      <Loading when={counts.loading || jobs.loading || embedding.loading} />
    </div>
  );
}

function Tile({ label, value, link }: { label: string; value: string | number | null | undefined; link?: string }) {
  if (value === null) return null;
  const shown = value === undefined ? '…' : typeof value === 'number' ? value.toLocaleString() : value;
  return (
    <div class="tile">
      <span class="label">{label}</span>
      {link ? <a class="value" href={link}>{shown}</a> : <span class="value">{shown}</span>}
    </div>
  );
}
