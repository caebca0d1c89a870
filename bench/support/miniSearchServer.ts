// bench:search's MiniSearch baseline, a process of its own (so that it does not share the load
// generator's thread): what a developer would write instead of a search engine. A plain node:http
// server, keep-alive, holding one MiniSearch index over the catalogue's products (read from the
// JSON lines file the parent names in BENCH_MINISEARCH_FILE, written by searchMiniSearch.ts), that
// answers each POSTed storefront body (searchQueries.ts HttpBody) with
// `{hits: [{id, score, product}], total, facets}`. Prints one JSON line once loaded: its port, the
// products loaded and the load time.
import { createReadStream } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import MiniSearch, { type SearchResult } from 'minisearch';
import type { HttpBody } from './searchQueries.js';

/** What the index reads of a product (the product as kcs takes it, with its id and site). */
interface Product {
  id: string;
  site_id: string;
  title: string;
  brand?: string | null;
  category?: string | null;
  description?: string | null;
  search_keywords?: string[];
  availability?: string | null;
  price_current?: string | null;
}

/** The facets a body may ask for, each a stored field. */
const FACETS = ['brand', 'category', 'availability'] as const;
/** Values per facet in the answer, most frequent first (kcs's FACET_VALUES). */
const FACET_VALUES = 50;

const file = process.env.BENCH_MINISEARCH_FILE;
if (!file) throw new Error('BENCH_MINISEARCH_FILE is required (this file is started by bench/support/searchMiniSearch.ts)');

const index = new MiniSearch<Product>({
  fields: ['title', 'brand', 'category', 'description', 'search_keywords'],
  // What the filters and facets read; the products themselves are kept as their JSON text (below).
  storeFields: ['site_id', 'brand', 'category', 'availability', 'price'],
  extractField: (product, field) => {
    if (field === 'price') return Number(product.price_current ?? NaN);
    const value = product[field as keyof Product];
    return Array.isArray(value) ? value.join(' ') : value;
  },
  // The same boosts as bench:quality's MiniSearch baseline (test/relevance/judged.ts).
  searchOptions: { boost: { title: 3, brand: 2, category: 1.5 }, fuzzy: 0.2, prefix: (_term, i, terms) => i === terms.length - 1 },
});
/** Each product's JSON text by id, spliced into answers as it is (no parse and stringify per hit). */
const productJson = new Map<string, string>();

const started = performance.now();
// One line at a time: the whole catalogue is never held parsed at once.
for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
  if (!line) continue;
  const product = JSON.parse(line) as Product;
  index.add(product);
  productJson.set(product.id, line);
}
const loadMs = performance.now() - started;
// What stays after loading, not the parse garbage (--expose-gc from the parent).
(globalThis as { gc?: () => void }).gc?.();

type Hit = SearchResult & { site_id: string; brand?: string | null; category?: string | null; availability?: string | null; price: number };

/** The body's filters as MiniSearch's filter callback (null: none). */
function filterOf(body: HttpBody): ((hit: SearchResult) => boolean) | null {
  const f = body.filters ?? {};
  const brands = f.brand?.length ? new Set(f.brand.map((b) => b.toLowerCase())) : null;
  if (!body.site_id && !brands && f.price_min === undefined && f.price_max === undefined && !f.in_stock) return null;
  return (result) => {
    const hit = result as Hit;
    return (!body.site_id || hit.site_id === body.site_id) &&
      (!brands || brands.has((hit.brand ?? '').toLowerCase())) &&
      (f.price_min === undefined || hit.price >= f.price_min) &&
      (f.price_max === undefined || hit.price <= f.price_max) &&
      (!f.in_stock || hit.availability === 'InStock');
  };
}

/** Counts of each asked facet's values over every hit, the most frequent first. */
function facetCounts(hits: Hit[], asked: string[]): Record<string, { value: string; count: number }[]> {
  const out: Record<string, { value: string; count: number }[]> = {};
  for (const facet of FACETS.filter((f) => asked.includes(f))) {
    const counts = new Map<string, number>();
    for (const hit of hits) {
      const value = hit[facet];
      if (value) counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    out[facet] = [...counts].sort((a, b) => b[1] - a[1]).slice(0, FACET_VALUES).map(([value, count]) => ({ value, count }));
  }
  return out;
}

/** The JSON answer: the page of hits (offset honoured) with their products, the total, the facets. */
function answer(body: HttpBody & { offset?: number }): string {
  const filter = filterOf(body);
  // No words: every product the filters allow (a category page).
  const query = body.query?.trim() ? body.query : MiniSearch.wildcard;
  const hits = index.search(query, filter ? { filter } : undefined) as Hit[];
  const offset = body.offset ?? 0;
  const page = hits.slice(offset, offset + (body.limit ?? 20)).map((h) => `{"id":${JSON.stringify(h.id)},"score":${h.score},"product":${productJson.get(h.id)}}`);
  return `{"hits":[${page.join(',')}],"total":${hits.length},"facets":${JSON.stringify(facetCounts(hits, body.facets ?? []))}}`;
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end((error as Error).message);
    }
  });
});
// autocannon's connections stay open between its runs.
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port, products: productJson.size, loadMs })));
process.once('SIGTERM', () => (server.close(), process.exit(0)));
