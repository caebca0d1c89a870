// Products of one site, filtered by language and category, a page at a time. The site, filters,
// page and chosen product live in the hash (`#/catalogue/products?site=…&product=…`) so a reload
// or a shared link keeps them.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import { useSignedIn } from '../../context.js';
import { ErrorBox, Field, formatDate, JsonView, Loading, Pager, useAsync } from '../../components/ui.js';
import { href, navigate, useLocation } from '../../router.js';
import type { Category, EmbeddingOverview, Product, Site } from '../../types.js';
import { pickSite, SiteSelect, useSites } from './shared.js';

const LIMIT = 25;

interface View {
  site?: string;
  language?: string;
  category?: string;
  offset?: string;
  product?: string;
}

const price = (p: Product) => (p.price_on_request ? 'on request' : p.price_current ? `${p.price_current} ${p.currency}` : '—');

export function ProductsTab() {
  const { params } = useLocation();
  const sites = useSites();
  const site = sites.data ? pickSite(sites.data, params.get('site')) : undefined;
  const view: View = {
    site: site?.id,
    language: params.get('language') ?? undefined,
    category: params.get('category') ?? undefined,
    offset: params.get('offset') ?? undefined,
    product: params.get('product') ?? undefined,
  };
  const offset = Number(view.offset ?? 0) || 0;
  /** Moves to another view; a new site or filter starts at the first page. */
  const show = (change: Partial<View>) => navigate('catalogue/products', { ...view, ...('offset' in change ? {} : { offset: undefined }), ...change });

  const list = useAsync(async () => {
    if (!site) return null;
    const answer = await api<Product[]>('GET', '/api/knowledge/products', {
      query: { site_id: site.id, language: view.language, category: view.category, limit: LIMIT, offset },
    });
    return { items: answer.body, total: Number(answer.headers.get('X-Total-Count') ?? answer.body.length) };
  }, [site?.id, view.language, view.category, offset]);

  if (sites.data?.length === 0) {
    return <p class="muted">No site yet: <a href={href('catalogue/sites')}>create one</a>, then import products.</p>;
  }
  return (
    <section class="products">
      <ErrorBox error={sites.error} />
      <Filters sites={sites.data ?? []} view={view} onChange={show} />
      <ErrorBox error={list.error} />
      {list.data ? (
        <>
          <table class="products-table clickable">
            <thead>
              <tr><th>title</th><th>external_id</th><th>brand</th><th>price</th><th>availability</th><th>embedding</th></tr>
            </thead>
            <tbody>
              {list.data.items.map((p) => (
                <tr key={p.id} data-product={p.external_id ?? p.id} class={p.id === view.product ? 'selected' : ''} onClick={() => show({ product: p.id, offset: view.offset })}>
                  <td><a href={href('catalogue/products', { ...view, product: p.id })}>{p.title}</a></td>
                  <td><code>{p.external_id ?? '—'}</code></td>
                  <td>{p.brand ?? '—'}</td>
                  <td>{price(p)}</td>
                  <td>{p.availability ?? '—'}</td>
                  <td><span class={`status ${p.embedding_status}`}>{p.embedding_status}</span></td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.total === 0 ? <p class="muted">No product matches.</p> : null}
          <Pager offset={offset} limit={LIMIT} total={list.data.total} onChange={(o) => show({ offset: String(o), product: undefined })} />
        </>
      ) : null}
      <Loading when={sites.loading || list.loading} />
      {view.product ? <ProductDetail id={view.product} onClose={() => show({ product: undefined, offset: view.offset })} onDeleted={() => { show({ product: undefined, offset: view.offset }); list.reload(); }} /> : null}
    </section>
  );
}

/** Site, language and category. The text filters apply on Enter or when the field is left. */
function Filters({ sites, view, onChange }: { sites: Site[]; view: View; onChange: (change: Partial<View>) => void }) {
  const categories = useAsync(() => get<Category[]>('/api/knowledge/categories'), []);
  const [language, setLanguage] = useState(view.language ?? '');
  const [category, setCategory] = useState(view.category ?? '');
  useEffect(() => setLanguage(view.language ?? ''), [view.language]);
  useEffect(() => setCategory(view.category ?? ''), [view.category]);
  const apply = () => onChange({ language: language.trim() || undefined, category: category.trim() || undefined, product: undefined });
  return (
    <form class="row filters" onSubmit={(e) => { e.preventDefault(); apply(); }}>
      <SiteSelect sites={sites} value={view.site} onChange={(id) => onChange({ site: id, product: undefined })} />
      <Field label="Language">
        <input name="language" value={language} placeholder="any" minLength={2} maxLength={5} onInput={(e) => setLanguage(e.currentTarget.value)} onChange={apply} />
      </Field>
      <Field label="Category">
        <input name="category" value={category} placeholder="any (exact match)" list="category-names" onInput={(e) => setCategory(e.currentTarget.value)} onChange={apply} />
      </Field>
      <datalist id="category-names">
        {(categories.data ?? []).map((c) => <option key={c.id} value={c.name} />)}
      </datalist>
      <button type="submit">Filter</button>
    </form>
  );
}

function ProductDetail({ id, onClose, onDeleted }: { id: string; onClose: () => void; onDeleted: () => void }) {
  const { can } = useSignedIn();
  const product = useAsync(() => get<Product>(`/api/knowledge/products/${id}`), [id]);
  const embedding = useAsync(() => get<EmbeddingOverview>('/api/knowledge/embedding'), []);
  const [error, setError] = useState<unknown>(null);
  const card = useRef<HTMLElement>(null);
  useEffect(() => card.current?.scrollIntoView({ block: 'nearest' }), [id, product.data]);
  const remove = async (p: Product) => {
    if (!confirm(`Delete the product ${p.title}?`)) return;
    try {
      await api('DELETE', `/api/knowledge/products/${p.id}`);
      onDeleted();
    } catch (failure) {
      setError(failure);
    }
  };
  const p = product.data;
  return (
    <section class="card product-detail" ref={card} aria-label="Product">
      <div class="detail-head">
        <h2>{p?.title ?? 'Product'}</h2>
        <span class="spacer" />
        {p && can('catalog:write') ? <button type="button" class="danger" onClick={() => void remove(p)}>Delete</button> : null}
        <button type="button" onClick={onClose}>Close</button>
      </div>
      <ErrorBox error={product.error ?? error} />
      {p ? (
        <>
          <p class="embedding-line">
            Embedding <span class={`status ${p.embedding_status}`}>{p.embedding_status}</span>
            {embedding.data ? <span class="muted"> · model <code>{embedding.data.model ?? 'off'}</code></span> : null}
            <span class="muted"> · updated {formatDate(p.updated_at)} · source {p.source}</span>
          </p>
          <JsonView value={p} />
        </>
      ) : <Loading when={product.loading} />}
    </section>
  );
}
