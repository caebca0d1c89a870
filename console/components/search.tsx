// The search playground's pieces: the answer's figures, the hits of either kind and the facet
// sidebar. The page (pages/search.tsx) owns the state; these only show it and report clicks.
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Notice } from './ui.js';
import type { KnowledgeSearchResult, Product, ProductSearchResult } from '../types.js';

export type ProductHit = ProductSearchResult['hits'][number];
export type EntryHit = KnowledgeSearchResult['hits'][number];

/** What every answer (search or related) tells besides its hits. */
export type Answer = Pick<ProductSearchResult, 'total' | 'mode' | 'semantic_fallback' | 'engine' | 'took_ms'>;

export function AnswerFigures({ answer }: { answer: Answer }) {
  return (
    <>
      <p class="muted small figures">
        {answer.total.toLocaleString()} {answer.total === 1 ? 'match' : 'matches'} · {answer.took_ms.toFixed(1)} ms · mode {answer.mode} · {answer.engine}
      </p>
      {answer.semantic_fallback ? <Notice>Semantic ranking did not run: {answer.semantic_fallback}. These hits are ranked by keyword.</Notice> : null}
    </>
  );
}

const rank = (n: number | null) => (n === null ? '—' : `#${n}`);

/** Score and the document's place in each signal's list; the hit's actions below. */
function HitSide({ hit, onRelated }: { hit: Pick<ProductHit, 'score' | 'ranks'>; onRelated?: () => void }) {
  return (
    <div class="side">
      <span class="score" title="score">{hit.score.toFixed(3)}</span>
      <span class="meta">keyword {rank(hit.ranks.keyword)} · semantic {rank(hit.ranks.semantic)}</span>
      {onRelated ? <button type="button" class="small" onClick={onRelated}>Related</button> : null}
    </div>
  );
}

const price = (p: Product) => (p.price_current !== null ? `${p.price_current} ${p.currency}` : p.price_on_request ? 'price on request' : 'no price');

export function ProductHitView({ hit, onRelated }: { hit: ProductHit; onRelated?: () => void }) {
  const p = hit.product;
  return (
    <li class="hit" data-id={hit.id}>
      {p.image_url ? <img src={p.image_url} alt={p.title} loading="lazy" /> : <div class="noimg" aria-hidden="true" />}
      <div>
        <strong class="title">{p.title}</strong>
        <div class="price">{price(p)}</div>
        <div class="meta">{[p.brand, p.category, p.availability, p.sku && `SKU ${p.sku}`, p.language].filter(Boolean).join(' · ')}</div>
      </div>
      <HitSide hit={hit} onRelated={onRelated} />
    </li>
  );
}

export function EntryHitView({ hit, onRelated }: { hit: EntryHit; onRelated?: () => void }) {
  const e = hit.entry;
  return (
    <li class="hit entry" data-id={hit.id}>
      <div>
        <strong class="title">{e.title}</strong>
        <div class="snippet">{e.summary ?? (e.content.length > 240 ? `${e.content.slice(0, 240)}…` : e.content)}</div>
        <div class="meta">{[e.type, e.visibility, e.language, e.layer, ...e.tags.map((t) => `#${t}`)].filter(Boolean).join(' · ')}</div>
      </div>
      <HitSide hit={hit} onRelated={onRelated} />
    </li>
  );
}

export function HitList({ empty, items }: { empty: string; items: JSX.Element[] }) {
  return items.length ? <ol class="hits">{items}</ol> : <p class="muted">{empty}</p>;
}

export interface FacetCount { value: string; count: number }

/**
 * One facet's counts as buttons; a chosen value is `on` and stays listed (with 0) even where the
 * answer no longer counts it, so that it can be clicked off again.
 */
export function FacetGroup({ title, counts, chosen, onToggle }: {
  title: string; counts: FacetCount[] | undefined; chosen: string[]; onToggle: (value: string) => void;
}) {
  const listed = counts ?? [];
  const missing = chosen.filter((c) => !listed.some((f) => f.value.toLowerCase() === c.toLowerCase()));
  const shown = [...missing.map((value) => ({ value, count: 0 })), ...listed];
  return (
    <div class="facet" data-facet={title.toLowerCase()}>
      <h3>{title}</h3>
      {shown.length === 0 ? <p class="muted small">none</p> : shown.map((f) => {
        const on = chosen.some((c) => c.toLowerCase() === f.value.toLowerCase());
        return (
          <button key={f.value} type="button" class={on ? 'on' : ''} aria-pressed={on} data-value={f.value} onClick={() => onToggle(f.value)}>
            <span>{f.value}</span><span class="count">{f.count}</span>
          </button>
        );
      })}
    </div>
  );
}

/**
 * An input whose text is the component's own while it is typed in (a re-render does not reset it)
 * and is reported when committed: Enter or leaving the field.
 */
export function CommittedInput({ value, onCommit, name, type = 'text', placeholder, min, step, size }: {
  value: string; onCommit: (value: string) => void; name: string; type?: 'text' | 'number';
  placeholder?: string; min?: string; step?: string; size?: number;
}) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  return (
    <input
      name={name} type={type} placeholder={placeholder} min={min} step={step} size={size} value={text}
      onInput={(e) => setText(e.currentTarget.value)}
      onChange={(e) => e.currentTarget.value.trim() !== value && onCommit(e.currentTarget.value.trim())}
    />
  );
}
