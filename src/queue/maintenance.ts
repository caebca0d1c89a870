// The `maintenance` BullMQ queue: background work that follows a write (e.g. purging a deleted site).
import type { Queue } from 'bullmq';
import type { RedisClient } from '../store/redis.js';
import { newQueue } from './connection.js';

export const MAINTENANCE_QUEUE = 'maintenance';
/** Runs of a job that may fail before it is failed for good; also how often it may be found stalled (each kind of job is safe to run again). */
export const MAINTENANCE_ATTEMPTS = 8;

export type MaintenanceJob =
  | { kind: 'purge-site'; tenantId: string; siteId: string }
  /** Write the search projection of a tenant's documents stored without it (store/projectionBackfill.ts). */
  | { kind: 'project-search'; tenantId: string; version: string }
  /**
   * Embed again, with `model`, the tenant's documents whose vectors are of another model
   * (store/reembed.ts); products in a language it does not serve (`languages`, absent from jobs of
   * earlier builds) are marked skipped instead.
   */
  | { kind: 'reembed'; tenantId: string; model: string; languages?: string[] }
  /** Embed, with `model`, the tenant's products skipped in a language it serves (`languages`): store/reembed.ts skippedServed. */
  | { kind: 'embed-skipped'; tenantId: string; model: string; languages: string[] }
  /** Drop the vectors (and Query Engine indexes) of the tenant's documents that search with `model` no longer reads (store/reembed.ts). */
  | { kind: 'drop-stale-vectors'; tenantId: string; model: string };

/** A model id as part of a job id. */
const modelPart = (model: string) => model.replace(/[^\w.-]/g, '_');

export class MaintenanceQueue {
  private readonly queue: Queue<MaintenanceJob>;

  constructor(connection: RedisClient) {
    this.queue = newQueue<MaintenanceJob>(MAINTENANCE_QUEUE, connection, {
      attempts: MAINTENANCE_ATTEMPTS, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: 1000, removeOnFail: 5000,
    });
  }

  /** Idempotent: one purge job per site, whatever the number of calls. */
  async schedulePurge(tenantId: string, siteId: string): Promise<void> {
    await this.queue.add('purge-site', { kind: 'purge-site', tenantId, siteId }, { jobId: `purge-site.${tenantId}.${siteId}` });
  }

  /** Idempotent: one projection job per tenant and projection version. */
  async scheduleProjection(tenantId: string, version: string): Promise<void> {
    await this.queue.add('project-search', { kind: 'project-search', tenantId, version }, { jobId: `project-search.${tenantId}.${version}` });
  }

  /** Idempotent: one re-embed job per tenant and model. */
  async scheduleReembed(tenantId: string, model: string, languages: readonly string[]): Promise<void> {
    await this.queue.add('reembed', { kind: 'reembed', tenantId, model, languages: [...languages] }, { jobId: `reembed.${tenantId}.${modelPart(model)}` });
  }

  /**
   * Embeds the tenant's skipped products that a model of `languages` serves. Not deduplicated: a
   * second run finds none left skipped, and their embed jobs are deduplicated (queue/embed.ts).
   */
  async scheduleEmbedSkipped(tenantId: string, model: string, languages: readonly string[]): Promise<void> {
    await this.queue.add('embed-skipped', { kind: 'embed-skipped', tenantId, model, languages: [...languages] });
  }

  /**
   * After a re-embed has made `model` the tenant's: `delayMs` later, when every server searches
   * with the new model. `once`: one job per tenant and model, whatever the number of calls.
   */
  async scheduleVectorCleanup(tenantId: string, model: string, { delayMs, once }: { delayMs: number; once: boolean }): Promise<void> {
    const jobId = once ? `drop-stale-vectors.${tenantId}.${modelPart(model)}` : undefined;
    await this.queue.add('drop-stale-vectors', { kind: 'drop-stale-vectors', tenantId, model }, { delay: delayMs, jobId });
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
