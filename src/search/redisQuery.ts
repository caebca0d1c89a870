// The Redis Query Engine adapter (RediSearch: Redis Stack, Redis 8). Each tenant gets two FT
// indexes over projection hashes (`kcs:{t:<id>}:ftp:<product>`, `…:fte:<entry>`) that hold the
// analysed text (kcs's own analysis, so both engines stem and fold alike), the filter fields as
// TAG/NUMERIC and the vectors as VECTOR HNSW FLOAT32 COSINE. The projection follows the stored
// documents through the same ChangeFollower as the built-in engine; keyword ranking is the
// server's BM25, KNN runs with pre-filters, and hybrid is fused in the service (RRF).
//
// Tested by the same contract suite as the built-in engine when REDIS_URL points at a server with
// the search module (test/search/redis-query-engine.contract.test.ts); not run where there is none.
import type { Logger } from '../log.js';
import type { StoredEntry } from '../store/knowledge.js';
import type { StoredProduct } from '../store/products.js';
import type { Store } from '../store/redis.js';
import { analyze, analyzeQuery, baseLanguage, typoBudget, type QueryWord } from './analysis.js';
import { codeKey, isInStock } from './builtin/products.js';
import {
  fuseRanks, windowOf,
  type DocumentRef, type EngineProgress, type EntryAccess, type EntryFilters, type FacetCount, type Hit, type KnowledgeSearch,
  type ProductFacet, type ProductFilters, type ProductSearch, type RelatedRequest, type SearchEngine, type SearchResult, type VariantStrategy,
} from './engine.js';
import { ChangeFollower, type ChangedDoc, type FollowerSink } from './follower.js';

/** True when the server has RediSearch with TEXT fields (valkey-search has vectors and tags only). */
export async function hasQueryEngine(redis: Store): Promise<boolean> {
  const probe = `kcs:probe:${process.pid}:${Date.now()}`;
  try {
    await redis.call('FT.CREATE', probe, 'ON', 'HASH', 'PREFIX', '1', `${probe}:`, 'SCHEMA', 't', 'TEXT');
    await redis.call('FT.DROPINDEX', probe);
    return true;
  } catch {
    return false;
  }
}

export interface RedisQueryEngineOptions {
  modelId: string | null;
  /** Dimension of the model's vectors (the VECTOR field needs it up front). */
  dimension: number | null;
}

const NO_EXPIRY = 8.64e15;
const TAG_SEP = ';';

const escapeTag = (value: string) => value.replaceAll(TAG_SEP, ',').replace(/[^\p{L}\p{N}_]/gu, (c) => `\\${c}`);
const tagAny = (field: string, values: string[]) => `@${field}:{${values.map(escapeTag).join(' | ')}}`;
const tags = (values: (string | null | undefined)[]) => values.filter((v): v is string => Boolean(v)).map((v) => v.replaceAll(TAG_SEP, ',')).join(TAG_SEP);
const flag = (b: boolean) => (b ? '1' : '0');

/** A query word as RediSearch syntax: its alternatives, typo variants (%…%) and prefix (…*), OR-ed. */
function wordExpression(word: QueryWord): string {
  const alternatives = new Set<string>();
  for (const term of word.terms) {
    alternatives.add(term);
    const edits = Math.min(word.fuzzy, typoBudget(term));
    if (edits > 0) alternatives.add(`${'%'.repeat(edits)}${term}${'%'.repeat(edits)}`);
  }
  if (word.prefix && word.prefix.length >= 2) alternatives.add(`${word.prefix}*`);
  return `(${[...alternatives].join(' | ')})`;
}

interface Projection {
  prefix: string;
  index: string;
}

export class RedisQueryEngine implements SearchEngine, FollowerSink {
  readonly name = 'redis-query-engine' as const;
  ready = false;
  private readonly follower: ChangeFollower;
  private readonly created = new Map<string, Promise<void>>();

  constructor(
    private readonly redis: Store,
    log: Logger,
    private readonly options: RedisQueryEngineOptions,
  ) {
    this.follower = new ChangeFollower(redis, log, this, options.modelId);
  }

  async start(onProgress?: (p: EngineProgress) => void): Promise<void> {
    await this.follower.start(onProgress);
    this.ready = true;
  }

  refresh(tenantId: string, changed: DocumentRef[]): Promise<void> {
    return this.follower.refresh(tenantId, changed);
  }

  close(): Promise<void> {
    return this.follower.close();
  }

  // ---- projection ----------------------------------------------------------------------------

  private products(t: string): Projection {
    return { prefix: `kcs:{t:${t}}:ftp:`, index: `kcs:{t:${t}}:ftidx:products:${this.options.modelId ?? 'none'}` };
  }

  private entries(t: string): Projection {
    return { prefix: `kcs:{t:${t}}:fte:`, index: `kcs:{t:${t}}:ftidx:entries:${this.options.modelId ?? 'none'}` };
  }

  private vectorSchema(name: string): string[] {
    if (!this.options.dimension) return [];
    return [name, 'VECTOR', 'HNSW', '6', 'TYPE', 'FLOAT32', 'DIM', String(this.options.dimension), 'DISTANCE_METRIC', 'COSINE'];
  }

  private ensureIndexes(tenantId: string): Promise<void> {
    let done = this.created.get(tenantId);
    if (!done) {
      done = this.createIndexes(tenantId);
      this.created.set(tenantId, done);
      done.catch(() => this.created.delete(tenantId));
    }
    return done;
  }

  private async createIndexes(tenantId: string): Promise<void> {
    const p = this.products(tenantId);
    const e = this.entries(tenantId);
    const text = (name: string, weight: number) => [name, 'TEXT', 'WEIGHT', String(weight), 'NOSTEM'];
    const tag = (name: string, ...extra: string[]) => [name, 'TAG', 'SEPARATOR', TAG_SEP, ...extra];
    await this.create(p, [
      ...text('title', 3), ...text('kw', 2.5), ...text('brand', 2), ...text('cat', 1.5), ...text('short', 1), ...text('desc', 1),
      ...tag('id'), ...tag('site'), ...tag('lang'), ...tag('lang_base'), ...tag('category'), ...tag('brand_tag'), ...tag('avail'),
      ...tag('codes'), ...tag('attrs'), ...tag('ext'), ...tag('pext'),
      ...tag('brand_name', 'CASESENSITIVE', 'SORTABLE'), ...tag('category_name', 'CASESENSITIVE', 'SORTABLE'), ...tag('avail_name', 'CASESENSITIVE', 'SORTABLE'),
      'price', 'NUMERIC', 'stock', 'NUMERIC', 'parent', 'NUMERIC', 'variant', 'NUMERIC', 'has_anchor', 'NUMERIC', 'created', 'NUMERIC', 'SORTABLE',
      ...this.vectorSchema('vcontent'), ...this.vectorSchema('vanchor'),
    ]);
    await this.create(e, [
      ...text('title', 3), ...text('kw', 2.5), ...text('tags_text', 1.5), ...text('summary', 1.5), ...text('content', 1),
      ...tag('id'), ...tag('vis'), ...tag('owner'), ...tag('type'), ...tag('category'), ...tag('proj'), ...tag('layer'), ...tag('tags'),
      ...tag('lang'), ...tag('lang_base'),
      'expires', 'NUMERIC', 'has_anchor', 'NUMERIC', 'created', 'NUMERIC', 'SORTABLE',
      ...this.vectorSchema('vcontent'), ...this.vectorSchema('vanchor'),
    ]);
  }

  private async create(p: Projection, schema: string[]): Promise<void> {
    try {
      await this.redis.call('FT.CREATE', p.index, 'ON', 'HASH', 'PREFIX', '1', p.prefix, 'STOPWORDS', '0', 'SCHEMA', ...schema);
    } catch (error) {
      if (!/already exists/i.test((error as Error).message)) throw error;
    }
  }

  async apply(tenantId: string, docs: ChangedDoc[]): Promise<void> {
    await this.ensureIndexes(tenantId);
    const pipeline = this.redis.pipeline();
    for (const d of docs) {
      if (d.kind === 'product') {
        const key = this.products(tenantId).prefix + d.id;
        pipeline.del(key);
        if (d.product) pipeline.hset(key, productFields(d.product, d.parentExternalId, d.vectors));
      } else {
        const key = this.entries(tenantId).prefix + d.id;
        pipeline.del(key);
        if (d.entry) pipeline.hset(key, entryFields(d.entry, d.vectors));
      }
    }
    await pipeline.exec();
  }

  async dropSite(tenantId: string, siteId: string): Promise<void> {
    const p = this.products(tenantId);
    for (;;) {
      const ids = (await this.search(p, `@site:{${escapeTag(siteId)}}`, ['NOCONTENT', 'LIMIT', '0', '1000'])).ids;
      if (ids.length === 0) return;
      await this.redis.del(...ids.map((id) => p.prefix + id));
    }
  }

  async reset(tenantId: string): Promise<void> {
    for (const p of [this.products(tenantId), this.entries(tenantId)]) {
      let cursor = '0';
      do {
        const [next, found] = await this.redis.scan(cursor, 'MATCH', `${p.prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (found.length > 0) await this.redis.del(...found);
      } while (cursor !== '0');
    }
  }

  // ---- queries -------------------------------------------------------------------------------

  private async search(p: Projection, query: string, args: (string | Buffer)[]): Promise<{ total: number; ids: string[]; rows: (string | Buffer)[][] }> {
    const reply = (await this.redis.call('FT.SEARCH', p.index, query, ...args, 'DIALECT', '2')) as unknown[];
    const total = Number(reply[0]);
    const ids: string[] = [];
    const rows: (string | Buffer)[][] = [];
    const withContent = !args.includes('NOCONTENT');
    const withScores = args.includes('WITHSCORES');
    for (let i = 1; i < reply.length; ) {
      ids.push(String(reply[i++]).slice(p.prefix.length));
      const row: (string | Buffer)[] = [];
      if (withScores) row.push(String(reply[i++]));
      if (withContent) row.push(...((reply[i++] as (string | Buffer)[]) ?? []));
      rows.push(row);
    }
    return { total, ids, rows };
  }

  /** Keyword hits (BM25, all words; any word when none matches all), and the total. */
  private async keyword(p: Projection, words: QueryWord[], filter: string, k: number, offset = 0): Promise<{ ids: string[]; scores: number[]; total: number; expr: string }> {
    const run = async (expr: string) => {
      const found = await this.search(p, `${expr} ${filter}`.trim(), ['NOCONTENT', 'WITHSCORES', 'SCORER', 'BM25', 'LIMIT', String(offset), String(k)]);
      return { ids: found.ids, scores: found.rows.map((r) => Number(r[0])), total: found.total, expr };
    };
    const all = await run(words.map(wordExpression).join(' '));
    if (all.total > 0 || words.length < 2) return all;
    return run(`(${words.map(wordExpression).join(' | ')})`);
  }

  /** Newest first: browsing without a query. */
  private async browse(p: Projection, filter: string, k: number, offset: number) {
    const found = await this.search(p, filter || '*', ['NOCONTENT', 'SORTBY', 'created', 'DESC', 'LIMIT', String(offset), String(k)]);
    return { ids: found.ids, scores: found.ids.map(() => 0), total: found.total };
  }

  private async knn(p: Projection, field: string, vector: Float32Array | Buffer, k: number, filter: string): Promise<{ ids: string[]; scores: number[] }> {
    const blob = Buffer.isBuffer(vector) ? vector : Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
    const found = await this.search(p, `(${filter || '*'})=>[KNN ${k} @${field} $vec AS dist]`, [
      'PARAMS', '2', 'vec', blob, 'SORTBY', 'dist', 'ASC', 'RETURN', '1', 'dist', 'LIMIT', '0', String(k),
    ]);
    return { ids: found.ids, scores: found.rows.map((r) => 1 - Number(r[1])) };
  }

  async searchProducts(tenantId: string, s: ProductSearch): Promise<SearchResult> {
    await this.ready$(tenantId);
    const p = this.products(tenantId);
    const filter = productFilter(s.filters);
    const words = analyzeQuery(s.query, s.filters.language ?? null);
    const window = windowOf(s);
    return this.run(p, s, filter, words, window, () => this.codeHits(p, s.query, filter), s.facets);
  }

  async searchKnowledge(tenantId: string, s: KnowledgeSearch): Promise<SearchResult> {
    await this.ready$(tenantId);
    const p = this.entries(tenantId);
    const filter = entryFilter(s.filters);
    const words = analyzeQuery(s.query, s.filters.language ?? null);
    return this.run(p, s, filter, words, windowOf(s), async () => [], []);
  }

  /** Keyword, semantic or both fused, the same for products and entries. */
  private async run(
    p: Projection, s: ProductSearch | KnowledgeSearch, filter: string, words: QueryWord[], window: number,
    codeHits: () => Promise<string[]>, facets: ProductFacet[],
  ): Promise<SearchResult> {
    const useKeyword = s.mode !== 'semantic' || !s.vector;
    const useSemantic = s.mode !== 'keyword' && s.vector !== null;
    let keyword: { ids: string[]; scores: number[]; total: number; expr?: string } | null = null;
    if (useKeyword) {
      const depth = useSemantic ? window : s.offset + s.limit;
      keyword = words.length > 0 ? await this.keyword(p, words, filter, depth) : await this.browse(p, filter, depth, 0);
      const codes = words.length > 0 ? await codeHits() : [];
      if (codes.length > 0) {
        const rest = keyword.ids.map((id, i) => [id, keyword!.scores[i]] as const).filter(([id]) => !codes.includes(id));
        const missing = codes.filter((id) => !keyword!.ids.includes(id)).length;
        keyword = { ...keyword, ids: [...codes, ...rest.map(([id]) => id)], scores: [...codes.map(() => 1000), ...rest.map(([, sc]) => sc)], total: keyword.total + missing };
      }
    }
    let semantic: { ids: string[]; scores: number[] } | null = null;
    if (useSemantic) {
      const served = s.semanticLanguages.length > 0 ? tagAny('lang_base', [...s.semanticLanguages]) : '@lang_base:{__none__}';
      semantic = await this.knn(p, 'vcontent', s.vector!, window, `${filter} ${served}`.trim());
    }

    let hits: Hit[];
    let total: number;
    let facetQuery = keyword?.expr ? `${keyword.expr} ${filter}`.trim() : filter || '*';
    let extraDocs: string[] = [];
    if (keyword && semantic) {
      hits = fuseRanks(keyword.ids, semantic.ids);
      // Semantic candidates that the keyword query does not match add to the total (and the facets).
      const inKeyword = semantic.ids.length > 0 && keyword.expr
        ? (await this.search(p, `${keyword.expr} ${filter} ${tagAny('id', semantic.ids)}`.trim(), ['NOCONTENT', 'LIMIT', '0', String(semantic.ids.length)])).ids
        : keyword.expr ? [] : semantic.ids;
      extraDocs = semantic.ids.filter((id) => !inKeyword.includes(id));
      total = keyword.total + extraDocs.length;
    } else if (semantic) {
      hits = semantic.ids.map((id, i) => ({ id, score: semantic!.scores[i], ranks: { keyword: null, semantic: i + 1 } }));
      total = semantic.ids.length;
      facetQuery = semantic.ids.length > 0 ? tagAny('id', semantic.ids) : '';
    } else {
      hits = keyword!.ids.map((id, i) => ({ id, score: keyword!.scores[i], ranks: { keyword: i + 1, semantic: null } }));
      total = keyword!.total;
    }
    const page = hits.slice(s.offset, s.offset + s.limit);
    const facetCounts = facets.length > 0 && facetQuery ? await this.facets(p, facetQuery, extraDocs, facets) : {};
    return { hits: page, total, facets: facetCounts };
  }

  private async codeHits(p: Projection, query: string, filter: string): Promise<string[]> {
    const codes = [...new Set([codeKey(query), ...query.split(/\s+/).map(codeKey)])].filter(Boolean);
    if (codes.length === 0) return [];
    return (await this.search(p, `${tagAny('codes', codes)} ${filter}`.trim(), ['NOCONTENT', 'LIMIT', '0', '20'])).ids;
  }

  private async facets(p: Projection, query: string, extraDocs: string[], wanted: ProductFacet[]): Promise<Partial<Record<ProductFacet, FacetCount[]>>> {
    const out: Partial<Record<ProductFacet, FacetCount[]>> = {};
    const field: Record<ProductFacet, string> = { brand: 'brand_name', category: 'category_name', availability: 'avail_name' };
    for (const name of wanted) {
      const counts = new Map<string, number>();
      const groups = async (q: string) => {
        const reply = (await this.redis.call(
          'FT.AGGREGATE', p.index, q, 'GROUPBY', '1', `@${field[name]}`, 'REDUCE', 'COUNT', '0', 'AS', 'count', 'DIALECT', '2',
        )) as unknown[];
        for (const row of reply.slice(1) as string[][]) {
          const value = row[row.indexOf(field[name]) + 1];
          const count = Number(row[row.indexOf('count') + 1]);
          if (value) counts.set(value, (counts.get(value) ?? 0) + count);
        }
      };
      await groups(query);
      if (extraDocs.length > 0) await groups(tagAny('id', extraDocs));
      out[name] = [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || a.value.localeCompare(b.value)).slice(0, 50);
    }
    return out;
  }

  async relatedProducts(tenantId: string, productId: string, r: RelatedRequest & { variantStrategy: VariantStrategy }): Promise<SearchResult | null> {
    await this.ready$(tenantId);
    const p = this.products(tenantId);
    const [site, ext, anchor, content] = await this.redis.hmgetBuffer(p.prefix + productId, 'site', 'ext', 'vanchor', 'vcontent');
    if (!site) return null;
    const vector = anchor ?? content;
    if (!vector) return { hits: [], total: 0, facets: {} };
    const parts = [`@site:{${escapeTag(site.toString())}}`, `-@id:{${escapeTag(productId)}}`, variantFilter(r.variantStrategy)];
    if (ext?.length) parts.push(`-@pext:{${escapeTag(ext.toString())}}`);
    return this.related(p, vector, parts.filter(Boolean).join(' '), r);
  }

  async relatedEntries(tenantId: string, entryId: string, r: RelatedRequest & { access: EntryAccess }): Promise<SearchResult | null> {
    await this.ready$(tenantId);
    const p = this.entries(tenantId);
    const access = accessFilter(r.access);
    const readable = await this.search(p, `${tagAny('id', [entryId])} ${access}`, ['NOCONTENT', 'LIMIT', '0', '1']);
    if (readable.ids.length === 0) return null;
    const [anchor, content] = await this.redis.hmgetBuffer(p.prefix + entryId, 'vanchor', 'vcontent');
    const vector = anchor ?? content;
    if (!vector) return { hits: [], total: 0, facets: {} };
    return this.related(p, vector, `${access} -@id:{${escapeTag(entryId)}}`, r);
  }

  /** Nearest by anchor among documents with one, and by content among the others, merged. */
  private async related(p: Projection, vector: Buffer, filter: string, r: RelatedRequest): Promise<SearchResult> {
    const k = r.offset + r.limit;
    const [byAnchor, byContent] = await Promise.all([
      this.knn(p, 'vanchor', vector, k, `${filter} @has_anchor:[1 1]`),
      this.knn(p, 'vcontent', vector, k, `${filter} @has_anchor:[0 0]`),
    ]);
    const merged = [...byAnchor.ids.map((id, i) => ({ id, score: byAnchor.scores[i] })), ...byContent.ids.map((id, i) => ({ id, score: byContent.scores[i] }))]
      .sort((a, b) => b.score - a.score)
      .slice(0, k);
    const hits = merged.map((m, i) => ({ id: m.id, score: m.score, ranks: { keyword: null, semantic: i + 1 } })).slice(r.offset);
    return { hits, total: merged.length, facets: {} };
  }

  /** Indexes exist and the tenant's documents are projected. */
  private async ready$(tenantId: string): Promise<void> {
    await this.ensureIndexes(tenantId);
    await this.follower.ensure(tenantId);
  }
}

function productFields(doc: StoredProduct, parentExternalId: string | null, vectors: ChangedDoc['vectors']): Record<string, string | Buffer> {
  const text = (v: string | null) => analyze(v, doc.language).join(' ');
  const attrs = Object.entries(doc.attributes).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).filter((v) => v !== null && typeof v !== 'object').map((v) => `${name.toLowerCase()}=${String(v).toLowerCase()}`),
  );
  const fields: Record<string, string | Buffer> = {
    title: text(doc.title), kw: text(doc.search_keywords.join(' ')), brand: text(doc.brand), cat: text(doc.category),
    short: text(doc.short_description), desc: text(doc.description),
    id: doc.id, site: doc.site_id, lang: doc.language.toLowerCase(), lang_base: baseLanguage(doc.language),
    category: tags([doc.category?.toLowerCase()]), brand_tag: tags([doc.brand?.toLowerCase()]), avail: tags([doc.availability?.toLowerCase()]),
    codes: tags([doc.sku, doc.gtin].filter((c): c is string => Boolean(c)).map(codeKey)), attrs: tags(attrs),
    ext: tags([doc.external_id]), pext: tags([parentExternalId]),
    brand_name: tags([doc.brand]), category_name: tags([doc.category]), avail_name: tags([doc.availability]),
    stock: flag(isInStock(doc.availability)), parent: flag(doc.is_parent), variant: flag(doc.is_variant),
    has_anchor: flag(Boolean(vectors.anchor)), created: String(Date.parse(doc.created_at)),
  };
  if (doc.price_current !== null) fields.price = doc.price_current;
  if (vectors.content) fields.vcontent = vectors.content;
  if (vectors.anchor) fields.vanchor = vectors.anchor;
  return fields;
}

function entryFields(doc: StoredEntry, vectors: ChangedDoc['vectors']): Record<string, string | Buffer> {
  const text = (v: string | null) => analyze(v, doc.language).join(' ');
  const expires = doc.type === 'memory' && typeof doc.metadata.expires_at === 'string' ? Date.parse(doc.metadata.expires_at) : NaN;
  const fields: Record<string, string | Buffer> = {
    title: text(doc.title), kw: text(doc.search_keywords.join(' ')), tags_text: text(doc.tags.join(' ')), summary: text(doc.summary), content: text(doc.content),
    id: doc.id, vis: doc.visibility, owner: tags([doc.created_by_user_id]), type: doc.type, category: doc.category_id,
    proj: tags(doc.project_ids ?? []), layer: tags([doc.layer]), tags: tags(doc.tags),
    lang: doc.language.toLowerCase(), lang_base: baseLanguage(doc.language),
    expires: String(Number.isNaN(expires) ? NO_EXPIRY : expires), has_anchor: flag(Boolean(vectors.anchor)), created: String(Date.parse(doc.created_at)),
  };
  if (vectors.content) fields.vcontent = vectors.content;
  if (vectors.anchor) fields.vanchor = vectors.anchor;
  return fields;
}

function variantFilter(strategy: VariantStrategy): string {
  if (strategy === 'children_only') return '@parent:[0 0]';
  if (strategy === 'parents_only') return '@variant:[0 0]';
  return '';
}

function productFilter(f: ProductFilters): string {
  const parts = [variantFilter(f.variantStrategy)];
  if (f.siteId) parts.push(tagAny('site', [f.siteId]));
  if (f.language) parts.push(tagAny('lang', [f.language.toLowerCase()]));
  if (f.category) parts.push(tagAny('category', [f.category.toLowerCase()]));
  if (f.brand?.length) parts.push(tagAny('brand_tag', f.brand.map((b) => b.toLowerCase())));
  if (f.availability?.length) parts.push(tagAny('avail', f.availability.map((a) => a.toLowerCase())));
  if (f.inStock !== undefined) parts.push(`@stock:[${flag(f.inStock)} ${flag(f.inStock)}]`);
  if (f.priceMin !== undefined || f.priceMax !== undefined) parts.push(`@price:[${f.priceMin ?? '-inf'} ${f.priceMax ?? '+inf'}]`);
  for (const [name, values] of Object.entries(f.attributes ?? {})) {
    parts.push(tagAny('attrs', values.map((v) => `${name.toLowerCase()}=${v.toLowerCase()}`)));
  }
  return parts.filter(Boolean).join(' ');
}

function accessFilter(a: EntryAccess): string {
  const shared = a.visibilities.length > 0 ? `${tagAny('vis', a.visibilities)} | ` : '';
  const expiry = a.includeExpired ? '' : ` @expires:[(${a.now} +inf]`;
  return `(${shared}(@vis:{personal} ${tagAny('owner', [a.userId])}))${expiry}`;
}

function entryFilter(f: EntryFilters): string {
  const parts = [accessFilter(f.access)];
  if (f.type) parts.push(tagAny('type', [f.type]));
  if (f.categoryId) parts.push(tagAny('category', [f.categoryId]));
  if (f.projectId) parts.push(tagAny('proj', [f.projectId]));
  if (f.visibility) parts.push(tagAny('vis', [f.visibility]));
  if (f.layer !== undefined) parts.push(tagAny('layer', [f.layer]));
  if (f.tags?.length) parts.push(tagAny('tags', f.tags));
  if (f.language) parts.push(tagAny('lang', [f.language.toLowerCase()]));
  return parts.join(' ');
}
