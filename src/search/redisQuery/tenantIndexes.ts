// The indexes of each tenant under one model: created once per process on first use, on the master
// that holds the tenant's documents (router.ts), and checked again every minute or when that master
// changes (a failover, a migrated slot).
import type { Logger } from '../../log.js';
import { allEntryIds } from '../../store/knowledgeEntries.js';
import { keys } from '../../store/keys.js';
import type { Store } from '../../store/redis.js';
import { reindexDocumentsCall } from '../../store/scriptCalls.js';
import { UnavailableError } from '../../store/unavailableError.js';
import { parseInfoReply } from './replies.js';
import type { IndexRouter } from './router.js';
import { collectionOf, createIndexArgs, dropOtherModelIndexes, type Collection, type IndexOptions } from './schema.js';

/**
 * How long a search waits for a new index to read the documents stored before it (a new tenant's
 * index has none; a large catalogue moving to the Query Engine takes longer, and on one server its
 * searches answer from what is read so far rather than hang).
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

/**
 * How long a process takes a tenant's indexes for existing before it asks the server again: an
 * index of a model the tenant moved on from is dropped (dropOtherModelIndexes), and the tenant
 * may come back to that model later.
 */
const CREATED_TTL_MS = 60_000;

const unknownIndex = (error: unknown) => error instanceof Error && /unknown index|no such index/i.test(error.message);
const exists = (error: unknown) => error instanceof Error && /already exists/i.test(error.message);

/** Resolves true when `work` does, or false after `ms` (its failure then goes unseen here). */
async function doneWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const finished = work.then(() => true);
  return Promise.race([finished, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]).finally(() => clearTimeout(timer));
}

/** What a process found of a tenant's indexes: when, on which master, and whether they still read stored documents. */
interface Created {
  at: number;
  node: string;
  done: Promise<void>;
  /** `done` resolved: every index exists. */
  settled: boolean;
  /** Indexes whose read of the stored documents went on past the wait (their searches answer partly meanwhile). */
  reading: number;
}

export class TenantIndexes {
  /** Per tenant: when its indexes were found or made, on which master, and the promise of that. */
  private readonly created = new Map<string, Created>();
  /** The reads of stored documents under way in this process, by `owed` key. */
  private readonly reading = new Map<string, Promise<void>>();
  /** Indexes being made on a master a migration moves a tenant's slot to, by tenant and master. */
  private readonly importing = new Map<string, Promise<void>>();

  constructor(
    private readonly redis: Store,
    private readonly router: IndexRouter,
    private readonly options: IndexOptions,
    private readonly log?: Logger,
  ) {}

  products(tenantId: string): Collection {
    return collectionOf('product', tenantId, this.options);
  }

  /** The index of the products' vectors (null: no model, no vectors searched). */
  productVectors(tenantId: string): Collection | null {
    return this.options.modelId && this.options.dimension ? collectionOf('productVectors', tenantId, this.options) : null;
  }

  entries(tenantId: string): Collection {
    return collectionOf('entry', tenantId, this.options);
  }

  private all(tenantId: string): Collection[] {
    return [this.products(tenantId), this.productVectors(tenantId), this.entries(tenantId)].filter((c): c is Collection => c !== null);
  }

  /**
   * Resolves once the tenant's indexes exist and have read the documents stored before them. On a
   * cluster, an index still reading after a short wait fails the search (503): the documents its
   * master holds are all there, and an answer must not leave any out.
   */
  ensure(tenantId: string): Promise<void> {
    const created = this.created.get(tenantId);
    if (created && performance.now() - created.at < CREATED_TTL_MS && created.node === this.router.nodeKey(tenantId)) return created.done;
    return this.remember(tenantId, true);
  }

  /** Whether this process found (or made) the tenant's indexes with every stored document read: its searches answer whole. */
  complete(tenantId: string): boolean {
    const created = this.created.get(tenantId);
    return created !== undefined && created.settled && created.reading === 0;
  }

  /** Forgets what this process knows of the tenant's indexes: the next search checks them again. */
  forget(tenantId: string): void {
    this.created.delete(tenantId);
  }

  /**
   * The indexes of a tenant that has no document yet: nothing stored to read; every document
   * written from now on is indexed as it is stored.
   */
  createEmpty(tenantId: string): Promise<void> {
    return this.remember(tenantId, false);
  }

  /**
   * Makes the tenant's indexes on the master its slot is migrating to, before the slot is its own
   * (ASKING): the documents that arrive there from now on are indexed as they arrive, and those
   * there already are read by the server's scan. Best effort: where it did not happen, the first
   * search after the migration makes them.
   */
  prepareImport(tenantId: string, nodeKey: string): Promise<void> {
    const key = `${tenantId}@${nodeKey}`;
    let done = this.importing.get(key);
    if (!done) {
      done = Promise.all(this.all(tenantId).map(async (c) => {
        try {
          await this.router.callImporting(nodeKey, createIndexArgs(c, this.options, { scan: true }));
        } catch (error) {
          if (!exists(error)) this.log?.warn({ tenantId, index: c.index, node: nodeKey, err: (error as Error).message }, 'no index made ahead of a slot migration');
        }
      })).then(() => undefined).finally(() => this.importing.delete(key));
      this.importing.set(key, done);
    }
    return done;
  }

  private remember(tenantId: string, read: boolean): Promise<void> {
    const created: Created = { at: performance.now(), node: this.router.nodeKey(tenantId), done: Promise.resolve(), settled: false, reading: 0 };
    created.done = Promise.all(this.all(tenantId).map((c) => this.create(c, read, created))).then(() => void (created.settled = true));
    this.created.set(tenantId, created);
    created.done.catch(() => this.created.get(tenantId) === created && this.created.delete(tenantId));
    return created.done;
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
  private async create(c: Collection, read: boolean, created: Created): Promise<void> {
    if (!read) {
      await this.createIndex(c, { scan: false });
      return;
    }
    const node = this.router.node(c.tenantId);
    let scanning = await this.scanning(c);
    let owed = (await node.exists(c.owed)) === 1;
    const built = scanning === null;
    if (built) {
      const ids = await this.documentIds(c);
      if ((await node.dbsize()) <= WRITE_AGAIN_SHARE * ids.length) {
        scanning = await this.createIndex(c, { scan: true });
      } else {
        await node.set(c.owed, '1');
        owed = true;
        await this.createIndex(c, { scan: false });
      }
    }
    if (!scanning && !owed) return;
    const reading = scanning ? this.scanDone(c) : this.writeAgain(c);
    // An index of a new layout (INDEX_VERSIONS) replaces the tenant's older one once it has read every document.
    if (built) reading.then(() => this.dropOlderLayouts(c.tenantId), () => undefined);
    if (await doneWithin(reading, READ_WAIT_MS)) return;
    // On one server, searches answer from what is read so far; the read goes on (a failed one is
    // taken up again by the next ensure(): the `owed` key stays, and the tenant stays partial here).
    if (this.router.clustered) throw new UnavailableError(`the search indexes of tenant ${c.tenantId} are still reading its documents`);
    created.reading++;
    reading.then(() => created.reading--, () => undefined);
  }

  /** Drops the tenant's indexes of earlier layouts (the server indexes every write in each until then). */
  private async dropOlderLayouts(tenantId: string): Promise<void> {
    try {
      const dropped = await dropOtherModelIndexes(this.router, tenantId, null);
      if (dropped.length > 0) this.log?.info({ tenantId, dropped }, 'search indexes of an earlier layout dropped');
    } catch (error) {
      this.log?.warn({ tenantId, err: (error as Error).message }, 'search indexes of an earlier layout not dropped; the next new index tries again');
    }
  }

  /** Whether the index is reading by the server's scan (null: there is no such index). */
  private async scanning(c: Collection): Promise<boolean | null> {
    try {
      return Number(parseInfoReply(await this.router.call(c.tenantId, ['FT.INFO', c.index])).get('indexing') ?? 0) !== 0;
    } catch (error) {
      if (unknownIndex(error)) return null;
      throw error;
    }
  }

  /** FT.CREATE of the collection's index; true when it was made with the server's scan (false: no scan, or it existed). */
  private async createIndex(c: Collection, { scan }: { scan: boolean }): Promise<boolean> {
    try {
      await this.router.call(c.tenantId, createIndexArgs(c, this.options, { scan }));
      return scan;
    } catch (error) {
      if (exists(error)) return false;
      throw error;
    }
  }

  private async scanDone(c: Collection): Promise<void> {
    while (await this.scanning(c)) await new Promise((r) => setTimeout(r, 20));
  }

  private documentIds({ kind, tenantId }: Collection): Promise<string[]> {
    return kind === 'entry' ? allEntryIds(this.redis, tenantId) : this.redis.zrange(keys.products(tenantId), '0', '-1');
  }

  /** Writes the collection's documents again, batch by batch, so that the index reads them; then it owes nothing. One read per `owed` key in a process. */
  private writeAgain(c: Collection): Promise<void> {
    let reading = this.reading.get(c.owed);
    if (!reading) {
      reading = (async () => {
        const ids = await this.documentIds(c);
        for (let i = 0; i < ids.length; i += REINDEX_BATCH) {
          await this.redis.reindexDocuments(...reindexDocumentsCall(ids.slice(i, i + REINDEX_BATCH).map((id) => c.prefix + id), c.indexedField));
        }
        await this.redis.del(c.owed);
      })().finally(() => this.reading.delete(c.owed));
      this.reading.set(c.owed, reading);
    }
    return reading;
  }
}
