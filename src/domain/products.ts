// Products: upsert by external_id with delta sync (spec §4.1, DESIGN §4), reads, deletes.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { EmbeddingStatus } from '../schemas/common.js';
import { SYSTEM_ACTOR, type AuditActor } from '../store/audit.js';
import { skippedForLanguage, type Page, type StoredEmbeddingStatus } from '../store/docs.js';
import type { ProductRepository } from '../store/productRepository.js';
import type {
  ItemSettlement, JobItem, ProductFilter, ProductRecord, ProductTextSources, ProductWrite, Settled, StoredProduct,
} from '../store/products.js';
import { ConflictError, NotFoundError } from './errors.js';
import { buildDoc, toView, viewText, VOLATILE, type ProductInput, type ProductView } from './productDocs.js';
import { embeddingTexts, textSources, textsHash } from './productTexts.js';
import { noSearchRefresh, type SearchRefresh } from './searchRefresh.js';

export type { ProductInput, ProductView } from './productDocs.js';
export type UpsertResult = 'created' | 'updated' | 'unchanged';

/** Hands products whose texts changed to the embedding workers. */
export interface EmbeddingScheduler {
  /** Status a product gets when its texts change: 'pending', or 'skipped' when embedding is off. */
  readonly initialStatus: Extract<EmbeddingStatus, 'pending' | 'skipped'>;
  /**
   * The base languages the model serves (absent: every one). A product in another gets no vectors,
   * which nothing would read (search ranks it by keyword, related products by keyword similarity):
   * it is stored `skipped:<language>` with no job, until a model serving it is configured.
   */
  readonly languages?: readonly string[] | null;
  schedule(tenantId: string, items: { productId: string; textHash: string }[]): Promise<void>;
}

/** Rounds before giving up on a product other writers keep changing; each lost round backs off a little. */
const MAX_ATTEMPTS = 200;
const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(attempt, 20)));

/** One upsert: the input with where it goes. */
export interface UpsertRequest {
  siteId: string;
  input: ProductInput;
  source: string;
  /**
   * The id of a new product (a retried bulk item without an external_id creates the same
   * product; store/jobs.ts ItemChunk), or of the product a PUT replaces. The product is found by
   * it when the external_id finds none.
   */
  id?: string;
  jobItem?: JobItem;
  /** A bulk item's digest (see `settleUnchanged`), stored with the product. */
  itemDigest?: string;
  /**
   * The product this request is for, when the caller already knows (null: none yet): what its
   * external_id named when the bulk worker just looked, or the product a PUT replaces. A first
   * round takes it instead of looking the external_id up; a stale one is harmless, as the write
   * checks the revision and the external_id claim, and the retry looks afresh.
   */
  knownId?: string | null;
  /** With `knownId` null: the external_id's translation group as just read (null: none); as harmless stale as `knownId`. */
  knownGroup?: string | null;
  /** Who makes a single write, audited with it; none for bulk items (their job is the audited write). */
  actor?: AuditActor;
}

export interface UpsertOutcome {
  id: string;
  result: UpsertResult;
  /** True when the texts changed and the model embeds the product: an embedding job was (or must be) scheduled. */
  embed: boolean;
  textHash: string;
}

/** A request with what its texts give, worked out once for every round. */
type PreparedRequest = { request: UpsertRequest; sources: ProductTextSources; textHash: string };
/** One `upsertMany` call, the same in every round: its tenant, its requests, and their outcomes as rounds settle them. */
type UpsertBatch = { tenantId: string; prepared: PreparedRequest[]; outcomes: UpsertOutcome[] };
/** A write of a round as planned: the request's index, the write, and the outcome it has once stored. */
type PlannedWrite = { index: number; write: ProductWrite; result: UpsertResult; embed: boolean };
/** A round's plan: the products to write and the unchanged ones to touch. */
type RoundPlan = { writes: PlannedWrite[]; touches: { index: number; record: ProductRecord }[] };

/**
 * Splits pending requests (indexes in request order) into a round with at most one request per
 * product (by site and external_id, else by pinned id) and the later requests for the same products.
 */
function oneRequestPerProduct(prepared: PreparedRequest[], pending: number[]): { round: number[]; deferred: number[] } {
  const round: number[] = [];
  const deferred: number[] = [];
  const targets = new Set<string>();
  for (const index of pending) {
    const { siteId, input, id } = prepared[index].request;
    const target = input.external_id ? `${siteId} ${input.external_id}` : id;
    if (target !== undefined && targets.has(target)) deferred.push(index);
    else {
      if (target !== undefined) targets.add(target);
      round.push(index);
    }
  }
  return { round, deferred };
}

/** What the product rules need of a store: store/products.ts ProductRepository (Redis), or an in-memory one in tests. */
export type ProductStore = Pick<
  ProductRepository,
  'idByExternalId' | 'idsByExternalIds' | 'translationGroupsOf' | 'get' | 'getMany' | 'answerTexts' | 'parentIds' | 'writeMany' | 'touchMany' | 'settleMany' | 'delete' | 'page'
>;

export class ProductService {
  constructor(
    private readonly repo: ProductStore,
    private readonly embedding: EmbeddingScheduler,
    private readonly refreshSearch: SearchRefresh = noSearchRefresh,
  ) {}

  /** Upsert one product (spec §4.1): by external_id within the site, else a new product. */
  async upsert(tenantId: string, request: UpsertRequest): Promise<UpsertOutcome> {
    const [outcome] = await this.upsertMany(tenantId, [request]);
    await this.scheduleEmbeddings(tenantId, [outcome]);
    if (outcome.result !== 'unchanged') await this.refreshSearch(tenantId, [{ kind: 'product', id: outcome.id }]);
    return outcome;
  }

  /**
   * The bulk fast path for a re-sent catalogue (ProductRepository.settleMany): the items sent
   * exactly as last applied are recorded as unchanged at once, without reading their products.
   * Returns per item 'unchanged', 'done' (the job item already has a result) or 'unsettled' (the
   * full upsert decides), with the id its external_id named (a `knownId` for the upsert).
   */
  settleUnchanged(tenantId: string, settlement: Omit<ItemSettlement, 'synced'>): Promise<Settled[]> {
    return settlement.items.length === 0 ? Promise.resolve([]) : this.repo.settleMany(tenantId, { ...settlement, synced: new Date().toISOString() });
  }

  /**
   * Upserts in rounds: read every current record in one pipeline, write every change in one
   * pipeline, and retry only the few that raced with another writer. Requests for the same
   * product take effect in their order: a later one waits for the next round.
   */
  async upsertMany(tenantId: string, requests: UpsertRequest[]): Promise<UpsertOutcome[]> {
    const prepared = requests.map((request): PreparedRequest => {
      const sources = textSources(request.input);
      return { request, sources, textHash: textsHash(embeddingTexts(request.input, sources), request.input.language) };
    });
    const batch: UpsertBatch = { tenantId, prepared, outcomes: new Array(requests.length) };
    let pending = prepared.map((_, i) => i);
    for (let conflicts = 0; pending.length > 0; ) {
      const { round, deferred } = oneRequestPerProduct(prepared, pending);
      const raced = await this.upsertRound(batch, round, conflicts > 0);
      if (raced.length > 0) {
        if (++conflicts >= MAX_ATTEMPTS) throw new ConflictError('The product is being changed concurrently; retry');
        await backoff(conflicts);
      }
      pending = [...raced, ...deferred].sort((a, b) => a - b);
    }
    return batch.outcomes;
  }

  /** One round of `upsertMany` over requests for distinct products; the indexes that raced with another writer. */
  private async upsertRound({ tenantId, prepared, outcomes }: UpsertBatch, pending: number[], raced: boolean): Promise<number[]> {
    const retry: number[] = [];
    const requests = pending.map((i) => prepared[i].request);
    const current = await this.currentRecords(tenantId, requests, raced);
    const groups = await this.translationGroups(tenantId, requests, current, raced);
    const now = new Date().toISOString();
    const { writes, touches } = this.planRound({ tenantId, prepared, pending, current, groups, now });
    const sent = this.repo.writeMany(tenantId, now, writes.map((w) => w.write));
    // While Redis answers, a round keeps only what its outcomes need: its documents (and their
    // script arguments, once sent) can be collected young instead of being copied and promoted.
    const stored = writes.map(({ index, write, result, embed }) => ({ index, result, embed, id: write.doc.id, externalId: write.doc.external_id, replaces: write.previous !== null, textHash: write.textHash }));
    writes.length = 0;
    (await sent).forEach((outcome, k) => {
      const { index, id, externalId, replaces, result, embed, textHash } = stored[k];
      if (outcome.kind === 'ok') outcomes[index] = { id, result, embed, textHash };
      else if (outcome.kind === 'external_id_taken' && replaces) {
        throw new ConflictError(`Another product of this site has external_id '${externalId}'`);
      } else retry.push(index);
    });
    const touched = await this.repo.touchMany(tenantId, now, touches.map(({ index, record }) => ({
      id: record.doc.id, expectedRev: record.rev, itemDigest: prepared[index].request.itemDigest, jobItem: prepared[index].request.jobItem,
    })));
    touched.forEach((outcome, k) => {
      const { index, record } = touches[k];
      if (outcome === 'differs') retry.push(index);
      else outcomes[index] = { id: record.doc.id, result: 'unchanged', embed: false, textHash: record.textHash };
    });
    return retry;
  }

  /** What a round writes (created or updated products) and touches (unchanged ones), from the records read. */
  private planRound({ tenantId, prepared, pending, current, groups, now }: {
    tenantId: string; prepared: PreparedRequest[]; pending: number[]; current: (ProductRecord | null)[]; groups: (string | null)[]; now: string;
  }): RoundPlan {
    const plan: RoundPlan = { writes: [], touches: [] };
    pending.forEach((index, k) => {
      const { request: req, sources, textHash } = prepared[index];
      const record = current[k];
      const id = record?.doc.id ?? req.id ?? randomUUID();
      if (record && req.input.sync_hash != null && req.input.sync_hash === record.doc.sync_hash) {
        // Same source data: only the volatile fields (and the sync time) may change.
        const next: StoredProduct = { ...record.doc };
        const fresh = buildDoc(req.input, record.doc, req.source);
        for (const field of VOLATILE) (next as unknown as Record<string, unknown>)[field] = fresh[field];
        if (isDeepStrictEqual(next, record.doc)) return plan.touches.push({ index, record });
        next.updated_at = now;
        plan.writes.push({
          index, result: 'updated', embed: false,
          write: { doc: next, parentExternalId: record.parentExternalId, textSources: null, textHash: record.textHash, embeddingStatus: record.embeddingStatus, previous: record, jobItem: req.jobItem, itemDigest: req.itemDigest, audit: req.actor },
        });
        return;
      }
      const base = record
        ? record.doc
        : { id, tenant_id: tenantId, site_id: req.siteId, translation_group_id: groups[k], created_at: now, updated_at: now };
      const doc = buildDoc(req.input, base, req.source);
      const parentExternalId = req.input.parent_external_id ?? null;
      const textsChanged = !record || record.textHash !== textHash;
      if (record && !textsChanged && parentExternalId === record.parentExternalId && isDeepStrictEqual(doc, record.doc)) {
        return plan.touches.push({ index, record });
      }
      if (record) doc.updated_at = now;
      const embeddingStatus = textsChanged ? this.initialStatus(doc.language) : record!.embeddingStatus;
      plan.writes.push({
        index, result: record ? 'updated' : 'created', embed: textsChanged && embeddingStatus === 'pending',
        write: {
          doc, parentExternalId, textSources: sources, textHash,
          embeddingStatus,
          previous: record, jobItem: req.jobItem, itemDigest: req.itemDigest, audit: req.actor,
        },
      });
    });
    return plan;
  }

  /** The status of a product whose texts changed: pending, unless embedding is off or the model does not serve its language. */
  private initialStatus(language: string): StoredEmbeddingStatus {
    const { initialStatus, languages } = this.embedding;
    if (initialStatus === 'pending' && languages && !languages.includes(language.slice(0, 2).toLowerCase())) return skippedForLanguage(language);
    return initialStatus;
  }

  async scheduleEmbeddings(tenantId: string, outcomes: UpsertOutcome[]): Promise<void> {
    const items = outcomes.filter((o) => o.embed).map((o) => ({ productId: o.id, textHash: o.textHash }));
    if (items.length > 0 && this.embedding.initialStatus === 'pending') await this.embedding.schedule(tenantId, items);
  }

  /** PUT: a full replace of an existing product (external_id may change; a taken one is a 409). */
  async replace(tenantId: string, id: string, { input, source, actor }: Pick<UpsertRequest, 'input' | 'source' | 'actor'>): Promise<UpsertOutcome> {
    const record = await this.repo.get(tenantId, id);
    if (!record) throw new NotFoundError('Product not found');
    if (input.external_id && input.external_id !== record.doc.external_id) {
      const owner = await this.repo.idByExternalId(tenantId, record.doc.site_id, input.external_id);
      if (owner && owner !== id) throw new ConflictError(`Another product of this site has external_id '${input.external_id}'`);
    }
    // The body's external_id names this product or none (checked above): the request is for `id`.
    return this.upsert(tenantId, { siteId: record.doc.site_id, input, source, id, knownId: id, actor });
  }

  async get(tenantId: string, id: string): Promise<ProductView> {
    const [view] = await this.views(tenantId, [id.toLowerCase()]);
    if (!view) throw new NotFoundError('Product not found');
    return view;
  }

  async list(tenantId: string, filter: ProductFilter, page: Page): Promise<{ items: ProductView[]; total: number }> {
    const { ids, total } = await this.repo.page(tenantId, filter, page);
    return { items: (await this.views(tenantId, ids)).filter((v): v is ProductView => v !== null), total };
  }

  async delete(tenantId: string, id: string, actor: AuditActor = SYSTEM_ACTOR): Promise<void> {
    const record = await this.repo.get(tenantId, id.toLowerCase());
    if (!record || !(await this.repo.delete(tenantId, record.doc, actor))) throw new NotFoundError('Product not found');
    await this.refreshSearch(tenantId, [{ kind: 'product', id: record.doc.id }]);
  }

  async deleteByExternalId(tenantId: string, product: { siteId: string; externalId: string }, actor: AuditActor): Promise<void> {
    const id = await this.repo.idByExternalId(tenantId, product.siteId, product.externalId);
    if (!id) throw new NotFoundError('Product not found');
    await this.delete(tenantId, id, actor);
  }

  /** Response views as JSON text (productDocs.ts viewText), in the order of `ids`; null for a missing product. */
  async viewTexts(tenantId: string, ids: string[]): Promise<(string | null)[]> {
    const texts = await this.repo.answerTexts(tenantId, ids);
    // Only a variant names a parent: its document gives the site to look the parent up in.
    const parents = await this.repo.parentIds(
      tenantId,
      texts.map((t) => ({ siteId: t?.parentExternalId ? (JSON.parse(t.json) as StoredProduct).site_id : '', parentExternalId: t?.parentExternalId ?? null })),
    );
    return texts.map((text, i) => (text ? viewText(text, parents[i] === ids[i] ? null : parents[i]) : null));
  }

  /** Response views in the order of `ids`; null for a missing product. */
  async views(tenantId: string, ids: string[]): Promise<(ProductView | null)[]> {
    const records = await this.repo.getMany(tenantId, ids);
    const parents = await this.repo.parentIds(
      tenantId,
      records.map((r) => ({ siteId: r?.doc.site_id ?? '', parentExternalId: r?.parentExternalId ?? null })),
    );
    return records.map((record, i) => (record ? toView(record, parents[i]) : null));
  }

  /**
   * The stored record of each request: by external_id within its site, else by its id. A new
   * product's pinned id is looked up only where it can already exist: without an external_id (a
   * bulk item written before its job was retried) or after a race; otherwise the external_id,
   * claimed in the same step as the product is written, tells.
   */
  private async currentRecords(tenantId: string, requests: UpsertRequest[], raced: boolean): Promise<(ProductRecord | null)[]> {
    // The product each external_id names: the caller's hint in a first round, else looked up.
    // (Loops, not flatMap: these run per bulk item, and V8's flatMap is slow; store/scriptCalls.ts.)
    const lookups: { k: number; siteId: string; externalId: string }[] = [];
    requests.forEach((r, k) => {
      if (r.input.external_id && (raced || r.knownId === undefined)) lookups.push({ k, siteId: r.siteId, externalId: r.input.external_id });
    });
    const found = await this.repo.idsByExternalIds(tenantId, lookups);
    const named = requests.map((r) => (r.input.external_id ? r.knownId : undefined));
    lookups.forEach(({ k }, j) => (named[k] = found[j]));
    const wanted: { k: number; id: string }[] = [];
    requests.forEach((r, k) => {
      const id = named[k] ?? (!r.input.external_id || raced ? r.id : undefined);
      if (id) wanted.push({ k, id });
    });
    const records = await this.repo.getMany(tenantId, wanted.map((w) => w.id));
    const out: (ProductRecord | null)[] = new Array(requests.length).fill(null);
    wanted.forEach(({ k }, j) => (out[k] = records[j]));
    return out;
  }

  /** The translation group of each new product: the tenant's group for its external_id, or a new one. */
  private async translationGroups(tenantId: string, requests: UpsertRequest[], current: (ProductRecord | null)[], raced: boolean): Promise<(string | null)[]> {
    const out = requests.map((_, k) => current[k]?.doc.translation_group_id ?? null);
    const lookups: { k: number; externalId: string }[] = [];
    requests.forEach((r, k) => {
      if (current[k] || !r.input.external_id) return;
      if (!raced && r.knownId === null && r.knownGroup !== undefined) out[k] = r.knownGroup ?? randomUUID();
      else lookups.push({ k, externalId: r.input.external_id });
    });
    const groups = await this.repo.translationGroupsOf(tenantId, lookups.map((l) => l.externalId));
    lookups.forEach(({ k }, j) => (out[k] = groups[j] ?? randomUUID()));
    return out;
  }
}
