// Brings a tenant's stored data to the layout this code reads and writes, step by step from the
// layout it is at (its marker, keys.storedLayout; none: the first). Each process runs this before
// it reads a document, so data an earlier build wrote is migrated once per tenant, in place.
import { EmbeddingProgressRepository } from './embeddingProgress.js';
import { resultBytes } from './jobs.js';
import { allEntryIds } from './knowledgeEntries.js';
import { keys } from './keys.js';
import { readHashes, type Store } from './redis.js';
import { moveVectorsCall, renameFieldsCall, replaceVectorsCall } from './scriptCalls.js';
import { entriesOf, type StoredSynonymSet } from './synonyms.js';
import { fromFloat32Bytes, toBytes } from './vectorBytes.js';

/** Hashes per script call. */
const BATCH = 200;

interface TenantDocuments {
  products: string[];
  entries: string[];
}

/** One step from a layout to the next; the number of documents it changed. */
type Step = (redis: Store, tenantId: string, docs: TenantDocuments, hooks: MigrationHooks) => Promise<number>;

/** Layout 1 → 2: the product and entry hash fields named in short forms (`pext`, `estatus`, …) get the names they have now. */
const renameShortFields: Step = async (redis, _tenantId, { products, entries }) => {
  const renames = [['pext', 'parent_external_id'], ['estatus', 'embedding_status'], ['thash', 'text_hash'], ['tsrc', 'text_sources'], ['emodel', 'embedding_model']] as const;
  const hashes = [...products, ...entries];
  let changed = 0;
  for (let i = 0; i < hashes.length; i += BATCH) changed += await redis.renameFields(...renameFieldsCall(hashes.slice(i, i + BATCH), renames));
  return changed;
};

/** Layout 2 → 3: the counts of documents by embedding status, which the scripts keep from here on, counted once. */
const countEmbeddingStatuses: Step = async (redis, tenantId, { products, entries }) => {
  const statusesOf = async (kind: 'product' | 'entry', hashes: string[]) =>
    (await readHashes(redis, hashes, ['embedding_status'])).map(([status]) => ({ kind, status }));
  await new EmbeddingProgressRepository(redis).recount(tenantId, [...(await statusesOf('product', products)), ...(await statusesOf('entry', entries))]);
  return 0;
};

/**
 * Layout 3 → 4: a bulk job's item results move from a hash (a field per item) to a byte per item
 * (lua/lib/jobResults.lua), for the queued and running jobs the tenant's list names: such a job
 * resumes from them (one without results yet gets its key too: created later by a script's write,
 * it would never expire). A finished job never reads them again. The hash never had a TTL (it did
 * not exist yet when the job's keys were given theirs): it goes now, and the bytes expire with the job.
 */
const jobResultsAsBytes: Step = async (redis, tenantId) => {
  for (const jobId of await redis.zrange(keys.jobs(tenantId), '0', '-1')) {
    const hash = keys.jobResultsHash(tenantId, jobId);
    const [status, ttlMs] = await Promise.all([redis.hget(keys.job(tenantId, jobId), 'status'), redis.pttl(keys.job(tenantId, jobId))]);
    const unfinished = (status === 'queued' || status === 'running') && ttlMs > 0;
    const multi = redis.multi();
    if (unfinished) multi.set(keys.jobResults(tenantId, jobId), resultBytes(await redis.hgetall(hash)), 'PX', ttlMs);
    await multi.del(hash).exec();
  }
  return 0;
};

/**
 * Layout 4 → 5: a product's vectors move to a hash of their own (keys.productVectors), so that an
 * index of them is apart from the product's other search fields. An index of an earlier layout
 * over the product hashes is dropped first (`dropOldIndexes`), or it would index each product
 * again as its vectors leave.
 */
const vectorsApart: Step = async (redis, tenantId, { products }, hooks) => {
  await hooks.dropOldIndexes?.(tenantId);
  let moved = 0;
  for (let i = 0; i < products.length; i += BATCH) {
    const pairs = products.slice(i, i + BATCH).map((product) => ({ product, vectors: keys.productVectors(tenantId, product.slice(keys.product(tenantId, '').length)) }));
    moved += await redis.moveVectors(...moveVectorsCall(pairs));
  }
  return moved;
};

/**
 * Layout 5 → 6: vectors are stored as FLOAT16 (vectorBytes.ts), half the bytes in the hashes and
 * in the Query Engine's vector indexes (which are made anew over them: schema.ts INDEX_VERSIONS).
 * Each is replaced only where it is still the float32 value read, so an embedding stored meanwhile
 * (already FLOAT16) stays. A product's vector hash without vectors goes: from this layout on, its
 * first vectors make it (store/lua/storeVectors-7.lua).
 */
const vectorsAsFloat16: Step = async (redis, tenantId, { products, entries }) => {
  const productPrefix = keys.product(tenantId, '');
  const hashes = [
    ...products.map((p) => ({ hash: keys.productVectors(tenantId, p.slice(productPrefix.length)), dropEmpty: true })),
    ...entries.map((hash) => ({ hash, dropEmpty: false })),
  ];
  let changed = 0;
  for (let i = 0; i < hashes.length; i += BATCH) {
    const batch = hashes.slice(i, i + BATCH);
    const read = await Promise.all(batch.map(({ hash }) => redis.hgetallBuffer(hash)));
    const call = batch
      .map(({ hash, dropEmpty }, k) => ({
        hash,
        dropEmpty: dropEmpty && Object.keys(read[k]).length > 0,
        vectors: Object.entries(read[k])
          .filter(([field, value]) => field.startsWith('v:') && value.length > 0)
          .map(([field, value]) => ({ field, read: value, value: toBytes(fromFloat32Bytes(value)) })),
      }))
      .filter((h) => h.vectors.length > 0 || h.dropEmpty);
    if (call.length > 0) changed += await redis.replaceVectors(...replaceVectorsCall(call));
  }
  return changed;
};

/**
 * Layout 6 → 7: the entries of each synonym set and their sum (keys.synonymWeights), which the
 * scripts keep from here on to hold the tenant's cap on entries (store/synonyms.ts), counted once.
 */
const countSynonymEntries: Step = async (redis, tenantId) => {
  const weights: string[] = [];
  let total = 0;
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(keys.synonyms(tenantId), cursor, 'COUNT', BATCH);
    for (let i = 0; i < flat.length; i += 2) {
      const entries = entriesOf(JSON.parse(flat[i + 1]) as StoredSynonymSet);
      weights.push(flat[i], String(entries));
      total += entries;
    }
    cursor = next;
  } while (cursor !== '0');
  const multi = redis.multi().del(keys.synonymWeights(tenantId));
  for (let i = 0; i < weights.length; i += 2 * BATCH) multi.hset(keys.synonymWeights(tenantId), ...weights.slice(i, i + 2 * BATCH));
  if (weights.length > 0) multi.hset(keys.synonymWeights(tenantId), '*total', total);
  await multi.exec();
  return 0;
};

const STEPS: Step[] = [renameShortFields, countEmbeddingStatuses, jobResultsAsBytes, vectorsApart, vectorsAsFloat16, countSynonymEntries];

export interface MigrationHooks {
  /** Drops the tenant's search indexes of earlier layouts (search/index.ts). */
  dropOldIndexes?: (tenantId: string) => Promise<unknown>;
}

/** The layout this code reads and writes; a new tenant starts at it. */
export const LAYOUT_VERSION = String(STEPS.length + 1);

export interface MigrationResult {
  tenants: number;
  /** Documents a step changed. */
  documents: number;
}

/** Migrates every tenant not at LAYOUT_VERSION yet. Idempotent; safe to run from several processes at once. */
export async function migrateLayout(redis: Store, hooks: MigrationHooks = {}): Promise<MigrationResult> {
  const result: MigrationResult = { tenants: 0, documents: 0 };
  for (const tenantId of await redis.hvals(keys.tenantSlugs)) {
    const at = Number((await redis.get(keys.storedLayout(tenantId))) ?? '1');
    if (at >= Number(LAYOUT_VERSION)) continue;
    const docs: TenantDocuments = {
      products: (await redis.zrange(keys.products(tenantId), '0', '-1')).map((id) => keys.product(tenantId, id)),
      entries: (await allEntryIds(redis, tenantId)).map((id) => keys.entry(tenantId, id)),
    };
    for (const step of STEPS.slice(at - 1)) result.documents += await step(redis, tenantId, docs, hooks);
    await redis.set(keys.storedLayout(tenantId), LAYOUT_VERSION);
    result.tenants++;
  }
  return result;
}
