// Bulk import (DESIGN §4): every item is checked at once, invalid ones are reported and never
// block valid ones; the accepted ones are stored with the job and written by the `ingest` worker
// in pipelined rounds. Item results are recorded once, so a retried job counts each item once.
import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { IngestJob, ProductCreate } from '../schemas/products.js';
import { validate } from '../schemas/validate.js';
import type { ItemError, JobRepository, StoredItem } from '../store/jobs.js';
import { NotFoundError } from './errors.js';
import type { ProductInput, ProductService, UpsertOutcome } from './products.js';

export type IngestJobView = Static<typeof IngestJob>;

export const MAX_BULK_ITEMS = 10_000;
/** Items written per pipelined round. */
const CHUNK = 500;

/** Starts the worker's run of a stored job. */
export type IngestScheduler = (tenantId: string, jobId: string) => Promise<void>;
/** Embeds the products of a job whose texts changed, counting them in the job's progress. */
export type JobEmbeddingScheduler = (tenantId: string, jobId: string, items: { productId: string; thash: string }[]) => Promise<void>;

export class IngestService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly products: ProductService,
    private readonly schedule: IngestScheduler,
    private readonly embed: JobEmbeddingScheduler | null,
  ) {}

  /** Checks every item (parse errors come in as `failedParses`), stores the accepted ones, queues the job. */
  async accept(tenantId: string, siteId: string, items: unknown[], failedParses: ItemError[], source: string) {
    const errors: ItemError[] = [...failedParses];
    const accepted: StoredItem<ProductInput>[] = [];
    const failedIndexes = new Set(failedParses.map((e) => e.index));
    items.forEach((item, index) => {
      if (failedIndexes.has(index)) return;
      const result = validate<ProductInput>(ProductCreate, item, 'body');
      if (result.ok) accepted.push({ index, id: randomUUID(), input: result.value });
      else errors.push({ index, detail: result.errors });
    });
    errors.sort((a, b) => a.index - b.index);
    const id = randomUUID();
    await this.jobs.create(tenantId, { id, siteId, source, total: items.length, rejected: errors, createdAt: new Date().toISOString() }, accepted);
    if (accepted.length > 0) await this.schedule(tenantId, id);
    return { job_id: id, accepted: accepted.length, rejected: errors.length, errors };
  }

  /** The worker's part: writes every item not yet done, in rounds; safe to run again after a crash. */
  async run(tenantId: string, jobId: string): Promise<void> {
    const job = await this.jobs.get(tenantId, jobId);
    if (!job || job.status === 'completed') return;
    await this.jobs.setStatus(tenantId, jobId, 'running');
    for (let start = 0; start < job.accepted; start += CHUNK) {
      const items = await this.jobs.items<ProductInput>(tenantId, jobId, start, CHUNK);
      const done = await this.jobs.done(tenantId, jobId, items.map((i) => i.index));
      const todo = items.filter((_, k) => !done[k]);
      if (todo.length === 0) continue;
      const outcomes = await this.write(tenantId, job.siteId, job.source, jobId, todo);
      const toEmbed = outcomes.filter((o) => o.embed);
      if (toEmbed.length > 0 && this.embed) await this.embed(tenantId, jobId, toEmbed.map((o) => ({ productId: o.id, thash: o.thash })));
    }
    await this.jobs.setStatus(tenantId, jobId, 'completed');
  }

  /** One round; when it fails as a whole, item by item, so one bad item cannot fail the others. */
  private async write(tenantId: string, siteId: string, source: string, jobId: string, items: StoredItem<ProductInput>[]): Promise<UpsertOutcome[]> {
    const request = (item: StoredItem<ProductInput>) => ({ siteId, input: item.input, source, id: item.id, jobItem: { jobId, index: item.index } });
    try {
      return await this.products.upsertMany(tenantId, items.map(request));
    } catch {
      const outcomes: UpsertOutcome[] = [];
      for (const item of items) {
        try {
          outcomes.push(...(await this.products.upsertMany(tenantId, [request(item)])));
        } catch (error) {
          await this.jobs.fail(tenantId, jobId, item.index, error instanceof Error ? error.message : String(error));
        }
      }
      return outcomes;
    }
  }

  async view(tenantId: string, jobId: string): Promise<IngestJobView> {
    const job = await this.jobs.get(tenantId, jobId.toLowerCase());
    if (!job) throw new NotFoundError('Job not found');
    const c = (name: string) => job.counts[name] ?? 0;
    const embedded = c('embed_done') + c('embed_failed');
    return {
      id: job.id,
      status: job.status,
      total: job.total,
      counts: { created: c('created'), updated: c('updated'), unchanged: c('unchanged'), failed: c('failed'), rejected: c('rejected') },
      errors: job.errors,
      embedding: { pending: Math.max(0, c('embed_scheduled') - embedded), done: c('embed_done'), failed: c('embed_failed') },
      created_at: job.created_at,
      finished_at: job.finished_at,
    };
  }

  /** The job once its items are stored (completed or failed), or as it is after `timeoutMs`. */
  async waitFor(tenantId: string, jobId: string, timeoutMs: number): Promise<IngestJobView> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const view = await this.view(tenantId, jobId);
      if (view.status === 'completed' || view.status === 'failed' || Date.now() >= deadline) return view;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
