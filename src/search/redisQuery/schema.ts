// The Redis Query Engine's indexes: one FT index per tenant and collection over the document hashes
// themselves (`kcs:{t:<id>}:product:*`, `…:entry:*`). Their fields are the projection written with
// each document (`f:*`, see projection.ts), the model id of its vectors (`embedding_model`) and the vectors
// the embed worker stores (`v:*`), so nothing is copied and no process keeps anything in step.
import { allEntryIds } from '../../store/knowledgeEntries.js';
import type { Store } from '../../store/redis.js';
import { keys } from '../../store/keys.js';
import { parseInfoReply } from './replies.js';
import { reindexDocumentsCall } from '../../store/scriptCalls.js';
import { vectorField } from '../../store/vectors.js';

/** Version of the projection's field layout: part of the index name, and of each tenant's marker. */
export const PROJECTION_VERSION = '2';

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
  tenantId: string;
  /** The key prefix of the collection's document hashes. */
  prefix: string;
  index: string;
  /** The key present while the index still owes a read of the documents stored before it. */
  owed: string;
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
  const indexName = `${name}:v${PROJECTION_VERSION}:${modelPart(options)}`;
  return {
    kind,
    tenantId,
    prefix: key(tenantId, ''),
    index: keys.searchIndex(tenantId, indexName),
    owed: keys.searchIndexOwed(tenantId, indexName),
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

export function schema(c: Collection, options: IndexOptions): string[] {
  const common = [...tag(F.id), ...tag(F.language), ...tag(F.baseLanguage), ...numeric(F.anchor), ...numeric(F.created, 'SORTABLE')];
  if (c.kind === 'product') {
    return [
      // As the built-in engine's fields (builtin/products.ts): the title's focus, the rest of it, …
      ...text('title', 3), ...text('title2', 1.5), ...text('kw', 2.5), ...text('brand', 2), ...text('cat', 2), ...text('short', 1), ...text('desc', 1),
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
 * with embedding off searches them), and with `kept` null those of an older projection version
 * only (the tenant's documents all carry this one). The documents stay; each index of an old
 * model or layout only costs the server indexing every write again.
 */
export async function dropOtherModelIndexes(redis: Store, tenantId: string, kept: string[] | null): Promise<string[]> {
  const prefix = keys.searchIndex(tenantId, '');
  const keep = kept && new Set(['none', ...kept.map((modelId) => modelPart({ modelId, dimension: null }))]);
  const stale = ((await redis.call('FT._LIST')) as string[]).filter((name) => {
    const match = name.startsWith(prefix) ? /^(?:products|entries):v(\w+):(.+)$/.exec(name.slice(prefix.length)) : null;
    if (!match) return false;
    return match[1] !== PROJECTION_VERSION || (keep !== null && !keep.has(match[2]));
  });
  for (const name of stale) {
    try {
      await redis.call('FT.DROPINDEX', name);
    } catch (error) {
      if (!/unknown index|no such index/i.test((error as Error).message)) throw error;
    }
    await redis.del(keys.searchIndexOwed(tenantId, name.slice(prefix.length)));
  }
  return stale;
}

/**
 * How long a search waits for a new index to read the documents stored before it (a new tenant's
 * index has none; a large catalogue moving to the Query Engine takes longer, and its searches
 * answer from what is read so far rather than hang).
 */
const READ_WAIT_MS = 2_000;

/** Documents written again per script call while a new index reads them. */
const REINDEX_BATCH = 500;

/**
 * A new index reads the tenant's documents by their being written again where the server holds
 * more than this many keys per document; else by the server's scan. The scan reads ~32,000 keys
 * a second; a document written again costs ~0.1 ms, up to ~1 ms where a 512-d vector index of the
 * tenant indexes it again too (bench:query-engine-index).
 */
export const WRITE_AGAIN_SHARE = 32;

/** Resolves when `work` does, or after `ms` (its failure then goes unseen here). */
async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

/**
 * How long a process takes a tenant's indexes for existing before it asks the server again: an
 * index of a model the tenant moved on from is dropped (dropOtherModelIndexes), and the tenant
 * may come back to that model later.
 */
const CREATED_TTL_MS = 60_000;

/** The indexes of each tenant, created once per process on first use (and checked every minute). */
export class TenantIndexes {
  private readonly created = new Map<string, { at: number; done: Promise<void> }>();
  /** The reads of stored documents under way in this process, by `owed` key. */
  private readonly reading = new Map<string, Promise<void>>();

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
   * Both indexes of a tenant that has no document yet: nothing stored to read; every document
   * written from now on is indexed as it is stored.
   */
  createEmpty(tenantId: string): Promise<void> {
    return this.remember(tenantId, false);
  }

  private remember(tenantId: string, read: boolean): Promise<void> {
    const done = Promise.all([this.create(this.products(tenantId), read), this.create(this.entries(tenantId), read)]).then(() => undefined);
    const created = { at: performance.now(), done };
    this.created.set(tenantId, created);
    done.catch(() => this.created.get(tenantId) === created && this.created.delete(tenantId));
    return done;
  }

  /**
   * Creates the index unless it exists; `read`: it reads the documents stored before it (waiting a
   * little for that). The server's initial scan reads its whole keyspace, every tenant's, one index
   * at a time (~30 s per million keys); writing the tenant's documents again instead makes every
   * index over them read them again (up to ~1 ms a document next to a 512-d vector index). So a
   * tenant whose documents are a small share of the server's keys is read by writing them again:
   * the `owed` key is set before the index and removed once they all are written, so a process
   * that dies between the two leaves the work to the next one (bench:query-engine-index).
   */
  private async create(c: Collection, read: boolean): Promise<void> {
    let ids: string[] | null = null;
    if (read) {
      const exists = await this.exists(c.index);
      if (exists && (await this.redis.exists(c.owed)) === 0) return;
      ids = await this.documentIds(c);
      if (!exists && (await this.redis.dbsize()) <= WRITE_AGAIN_SHARE * ids.length) return this.createScanned(c);
      if (!exists) await this.redis.set(c.owed, '1');
    }
    await this.createIndex(c, { scan: false });
    if (ids === null) return;
    let reading = this.reading.get(c.owed);
    if (!reading) {
      reading = this.writeAgain(c, ids).finally(() => this.reading.delete(c.owed));
      this.reading.set(c.owed, reading);
    }
    // Searches answer from what is read so far after a while; the read goes on, and one that fails
    // is taken up again by the next ensure() (the `owed` key stays).
    await waitAtMost(reading, READ_WAIT_MS);
  }

  /** FT.CREATE of the collection's index, with or without the server's initial scan; false where it exists already. */
  private async createIndex(c: Collection, { scan }: { scan: boolean }): Promise<boolean> {
    try {
      await this.redis.call('FT.CREATE', c.index, 'ON', 'HASH', 'PREFIX', '1', c.prefix, ...(scan ? [] : ['SKIPINITIALSCAN']), 'STOPWORDS', '0', 'SCHEMA', ...schema(c, this.options));
      return true;
    } catch (error) {
      if (/already exists/i.test((error as Error).message)) return false;
      throw error;
    }
  }

  /** The index read by the server's own scan, waited for a little. */
  private async createScanned(c: Collection): Promise<void> {
    if (!(await this.createIndex(c, { scan: true }))) return;
    const deadline = Date.now() + READ_WAIT_MS;
    while (Date.now() < deadline && Number(parseInfoReply(await this.redis.call('FT.INFO', c.index)).get('indexing') ?? 0) !== 0) {
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  private documentIds({ kind, tenantId }: Collection): Promise<string[]> {
    return kind === 'product' ? this.redis.zrange(keys.products(tenantId), '0', '-1') : allEntryIds(this.redis, tenantId);
  }

  /** Writes the collection's documents again, batch by batch, so that the index reads them; then it owes nothing. */
  private async writeAgain({ kind, tenantId, owed }: Collection, ids: string[]): Promise<void> {
    const key = kind === 'product' ? keys.product : keys.entry;
    for (let i = 0; i < ids.length; i += REINDEX_BATCH) {
      await this.redis.reindexDocuments(...reindexDocumentsCall(ids.slice(i, i + REINDEX_BATCH).map((id) => key(tenantId, id))));
    }
    await this.redis.del(owed);
  }

  private async exists(index: string): Promise<boolean> {
    try {
      await this.redis.call('FT.INFO', index);
      return true;
    } catch (error) {
      if (/unknown index|no such index/i.test((error as Error).message)) return false;
      throw error;
    }
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
