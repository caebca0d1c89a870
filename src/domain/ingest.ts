// Bulk import (DESIGN §4): every item is checked at once, invalid ones are reported and never
// block valid ones; the accepted ones are stored with the job, as the JSON text they came in, and
// written by the `ingest` worker chunk by chunk. Item results are recorded once, so a retried job
// counts each item once.
import { hash, randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Static } from '@sinclair/typebox';
import { IngestJob, ProductCreate } from '../schemas/products.js';
import { validationErrors } from '../schemas/validate.js';
import type { AuditActor } from '../store/audit.js';
import type { ItemChunk, ItemError, JobRecord, JobRepository } from '../store/jobs.js';
import { NotFoundError } from './errors.js';
import type { ProductInput, ProductService, UpsertOutcome, UpsertRequest } from './products.js';
import { etaSeconds, type EmbeddingStatusService } from './embedding.js';
import type { CheckedLines } from './checkedLines.js';

export type IngestJobView = Static<typeof IngestJob>;

export const MAX_BULK_ITEMS = 10_000;
/** Items stored per chunk, and written per round by the worker. */
const CHUNK = 500;
/**
 * Items checked before the accept step lets the event loop run: checking a full request takes the
 * serve process ~100–150 ms, and every search and read it serves would wait that long behind it.
 */
const CHECKS_PER_TURN = 500;

/** A bulk item whose NDJSON line is no JSON: reported as it is, never validated. */
export const NOT_JSON: unique symbol = Symbol('not JSON');
const NOT_JSON_DETAIL: ItemError['detail'] = [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }];

/** A bulk request's items and, for NDJSON, each one's line as received. */
export interface BulkItems {
  count: number;
  /**
   * Item `index`, or NOT_JSON. An NDJSON item is parsed on each call, as it is checked, and dropped
   * after, so none of a request's thousands of objects outlives its check (they would survive the
   * young generation's collections, be copied and promoted: the accept path's largest GC cost); a
   * JSON array's items are parsed with the body.
   */
  item(index: number): unknown;
  /** The JSON text of each item as received (null for a JSON-array body: accepted items are serialised again). */
  lines: Buffer[] | null;
  /** The body's text holds no surrogate (ValueOrigin.surrogateFree). */
  surrogateFree: boolean;
}

/** Starts the worker's run of a stored job. */
export type IngestScheduler = (tenantId: string, jobId: string) => Promise<void>;
/** Embeds the products of a job whose texts changed, counting them in the job's progress. */
export type JobEmbeddingScheduler = (tenantId: string, jobId: string, items: { productId: string; textHash: string }[]) => Promise<void>;

/**
 * What an item must equal to be settled without reading its product: the source it is written
 * with and the exact JSON text (the same text gives the same product, so nothing can change).
 */
const itemDigest = (source: string, line: Buffer) => `${source}:${hash('sha1', line, 'base64')}`;

export interface IngestServiceOptions {
  jobs: JobRepository;
  products: ProductService;
  schedule: IngestScheduler;
  /** Null when this process embeds nothing. */
  embed: JobEmbeddingScheduler | null;
  /** The tenant's embedding rate, for a job's progress. */
  embeddingStatus: EmbeddingStatusService;
  /** Bulk lines found valid lately: one sent again skips its parse and check. */
  checkedLines: CheckedLines;
}

export class IngestService {
  constructor(private readonly deps: IngestServiceOptions) {}

  /**
   * Checks every item, stores the accepted ones in chunks, queues the job. The request is one
   * audit event (a bulk_job created, with its item counts); its items are none of their own.
   */
  async accept(tenantId: string, { siteId, body, source }: { siteId: string; body: BulkItems; source: string }, actor: AuditActor) {
    const errors: ItemError[] = [];
    const chunks: ItemChunk[] = [];
    let chunk: ItemChunk | null = null;
    const checked = this.deps.checkedLines;
    for (let index = 0; index < body.count; index++) {
      if (index > 0 && index % CHECKS_PER_TURN === 0) await nextTurn();
      // An NDJSON line is known by its bytes; a JSON array's items have none of their own.
      const line = body.lines?.[index];
      const key = line ? checked.keyOf(line) : null;
      let externalId = key === null ? undefined : checked.externalIdOf(key);
      if (externalId === undefined) {
        const item = body.item(index);
        if (item === NOT_JSON) {
          errors.push({ index, detail: NOT_JSON_DETAIL });
          continue;
        }
        const problems = validationErrors(ProductCreate, item, { root: 'body', surrogateFree: body.surrogateFree });
        if (problems) {
          errors.push({ index, detail: problems });
          continue;
        }
        externalId = (item as ProductInput).external_id || '';
        if (key !== null) checked.add(key, externalId);
      }
      if (!chunk || chunk.lines.length === CHUNK) chunks.push((chunk = { indexes: [], ids: [], externalIds: [], lines: [] }));
      chunk.indexes.push(index);
      // The worker draws the ids of the others (ItemChunk): 10,000 UUIDs less for this process per request.
      chunk.ids.push(externalId ? '' : randomUUID());
      chunk.externalIds.push(externalId);
      chunk.lines.push(line ?? Buffer.from(JSON.stringify(body.item(index))));
    }
    const id = randomUUID();
    await this.deps.jobs.create(tenantId, { id, siteId, source, total: body.count, rejected: errors, createdAt: new Date().toISOString() }, { chunks, actor });
    const accepted = body.count - errors.length;
    if (accepted > 0) await this.deps.schedule(tenantId, id);
    return { job_id: id, accepted, rejected: errors.length, errors };
  }

  /** The worker's part: writes every item not yet done, chunk by chunk; safe to run again after a crash. */
  async run(tenantId: string, jobId: string): Promise<void> {
    const job = await this.deps.jobs.get(tenantId, jobId);
    if (!job || job.status === 'completed') return;
    // A job found running was begun by a worker that died: items it stored are skipped.
    const resumed = job.status === 'running';
    await this.deps.jobs.setStatus(tenantId, jobId, 'running');
    // The next chunk is read while this one is written.
    let next = this.deps.jobs.chunk(tenantId, jobId, 0);
    // A chunk's embeddings are queued while the next chunk is written; each is in before the job completes.
    let queued: Promise<void> = Promise.resolve();
    for (let n = 1; ; n++) {
      const chunk = await next;
      if (!chunk) break;
      next = this.deps.jobs.chunk(tenantId, jobId, n);
      next.catch(() => undefined); // awaited in the next turn; a failure must not go unhandled meanwhile
      const outcomes = await this.writeChunk(tenantId, job, resumed ? await this.notDone(tenantId, jobId, chunk) : chunk);
      const toEmbed = outcomes.filter((o) => o.embed);
      await queued;
      if (toEmbed.length > 0 && this.deps.embed) {
        queued = this.deps.embed(tenantId, jobId, toEmbed.map((o) => ({ productId: o.id, textHash: o.textHash })));
        queued.catch(() => undefined); // awaited in the next turn or below
      }
    }
    await queued;
    await this.deps.jobs.setStatus(tenantId, jobId, 'completed');
  }

  /** The items of a chunk that have no result yet. */
  private async notDone(tenantId: string, jobId: string, chunk: ItemChunk): Promise<ItemChunk> {
    const done = await this.deps.jobs.done(tenantId, jobId, chunk.indexes);
    const keep = (_: unknown, k: number) => !done[k];
    return { indexes: chunk.indexes.filter(keep), ids: chunk.ids.filter(keep), externalIds: chunk.externalIds.filter(keep), lines: chunk.lines.filter(keep) };
  }

  /**
   * One chunk: the items sent exactly as last applied are settled as unchanged without reading
   * their products; the others go through the full upsert.
   */
  private async writeChunk(tenantId: string, job: JobRecord, chunk: ItemChunk): Promise<UpsertOutcome[]> {
    const digests = chunk.lines.map((line) => itemDigest(job.source, line));
    const jobItem = (k: number) => ({ jobId: job.id, index: chunk.indexes[k] });
    const seen = new Map<string, number>();
    for (const ext of chunk.externalIds) if (ext) seen.set(ext, (seen.get(ext) ?? 0) + 1);
    // An external_id sent twice in a chunk: the later item must see what the earlier one wrote.
    const candidates: number[] = [];
    chunk.externalIds.forEach((ext, k) => {
      if (ext && seen.get(ext) === 1) candidates.push(k);
    });
    const settled = await this.deps.products.settleUnchanged(tenantId, {
      siteId: job.siteId, jobId: job.id, items: candidates.map((k) => ({ externalId: chunk.externalIds[k], itemDigest: digests[k], index: chunk.indexes[k] })),
    });
    const found = new Map(candidates.map((k, j) => [k, settled[j]]));
    const requests: UpsertRequest[] = [];
    chunk.lines.forEach((line, k) => {
      const settle = found.get(k);
      if (settle && settle.result !== 'unsettled') return;
      // Checked against ProductCreate when accepted; defaults are applied where the product is built.
      const input = JSON.parse(line.toString('utf8')) as ProductInput;
      requests.push({
        siteId: job.siteId, input, source: job.source, id: chunk.ids[k] || undefined, jobItem: jobItem(k), itemDigest: digests[k],
        knownId: settle?.id, knownGroup: settle?.id === null ? settle.group : undefined,
      });
    });
    return requests.length > 0 ? this.write(tenantId, job.id, requests) : [];
  }

  /** One round; when it fails as a whole, item by item, so one bad item cannot fail the others. */
  private async write(tenantId: string, jobId: string, requests: UpsertRequest[]): Promise<UpsertOutcome[]> {
    try {
      return await this.deps.products.upsertMany(tenantId, requests);
    } catch {
      const outcomes: UpsertOutcome[] = [];
      for (const request of requests) {
        try {
          outcomes.push(...(await this.deps.products.upsertMany(tenantId, [request])));
        } catch (error) {
          await this.deps.jobs.fail(tenantId, jobId, { index: request.jobItem!.index, detail: error instanceof Error ? error.message : String(error) });
        }
      }
      return outcomes;
    }
  }

  async view(tenantId: string, jobId: string): Promise<IngestJobView> {
    const [job, ratePerSecond] = await Promise.all([this.deps.jobs.get(tenantId, jobId.toLowerCase()), this.deps.embeddingStatus.ratePerSecond(tenantId)]);
    if (!job) throw new NotFoundError('Job not found');
    return viewOf(job, ratePerSecond);
  }

  /** The tenant's latest jobs (created in the last 7 days), newest first, without their item errors. */
  async recent(tenantId: string, limit: number): Promise<Omit<IngestJobView, 'errors'>[]> {
    const [ids, ratePerSecond] = await Promise.all([this.deps.jobs.recent(tenantId, limit), this.deps.embeddingStatus.ratePerSecond(tenantId)]);
    // A job expired since it was listed (null) is left out; any other failure (Redis down) is the answer's.
    const jobs = await Promise.all(ids.map((id) => this.deps.jobs.get(tenantId, id)));
    return jobs.filter((job): job is JobRecord => job !== null).map((job) => {
      const { errors: _errors, ...view } = viewOf(job, ratePerSecond);
      return view;
    });
  }

  /**
   * The job once its items are stored (completed or failed), or as it is after `timeoutMs`. Only
   * the status is read while waiting, ever less often (10 ms doubling to 250 ms): a small job
   * answers soon, a long one costs a few reads a second.
   */
  async waitFor(tenantId: string, jobId: string, timeoutMs: number): Promise<IngestJobView> {
    const deadline = Date.now() + timeoutMs;
    for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
      const status = await this.deps.jobs.status(tenantId, jobId.toLowerCase());
      if (status === null) throw new NotFoundError('Job not found');
      const left = deadline - Date.now();
      if (status === 'completed' || status === 'failed' || left <= 0) return this.view(tenantId, jobId);
      await new Promise((r) => setTimeout(r, Math.min(pause, left)));
    }
  }
}

/** A job as the API shows it, with its ETA at the tenant's embedding rate. */
function viewOf(job: JobRecord, ratePerSecond: number): IngestJobView {
  const c = (name: string) => job.counts[name] ?? 0;
  const embedded = c('embed_done') + c('embed_failed');
  const pending = Math.max(0, c('embed_scheduled') - embedded);
  return {
    id: job.id,
    status: job.status,
    total: job.total,
    counts: { created: c('created'), updated: c('updated'), unchanged: c('unchanged'), failed: c('failed'), rejected: c('rejected') },
    errors: job.errors,
    embedding: { pending, done: c('embed_done'), failed: c('embed_failed'), rate_per_s: ratePerSecond, eta_s: etaSeconds(pending, ratePerSecond) },
    created_at: job.created_at,
    finished_at: job.finished_at,
  };
}
