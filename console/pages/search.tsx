// Search playground: product and knowledge search as the API answers it (hits with score and
// ranks, facets, the mode that ran), results as you type, and each hit's related documents. The
// whole form lives in the address (`#/search?tab=products&q=lamp&mode=hybrid`), so a reload or a
// shared link shows the same search.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { useSignedIn } from '../context.js';
import { ErrorBox, Field, Loading, Pager, useAsync, useDebounced } from '../components/ui.js';
import {
  AnswerFigures, CommittedInput, EntryHitView, FacetGroup, HitList, ProductHitView,
} from '../components/search.js';
import { href, navigate, useLocation } from '../router.js';
import type { KnowledgeSearchRequest, KnowledgeSearchResult, ProductSearchRequest, ProductSearchResult, Site } from '../types.js';

// Copies of the lists in src/schemas (only types may be imported from src/: nothing of the
// server is bundled).
const MODES = ['hybrid', 'keyword', 'semantic'] as const;
const ENTRY_TYPES = ['knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap', 'skill_index'] as const;
const VISIBILITIES = ['public', 'internal', 'personal', 'restricted', 'community', 'workspace'] as const;
const LIMIT = 20;
/** The API's bound on offset + limit. */
const DEEPEST = 1100;

type Tab = 'products' | 'knowledge';
type Params = Record<string, string | undefined>;
/** Moves to the search with these parameters changed. */
type Change = (next: Params) => void;

// Several values of one filter share a query parameter.
const SEPARATOR = '|';
const valuesOf = (text: string | null) => (text ? text.split(SEPARATOR).filter(Boolean) : []);
const toggled = (values: string[], value: string) => {
  const kept = values.filter((v) => v.toLowerCase() !== value.toLowerCase());
  return (kept.length < values.length ? kept : [...values, value]).join(SEPARATOR) || undefined;
};
const numberOf = (text: string | null) => (text?.trim() && Number.isFinite(Number(text)) ? Number(text) : undefined);
const oneOf = <T extends string>(list: readonly T[], text: string | null) => list.find((v) => v === text);
const optional = (text: string | null) => text?.trim() || undefined;

function productRequest(p: URLSearchParams): ProductSearchRequest {
  const inStock = p.get('in_stock');
  return {
    // The playground's searches are staff trying things: search analytics leave them out.
    analytics: false,
    query: p.get('q') ?? '',
    // Price phrases read as a filter: the tenant's setting unless chosen here.
    understand: p.get('understand') === 'on' ? true : p.get('understand') === 'off' ? false : undefined,
    mode: oneOf(MODES, p.get('mode')),
    site_id: optional(p.get('site')),
    language: optional(p.get('language')),
    category: optional(p.get('category')),
    filters: {
      brand: valuesOf(p.get('brand')).length ? valuesOf(p.get('brand')) : undefined,
      availability: valuesOf(p.get('availability')).length ? valuesOf(p.get('availability')) : undefined,
      price_min: numberOf(p.get('price_min')),
      price_max: numberOf(p.get('price_max')),
      in_stock: inStock === 'true' ? true : inStock === 'false' ? false : undefined,
    },
    facets: ['brand', 'category', 'availability'],
    limit: LIMIT,
    offset: numberOf(p.get('offset')),
  };
}

function knowledgeRequest(p: URLSearchParams): KnowledgeSearchRequest {
  return {
    query: p.get('q') ?? '',
    mode: oneOf(MODES, p.get('mode')),
    type: oneOf(ENTRY_TYPES, p.get('type')),
    visibility: oneOf(VISIBILITIES, p.get('visibility')),
    language: optional(p.get('language')),
    limit: LIMIT,
    offset: numberOf(p.get('offset')),
  };
}

/**
 * The query input's text: the input's own while typed, written to the address once it settles
 * (one history entry per settled query, not per key), and taken from the address when that
 * changes otherwise (back, a link).
 */
function useTypedQuery(fromAddress: string, settle: (q: string) => void) {
  const [text, setText] = useState(fromAddress);
  const written = useRef(fromAddress);
  useEffect(() => {
    if (fromAddress !== written.current) setText((written.current = fromAddress));
  }, [fromAddress]);
  const settled = useDebounced(text, 250);
  useEffect(() => {
    if (settled !== written.current) settle((written.current = settled));
  }, [settled]);
  return [text, setText] as const;
}

export function SearchPage() {
  const { can } = useSignedIn();
  const at = useLocation();
  const tabs = (['products', 'knowledge'] as const).filter((t) => can(t === 'products' ? 'catalog:read' : 'knowledge:read'));
  const tab: Tab = oneOf(tabs, at.params.get('tab')) ?? tabs[0];
  const current: Params = { ...Object.fromEntries(at.params), tab };
  // Any change but paging starts again at the first page, and leaves a related view.
  const change: Change = (next) => navigate('search', { ...current, offset: undefined, related: undefined, ...next });
  const [text, setText] = useTypedQuery(at.params.get('q') ?? '', (q) => change({ q }));

  const queryField = (
    <Field label="Query">
      <input name="q" type="search" value={text} placeholder="Search as you type…" autoFocus autoComplete="off"
        onInput={(e) => setText(e.currentTarget.value)} />
    </Field>
  );
  const modeField = (
    <Field label="Mode">
      <select name="mode" value={oneOf(MODES, at.params.get('mode')) ?? 'hybrid'} onChange={(e) => change({ mode: e.currentTarget.value })}>
        {MODES.map((m) => <option key={m} value={m}>{m}</option>)}
      </select>
    </Field>
  );
  const tabProps = { params: at.params, current, change, fields: <>{queryField}{modeField}</> };
  return (
    <div class="search">
      <h1>Search</h1>
      {tabs.length > 1 ? (
        <nav class="tabs">
          {tabs.map((t) => (
            <a key={t} href={href('search', { tab: t, q: current.q, mode: current.mode, language: current.language })} class={t === tab ? 'active' : ''}>
              {t === 'products' ? 'Products' : 'Knowledge'}
            </a>
          ))}
        </nav>
      ) : null}
      {tab === 'products' ? <ProductSearch {...tabProps} /> : <KnowledgeSearch {...tabProps} />}
    </div>
  );
}

interface TabProps {
  params: URLSearchParams;
  current: Params;
  change: Change;
  /** The query and mode fields, shared by both tabs. */
  fields: preact.JSX.Element;
}

/** A price filter read from the query, as a shopper reads it. */
const priceRange = ({ price_min: min, price_max: max }: { price_min?: number; price_max?: number }) =>
  min !== undefined && max !== undefined ? `price ${min}–${max}` : min !== undefined ? `price ≥ ${min}` : `price ≤ ${max}`;

function ProductSearch({ params, current, change, fields }: TabProps) {
  const request = productRequest(params);
  const sites = useAsync(() => get<Site[]>('/api/knowledge/sites'), []);
  const search = useAsync(async () => (await api<ProductSearchResult>('POST', '/api/knowledge/search/products', { body: request })).body, [JSON.stringify(request)]);
  const brands = valuesOf(params.get('brand'));
  const availability = valuesOf(params.get('availability'));
  const category = params.get('category');
  const filtered = ['brand', 'availability', 'category', 'price_min', 'price_max', 'in_stock'].some((k) => params.get(k));

  return (
    <>
      <form class="row" onSubmit={(e) => e.preventDefault()}>
        {fields}
        <Field label="Site">
          <select name="site" value={params.get('site') ?? ''} onChange={(e) => change({ site: e.currentTarget.value })}>
            <option value="">all sites</option>
            {(sites.data ?? []).map((s) => <option key={s.id} value={s.id}>{s.name} ({s.slug})</option>)}
          </select>
        </Field>
        <Field label="Language">
          <CommittedInput name="language" placeholder="any" size={5} value={params.get('language') ?? ''} onCommit={(language) => change({ language })} />
        </Field>
        <Field label="Price phrases">
          <select name="understand" value={params.get('understand') ?? ''} onChange={(e) => change({ understand: e.currentTarget.value || undefined })}>
            <option value="">as the settings say</option>
            <option value="on">read as a filter</option>
            <option value="off">searched as text</option>
          </select>
        </Field>
      </form>
      <ErrorBox error={sites.error} />
      {search.data?.understood?.length ? (
        <p class="understood">
          Read as a filter:{' '}
          {search.data.understood.map((u) => (
            <span key={u.words} class="chip">
              “{u.words}” → {priceRange(u.filter)}{' '}
              <button type="button" class="link" title="Search these words as text" onClick={() => change({ understand: 'off' })}>✕</button>
            </span>
          ))}
        </p>
      ) : null}
      <div class="layout-2">
        <aside class="card filters">
          <FacetGroup title="Brand" counts={search.data?.facets.brand} chosen={brands} onToggle={(v) => change({ brand: toggled(brands, v) })} />
          <FacetGroup title="Category" counts={search.data?.facets.category} chosen={category ? [category] : []}
            onToggle={(v) => change({ category: v === category ? undefined : v })} />
          <FacetGroup title="Availability" counts={search.data?.facets.availability} chosen={availability}
            onToggle={(v) => change({ availability: toggled(availability, v) })} />
          <h3>Price</h3>
          <div class="row prices">
            <Field label="min"><CommittedInput name="price_min" type="number" min="0" step="any" value={params.get('price_min') ?? ''} onCommit={(v) => change({ price_min: v })} /></Field>
            <Field label="max"><CommittedInput name="price_max" type="number" min="0" step="any" value={params.get('price_max') ?? ''} onCommit={(v) => change({ price_max: v })} /></Field>
          </div>
          <Field label="Stock">
            <select name="in_stock" value={params.get('in_stock') ?? ''} onChange={(e) => change({ in_stock: e.currentTarget.value })}>
              <option value="">any</option>
              <option value="true">in stock</option>
              <option value="false">not in stock</option>
            </select>
          </Field>
          {filtered ? (
            <button type="button" class="link" onClick={() => change({ brand: undefined, availability: undefined, category: undefined, price_min: undefined, price_max: undefined, in_stock: undefined })}>
              Clear filters
            </button>
          ) : null}
        </aside>
        <section>
          <Results kind="products" current={current} change={change} search={search}
            items={(onRelated) => (search.data ? search.data.hits.map((h) => <ProductHitView key={h.id} hit={h} onRelated={() => onRelated(h.id)} />) : [])}
            titleOf={(id) => (search.data ? search.data.hits.find((h) => h.id === id)?.product.title : undefined)}
            related={(onRelated, answer) => answer.hits.map((h) => <ProductHitView key={h.id} hit={h} onRelated={() => onRelated(h.id)} />)} />
        </section>
      </div>
    </>
  );
}

function KnowledgeSearch({ params, current, change, fields }: TabProps) {
  const request = knowledgeRequest(params);
  const search = useAsync(async () => (await api<KnowledgeSearchResult>('POST', '/api/knowledge/search/knowledge', { body: request })).body, [JSON.stringify(request)]);
  const select = (name: 'type' | 'visibility', label: string, values: readonly string[]) => (
    <Field label={label}>
      <select name={name} value={params.get(name) ?? ''} onChange={(e) => change({ [name]: e.currentTarget.value })}>
        <option value="">any</option>
        {values.map((v) => <option key={v} value={v}>{v}</option>)}
      </select>
    </Field>
  );
  return (
    <>
      <form class="row" onSubmit={(e) => e.preventDefault()}>
        {fields}
        {select('type', 'Type', ENTRY_TYPES)}
        {select('visibility', 'Visibility', VISIBILITIES)}
        <Field label="Language">
          <CommittedInput name="language" placeholder="any" size={5} value={params.get('language') ?? ''} onCommit={(language) => change({ language })} />
        </Field>
      </form>
      <Results kind="knowledge-entries" current={current} change={change} search={search}
        items={(onRelated) => (search.data ? search.data.hits.map((h) => <EntryHitView key={h.id} hit={h} onRelated={() => onRelated(h.id)} />) : [])}
        titleOf={(id) => (search.data ? search.data.hits.find((h) => h.id === id)?.entry.title : undefined)}
        related={(onRelated, answer) => answer.hits.map((h) => <EntryHitView key={h.id} hit={h} onRelated={() => onRelated(h.id)} />)} />
    </>
  );
}

type HitsOf<R> = (onRelated: (id: string) => void, answer: R) => preact.JSX.Element[];

/** The answer's hits and pages, or (with `related` in the address) one hit's related documents. */
function Results<R extends ProductSearchResult | KnowledgeSearchResult>({ kind, current, change, search, items, titleOf, related }: {
  kind: 'products' | 'knowledge-entries';
  current: Params;
  change: Change;
  search: { data: R | undefined; error: Error | null; loading: boolean };
  items: (onRelated: (id: string) => void) => preact.JSX.Element[];
  titleOf: (id: string) => string | undefined;
  related: HitsOf<R>;
}) {
  const relatedTo = current.related;
  const showRelated = (id: string) => navigate('search', { ...current, related: id });
  const answer = useAsync(
    () => (relatedTo ? get<R>(`/api/knowledge/${kind}/${encodeURIComponent(relatedTo)}/related`) : Promise.resolve(null)),
    [kind, relatedTo],
  );
  if (relatedTo) {
    const title = titleOf(relatedTo);
    return (
      <div class="related">
        <div class="heading">
          <h2>Related to {title ? `“${title}”` : kind === 'products' ? 'this product' : 'this entry'}</h2>
          <button type="button" onClick={() => navigate('search', { ...current, related: undefined })}>← back to results</button>
        </div>
        <ErrorBox error={answer.error} />
        <Loading when={answer.loading} />
        {answer.data ? (
          <>
            <AnswerFigures answer={answer.data} />
            <HitList empty="Nothing related yet: documents are related by their embeddings, so they appear once embedded." items={related(showRelated, answer.data)} />
          </>
        ) : null}
      </div>
    );
  }
  const offset = Number(current.offset ?? 0) || 0;
  return (
    <div class="results">
      <ErrorBox error={search.error} />
      <Loading when={search.loading} />
      {search.data ? (
        <>
          <AnswerFigures answer={search.data} />
          <HitList empty="No hits." items={items(showRelated)} />
          {search.data.total > LIMIT ? (
            <Pager offset={offset} limit={LIMIT} total={Math.min(search.data.total, DEEPEST)} onChange={(o) => change({ offset: o ? String(o) : undefined })} />
          ) : null}
        </>
      ) : null}
    </div>
  );
}
