// The Redis Query Engine's indexes, per tenant: products over their search hashes (text, filter and
// facet values: `kcs:{t:<id>}:product-search:*`), product vectors over the vector hashes
// (`…:product-vectors:*`: the vectors and the filter values that a price or stock change leaves
// alone), and entries over the entry hashes themselves (`…:entry:*`). Their fields are the
// projection written with each document (`f:*`, see projection.ts) and the vectors the embed worker
// stores (`v:*`), so no process keeps anything in step. Keeping vectors apart means a change of
// price, stock or rating never makes the server index a vector again (bench:search-writes).
import calculateSlot from 'cluster-key-slot';
import { keys } from '../../store/keys.js';
import { vectorField } from '../../store/vectors.js';
import { CATEGORY_LEVELS } from '../productFacets.js';
import type { ServedModel } from '../servingModels.js';
import type { IndexRouter } from './router.js';

/** Version of the search layout: each tenant's marker once its documents all follow it (keys.searchProjection). */
export const PROJECTION_VERSION = '5';
/** Versions of each collection's fields, stored with each document (f:v). */
export const PRODUCT_FIELDS_VERSION = '5';
/** The first product field version whose search text the term dictionary counts (store/lua/lib/searchTerms.lua). */
export const TERMS_SINCE = 5;
export const ENTRY_FIELDS_VERSION = '2';
/**
 * Versions of each collection's index, part of its name: a new one is created beside the old
 * (the old one is dropped once the new one has read every document: tenantIndexes.ts) when the
 * fields or their encoding change (products 4: sort fields, category levels and written attribute
 * values; vectors 5 and entries 4: the HNSW graph's M 32).
 */
export const INDEX_VERSIONS = { products: '4', 'product-vectors': '5', entries: '4' } as const;

/** Separator of multi-value TAG fields (values holding it have it replaced). */
export const TAG_SEP = ';';

/**
 * A value as a TAG field holds it, stored or queried: the server splits values at the separator
 * and trims them, and a control character would end a query string. U+FFFF is kept for NO_TAG.
 */
export const tagText = (value: string): string => value.replaceAll(TAG_SEP, ',').replace(/[\p{Cc}\uFFFF]/gu, '\uFFFD').trim();

/** A TAG value no document holds (tagText never gives it). */
export const NO_TAG = '\uFFFF';

/** Query names of the fields (the aliases of FT.CREATE ... AS). */
export const F = {
  id: 'id', created: 'created', anchor: 'has_anchor', content: 'vcontent', anchorVector: 'vanchor',
  language: 'lang', baseLanguage: 'lang_base',
} as const;

export type CollectionKind = 'product' | 'productVectors' | 'entry';

export interface Collection {
  kind: CollectionKind;
  tenantId: string;
  /** The key prefix of the collection's hashes. */
  prefix: string;
  index: string;
  /** The key present while the index still owes a read of the documents stored before it. */
  owed: string;
  /** The hash field written again to make the index read a document (an indexed one: tenantIndexes.ts). */
  indexedField: string;
  /** Hash fields of the model's vectors: content (products: the description vector) and anchor; null without. */
  vectorFields: { content: string; anchor: string } | null;
}

/** An index's model: its vectors are searched (null: no vectors). */
export type IndexOptions = ServedModel;

const modelPart = (options: IndexOptions) => (options.modelId ? options.modelId.replace(/[^\w.-]/g, '_') : 'none');

/** Per kind: the key of a hash, the index name, the vector that stands for the content (none: no vectors). */
const KINDS = {
  product: { key: keys.productSearch, name: 'products', content: null, indexedField: 'f:id' },
  productVectors: { key: keys.productVectors, name: 'product-vectors', content: 'description', indexedField: 'f:id' },
  entry: { key: keys.entry, name: 'entries', content: 'content', indexedField: 'rev' },
} as const;

/** The collection of a tenant's products, product vectors or entries under the index options. */
export function collectionOf(kind: CollectionKind, tenantId: string, options: IndexOptions): Collection {
  const { key, name, content, indexedField } = KINDS[kind];
  const version = INDEX_VERSIONS[name];
  // The products index holds no vectors: every model searches the same one.
  const model = content ? options : { modelId: null, dimension: null };
  const indexName = `${name}:v${version}:${modelPart(model)}`;
  return {
    kind,
    tenantId,
    prefix: key(tenantId, ''),
    index: keys.searchIndex(tenantId, indexName),
    owed: keys.searchIndexOwed(tenantId, indexName),
    indexedField,
    vectorFields: content && model.modelId ? { content: vectorField(model.modelId, content), anchor: vectorField(model.modelId, 'anchor') } : null,
  };
}

/**
 * The product fields a vector search filters on, kept in the vector hash too: those a change of
 * price, stock or rating leaves alone. Filters on the others (price, stock, availability) are
 * checked against the products index (engine.ts).
 */
export const VECTOR_FILTER_FIELDS = ['id', 'site', 'lang', 'lang_base', 'category', 'brand_l', 'attrs', 'pext', 'has_anchor', 'parent', 'variant'] as const;

/** The products' TEXT fields (their hash fields: `f:<name>`): the term dictionary counts their terms (store/lua/lib/searchTerms.lua). */
export const PRODUCT_TEXT_FIELDS = ['title', 'title2', 'kw', 'brand', 'cat', 'short', 'desc'] as const;

// Field constructors: hash field `f:<name>` indexed as `<name>`. Every TAG is case-sensitive: kcs
// folds case itself where a filter ignores it, so the server changes no value.
const text = (name: string, weight: number) => [`f:${name}`, 'AS', name, 'TEXT', 'WEIGHT', String(weight), 'NOSTEM'];
const tag = (name: string, ...extra: string[]) => [`f:${name}`, 'AS', name, 'TAG', 'SEPARATOR', TAG_SEP, 'CASESENSITIVE', ...extra];
const numeric = (name: string, ...extra: string[]) => [`f:${name}`, 'AS', name, 'NUMERIC', ...extra];
/** A value read only by sorts and aggregations (kept in the index's sorting vector, not indexed). */
const kept = (name: string, type: 'NUMERIC' | 'TAG') => [`f:${name}`, 'AS', name, type, ...(type === 'TAG' ? ['SEPARATOR', TAG_SEP, 'CASESENSITIVE'] : []), 'SORTABLE', 'NOINDEX'];

/** The hash fields of a category path's levels (category.lvl0 …). */
export const levelField = (level: number): string => `cat_l${level}`;

/** The HNSW graph's candidate list while inserting. */
export const EF_CONSTRUCTION = 100;
/** The HNSW graph's links a node (the default is 16). */
export const HNSW_M = 32;

function vectors(c: Collection, options: IndexOptions): string[] {
  if (!c.vectorFields || !options.dimension) return [];
  // FLOAT16: the blobs as stored (store/vectorBytes.ts); with EF_CONSTRUCTION 100 (the default is
  // 200) a vector is inserted 1.5× faster at the same recall@10 once EF_RUNTIME grows with the
  // catalogue (vectorSearch.ts efRuntime; measured on 20,000 clustered 512-d vectors, both 0.987).
  // M 32: at 300,000 such vectors recall@10 0.93 against M 16's 0.82 at EF_RUNTIME 40, and 0.999
  // against 0.98 at 160, for ~8% more graph memory; M 16 stays below 0.95 at 1,000,000 whatever
  // EF_RUNTIME (0.856).
  const hnsw = (field: string, alias: string) => [
    field, 'AS', alias, 'VECTOR', 'HNSW', '10', 'TYPE', 'FLOAT16', 'DIM', String(options.dimension), 'DISTANCE_METRIC', 'COSINE',
    'EF_CONSTRUCTION', String(EF_CONSTRUCTION), 'M', String(HNSW_M),
  ];
  return [...hnsw(c.vectorFields.content, F.content), ...hnsw(c.vectorFields.anchor, F.anchorVector)];
}

export function schema(c: Collection, options: IndexOptions): string[] {
  const common = [...tag(F.id), ...tag(F.language), ...tag(F.baseLanguage), ...numeric(F.anchor)];
  const productFilters = [...tag('site'), ...tag('category'), ...tag('brand_l'), ...tag('attrs'), ...tag('pext'), ...numeric('parent'), ...numeric('variant')];
  if (c.kind === 'productVectors') return [...common, ...productFilters, ...vectors(c, options)];
  if (c.kind === 'product') {
    return [
      // As the built-in engine's fields (builtin/products.ts): the title's focus, the rest of it, …
      ...text('title', 3), ...text('title2', 1.5), ...text('kw', 2.5), ...text('brand', 2), ...text('cat', 2), ...text('short', 1), ...text('desc', 1),
      ...common, ...numeric(F.created, 'SORTABLE'), ...productFilters, ...tag('avail'), ...tag('codes'), ...tag('ext'),
      ...tag('brand_v', 'SORTABLE'), ...tag('category_v', 'SORTABLE'), ...tag('avail_v', 'SORTABLE'), ...tag('cpath'),
      ...numeric('price', 'SORTABLE'), ...numeric('rating', 'SORTABLE'), ...numeric('stock'),
      ...kept('updated', 'NUMERIC'), ...kept('title_s', 'TAG'), ...kept('attrs_v', 'TAG'),
      ...Array.from({ length: CATEGORY_LEVELS }, (_, i) => kept(levelField(i), 'TAG')).flat(),
    ];
  }
  return [
    ...text('title', 3), ...text('kw', 2.5), ...text('tags_text', 1.5), ...text('summary', 1.5), ...text('content', 1),
    ...common, ...numeric(F.created, 'SORTABLE'), ...tag('vis'), ...tag('owner'), ...tag('type'), ...tag('category'), ...tag('proj'), ...tag('layer'), ...tag('tags'),
    ...numeric('expires'),
    ...vectors(c, options),
  ];
}

/** Per kind: the TEXT fields the last query word completes in (names, not prose: builtin/textIndex.ts TextField). */
export const COMPLETING_FIELDS: Record<CollectionKind, readonly string[]> = {
  product: ['title', 'title2', 'kw', 'brand', 'cat'],
  productVectors: [],
  entry: ['title', 'kw', 'tags_text'],
};

/** FT.CREATE of a collection's index; `scan`: the server reads the documents stored before it. */
export const createIndexArgs = (c: Collection, options: IndexOptions, { scan }: { scan: boolean }): string[] => [
  'FT.CREATE', c.index, 'ON', 'HASH', 'PREFIX', '1', c.prefix, ...(scan ? [] : ['SKIPINITIALSCAN']), 'STOPWORDS', '0', 'SCHEMA', ...schema(c, options),
];

/**
 * True when the server, or every master of a cluster, has RediSearch with TEXT fields
 * (valkey-search has vectors and tags only). On a cluster the probe index is named into a slot of
 * each master in turn: the module refuses an index whose name another master owns.
 */
export async function hasQueryEngine(router: IndexRouter): Promise<boolean> {
  const masters = router.masters();
  for (const [i, node] of masters.entries()) {
    const owned = router.slotsOf(node);
    let probe = `kcs:probe:${process.pid}:${Date.now()}:${i}`;
    for (let n = 0; owned && !owned.has(calculateSlot(probe)); n++) probe = `kcs:probe:{${n}}:${process.pid}:${Date.now()}`;
    try {
      // The prefix matches no key, so the probe index has nothing to scan.
      await node.call('FT.CREATE', probe, 'ON', 'HASH', 'PREFIX', '1', `${probe}:`, 'SCHEMA', 't', 'TEXT');
      await node.call('FT.DROPINDEX', probe);
    } catch {
      return false;
    }
  }
  return masters.length > 0;
}

/**
 * Drops the tenant's indexes of models other than those `kept` (those of no model stay: a server
 * with embedding off searches them, as does every model the products index), and with `kept` null
 * those of an older layout only (the tenant's documents all carry this one). The documents stay;
 * each index of an old model or layout only costs the server indexing every write again. On a
 * cluster they are dropped on the master of the tenant's slot, where its documents are.
 */
export async function dropOtherModelIndexes(router: IndexRouter, tenantId: string, kept: string[] | null): Promise<string[]> {
  const prefix = keys.searchIndex(tenantId, '');
  const keep = kept && new Set(['none', ...kept.map((modelId) => modelPart({ modelId, dimension: null }))]);
  const current: Record<string, string> = INDEX_VERSIONS;
  const stale = ((await router.call(tenantId, ['FT._LIST'])) as string[]).filter((name) => {
    const match = name.startsWith(prefix) ? /^(products|product-vectors|entries):v(\w+):(.+)$/.exec(name.slice(prefix.length)) : null;
    if (!match) return false;
    return match[2] !== current[match[1]] || (keep !== null && !keep.has(match[3]));
  });
  for (const name of stale) {
    try {
      await router.call(tenantId, ['FT.DROPINDEX', name]);
    } catch (error) {
      if (!/unknown index|no such index/i.test((error as Error).message)) throw error;
    }
    await router.node(tenantId).del(keys.searchIndexOwed(tenantId, name.slice(prefix.length)));
  }
  return stale;
}
