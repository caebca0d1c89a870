// Finding the products a rule pins or hides: a product search (the rule's site, ten hits) whose
// hits are added to the rule with a click. Products already in the rule say so.
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { ErrorBox, Field, useSubmit } from '../../components/ui.js';
import type { Product, ProductSearchRequest, ProductSearchResult } from '../../types.js';

export type PickedHit = ProductSearchResult['hits'][number];

const price = (p: Product) => (p.price_current !== null ? `${p.price_current} ${p.currency}` : '');

export function ProductPicker({ siteId, initialQuery, pinned, hidden, onPin, onHide }: {
  siteId: string;
  initialQuery: string;
  pinned: string[];
  hidden: string[];
  onPin: (hit: PickedHit) => void;
  onHide: (hit: PickedHit) => void;
}) {
  const [query, setQuery] = useState(initialQuery);
  const [hits, setHits] = useState<PickedHit[] | null>(null);
  const { busy, error, run } = useSubmit();
  const search = () => run(async () => {
    // A merchandiser's look-up is no shopper's search: analytics leave it out.
    const body: ProductSearchRequest = { query: query.trim(), site_id: siteId || undefined, limit: 10, analytics: false };
    setHits((await api<ProductSearchResult>('POST', '/api/knowledge/search/products', { body })).body.hits);
  });

  return (
    <form class="card picker" aria-label="Find products" onSubmit={(e) => { e.preventDefault(); void search(); }}>
      <h2>Find products</h2>
      <div class="row">
        <Field label="Product search">
          <input name="product_query" type="search" placeholder="title, brand, SKU…" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={busy}>Search</button>
      </div>
      <ErrorBox error={error} />
      {hits ? (
        hits.length === 0 ? <p class="muted">No product found.</p> : (
          <ul class="picked">
            {hits.map((h) => {
              const isPinned = pinned.includes(h.id);
              const isHidden = hidden.includes(h.id);
              return (
                <li key={h.id} data-id={h.id}>
                  <div>
                    <strong class="title">{h.product.title}</strong>
                    <div class="meta">{[h.product.brand, h.product.sku && `SKU ${h.product.sku}`, price(h.product)].filter(Boolean).join(' · ')}</div>
                  </div>
                  <span class="actions">
                    <button type="button" class="small" disabled={isPinned} onClick={() => onPin(h)}>{isPinned ? 'Pinned' : 'Pin'}</button>
                    <button type="button" class="small" disabled={isHidden} onClick={() => onHide(h)}>{isHidden ? 'Hidden' : 'Hide'}</button>
                  </span>
                </li>
              );
            })}
          </ul>
        )
      ) : null}
    </form>
  );
}
