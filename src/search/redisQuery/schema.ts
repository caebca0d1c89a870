// The Redis Query Engine's indexes: one FT index per tenant and collection over the document hashes
// themselves (`kcs:{t:<id>}:product:*`, `…:entry:*`). Their fields are the projection written with
// each document (`f:*`, see projection.ts), the model id of its vectors (`embedding_model`) and the vectors
// the embed worker stores (`v:*`), so nothing is copied and no process keeps anything in step.
import type { Store } from '../../store/redis.js';
import { keys } from '../../store/keys.js';
import { vectorField } from '../../store/vectors.js';
import { parseInfoReply } from './replies.js';

/** Version of the projection's field layout: part of the index name, and of each tenant's marker. */
export const PROJECTION_VERSION = '1';

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

export interface Collection {
  kind: 'product' | 'entry';
  /** The key prefix of the collection's document hashes. */
  prefix: string;
  index: string;
  /** Hash fields of the model's vectors: content (products: the description vector) and anchor; null without a model. */
  vectorFields: { content: string; anchor: string } | null;
}

export interface IndexOptions {
  /** Vectors of this model are searched (null: no vectors). */
  modelId: string | null;
  dimension: number | null;
}

const modelPart = (options: IndexOptions) => (options.modelId ? options.modelId.replace(/[^\w.-]/g, '_') : 'none');

/** Per kind: the document key, the index name, the vector that stands for the content. */
const KINDS = {
  product: { key: keys.product, name: 'products', content: 'description' },
  entry: { key: keys.entry, name: 'entries', content: 'content' },
} as const;

/** The collection of a tenant's products or entries under the index options. */
export function collectionOf(kind: Collection['kind'], tenantId: string, options: IndexOptions): Collection {
  const { key, name, content } = KINDS[kind];
  return {
    kind,
    prefix: key(tenantId, ''),
    index: keys.searchIndex(tenantId, `${name}:v${PROJECTION_VERSION}:${modelPart(options)}`),
    vectorFields: options.modelId ? { content: vectorField(options.modelId, content), anchor: vectorField(options.modelId, 'anchor') } : null,
  };
}

// Field constructors: hash field `f:<name>` indexed as `<name>`. Every TAG is case-sensitive: kcs
// folds case itself where a filter ignores it, so the server changes no value.
const text = (name: string, weight: number) => [`f:${name}`, 'AS', name, 'TEXT', 'WEIGHT', String(weight), 'NOSTEM'];
const tag = (name: string, ...extra: string[]) => [`f:${name}`, 'AS', name, 'TAG', 'SEPARATOR', TAG_SEP, 'CASESENSITIVE', ...extra];
const numeric = (name: string, ...extra: string[]) => [`f:${name}`, 'AS', name, 'NUMERIC', ...extra];

function vectors(c: Collection, options: IndexOptions): string[] {
  if (!c.vectorFields || !options.dimension) return [];
  const hnsw = (field: string, alias: string) => [field, 'AS', alias, 'VECTOR', 'HNSW', '6', 'TYPE', 'FLOAT32', 'DIM', String(options.dimension), 'DISTANCE_METRIC', 'COSINE'];
  return [...hnsw(c.vectorFields.content, F.content), ...hnsw(c.vectorFields.anchor, F.anchorVector)];
}

function schema(c: Collection, options: IndexOptions): string[] {
  const common = [...tag(F.id), ...tag(F.language), ...tag(F.baseLanguage), ...numeric(F.anchor), ...numeric(F.created, 'SORTABLE')];
  if (c.kind === 'product') {
    return [
      ...text('title', 3), ...text('kw', 2.5), ...text('brand', 2), ...text('cat', 1.5), ...text('short', 1), ...text('desc', 1),
      ...common, ...tag('site'), ...tag('category'), ...tag('brand_l'), ...tag('avail'), ...tag('codes'), ...tag('attrs'), ...tag('ext'), ...tag('pext'),
      ...tag('brand_v', 'SORTABLE'), ...tag('category_v', 'SORTABLE'), ...tag('avail_v', 'SORTABLE'),
      ...numeric('price'), ...numeric('stock'), ...numeric('parent'), ...numeric('variant'),
      ...vectors(c, options),
    ];
  }
  return [
    ...text('title', 3), ...text('kw', 2.5), ...text('tags_text', 1.5), ...text('summary', 1.5), ...text('content', 1),
    ...common, ...tag('vis'), ...tag('owner'), ...tag('type'), ...tag('category'), ...tag('proj'), ...tag('layer'), ...tag('tags'),
    ...numeric('expires'),
    ...vectors(c, options),
  ];
}

/** True when the server has RediSearch with TEXT fields (valkey-search has vectors and tags only). */
export async function hasQueryEngine(redis: Store): Promise<boolean> {
  const probe = `kcs:probe:${process.pid}:${Date.now()}`;
  try {
    // The prefix matches no key, so the probe index has nothing to scan.
    await redis.call('FT.CREATE', probe, 'ON', 'HASH', 'PREFIX', '1', `${probe}:`, 'SCHEMA', 't', 'TEXT');
    await redis.call('FT.DROPINDEX', probe);
    return true;
  } catch {
    return false;
  }
}

/**
 * Drops the tenant's indexes of models other than those `kept` (those of no model stay: a server
 * with embedding off searches them). The documents stay; once the tenant is searched with another
 * model, each index of an old one only costs the server indexing every write again.
 */
export async function dropOtherModelIndexes(redis: Store, tenantId: string, kept: string[]): Promise<string[]> {
  const prefix = keys.searchIndex(tenantId, '');
  const keep = new Set(['none', ...kept.map((modelId) => modelPart({ modelId, dimension: null }))]);
  const stale = ((await redis.call('FT._LIST')) as string[]).filter((name) => {
    const match = name.startsWith(prefix) ? /^(?:products|entries):v(\w+):(.+)$/.exec(name.slice(prefix.length)) : null;
    return match !== null && match[1] === PROJECTION_VERSION && !keep.has(match[2]);
  });
  for (const name of stale) {
    try {
      await redis.call('FT.DROPINDEX', name);
    } catch (error) {
      if (!/unknown index|no such index/i.test((error as Error).message)) throw error;
    }
  }
  return stale;
}

/**
 * How long a search waits for a new index's first scan over documents stored before it (a new
 * tenant's index has none; a large catalogue moving to the Query Engine takes longer, and its
 * searches answer from what is indexed so far rather than hang).
 */
const SCAN_WAIT_MS = 2_000;

/**
 * How long a process takes a tenant's indexes for existing before it asks the server again: an
 * index of a model the tenant moved on from is dropped (dropOtherModelIndexes), and the tenant
 * may come back to that model later.
 */
const CREATED_TTL_MS = 60_000;

/** The indexes of each tenant, created once per process on first use (and checked every minute). */
export class TenantIndexes {
  private readonly created = new Map<string, { at: number; done: Promise<void> }>();

  constructor(
    private readonly redis: Store,
    private readonly options: IndexOptions,
  ) {}

  products(tenantId: string): Collection {
    return collectionOf('product', tenantId, this.options);
  }

  entries(tenantId: string): Collection {
    return collectionOf('entry', tenantId, this.options);
  }

  /** Resolves once both indexes of the tenant exist and have read the documents stored before them. */
  ensure(tenantId: string): Promise<void> {
    const created = this.created.get(tenantId);
    return created && performance.now() - created.at < CREATED_TTL_MS ? created.done : this.remember(tenantId, true);
  }

  /**
   * Both indexes of a tenant that has no document yet: created without the server's scan of the
   * whole keyspace (seconds on a large server), since there is nothing to find; every document
   * written from now on is indexed as it is stored.
   */
  createEmpty(tenantId: string): Promise<void> {
    return this.remember(tenantId, false);
  }

  private remember(tenantId: string, scan: boolean): Promise<void> {
    const done = Promise.all([this.create(this.products(tenantId), scan), this.create(this.entries(tenantId), scan)]).then(() => undefined);
    const created = { at: performance.now(), done };
    this.created.set(tenantId, created);
    done.catch(() => this.created.get(tenantId) === created && this.created.delete(tenantId));
    return done;
  }

  /** Creates the index unless it exists; `scan`: it reads the documents stored before it (waiting a little for that). */
  private async create(c: Collection, scan: boolean): Promise<void> {
    try {
      await this.redis.call('FT.CREATE', c.index, 'ON', 'HASH', 'PREFIX', '1', c.prefix, ...(scan ? [] : ['SKIPINITIALSCAN']), 'STOPWORDS', '0', 'SCHEMA', ...schema(c, this.options));
    } catch (error) {
      if (/already exists/i.test((error as Error).message)) return;
      throw error;
    }
    if (!scan) return;
    // A new index over existing documents reads them in the background: wait for that first scan.
    const deadline = Date.now() + SCAN_WAIT_MS;
    while (Date.now() < deadline && (await this.indexing(c.index))) await new Promise((r) => setTimeout(r, 20));
  }

  private async indexing(index: string): Promise<boolean> {
    const info = parseInfoReply(await this.redis.call('FT.INFO', index));
    return Number(info.get('indexing') ?? 0) !== 0;
  }
}

/** The tenants' indexes per model: each model's vectors are searched in indexes of their own. */
export class ModelIndexes {
  private readonly byModel = new Map<string, TenantIndexes>();

  constructor(private readonly redis: Store) {}

  of(model: IndexOptions): TenantIndexes {
    let indexes = this.byModel.get(model.modelId ?? '');
    if (!indexes) this.byModel.set(model.modelId ?? '', (indexes = new TenantIndexes(this.redis, model)));
    return indexes;
  }
}
