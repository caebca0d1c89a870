// Bulk ingest jobs: a status hash, the accepted items (a list, removed when done), per-item
// results (first write wins, so retries never double-count) and counters.
import { keys } from './keys.js';
import type { Store } from './redis.js';

export const JOB_TTL_SECONDS = 7 * 24 * 3600;

export interface ItemError {
  index: number;
  detail: unknown;
}

/** One accepted item as stored: original index, the id pinned for it, the validated input. */
export interface StoredItem<T> {
  index: number;
  id: string;
  input: T;
}

export interface JobRecord {
  id: string;
  siteId: string;
  source: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  total: number;
  accepted: number;
  rejected: number;
  created_at: string;
  finished_at: string | null;
  counts: Record<string, number>;
  errors: ItemError[];
}

export class JobRepository {
  constructor(private readonly redis: Store) {}

  async create<T>(tenantId: string, job: { id: string; siteId: string; source: string; total: number; rejected: ItemError[]; createdAt: string }, items: StoredItem<T>[]): Promise<void> {
    const t = tenantId;
    const multi = this.redis.multi();
    for (let i = 0; i < items.length; i += 1000) {
      multi.rpush(keys.jobItems(t, job.id), ...items.slice(i, i + 1000).map((item) => JSON.stringify(item)));
    }
    if (job.rejected.length > 0) multi.rpush(keys.jobErrors(t, job.id), ...job.rejected.map((e) => JSON.stringify(e)));
    multi.hset(keys.job(t, job.id), {
      id: job.id, site: job.siteId, source: job.source, status: items.length > 0 ? 'queued' : 'completed',
      total: job.total, accepted: items.length, rejected: job.rejected.length, created_at: job.createdAt,
      finished_at: items.length > 0 ? '' : job.createdAt,
    });
    multi.hset(keys.jobCounts(t, job.id), 'rejected', job.rejected.length);
    for (const key of [keys.job(t, job.id), keys.jobCounts(t, job.id), keys.jobErrors(t, job.id), keys.jobResults(t, job.id), keys.jobItems(t, job.id)]) {
      multi.expire(key, JOB_TTL_SECONDS);
    }
    await multi.exec();
  }

  async get(tenantId: string, id: string): Promise<JobRecord | null> {
    const [job, counts, errors] = await Promise.all([
      this.redis.hgetall(keys.job(tenantId, id)),
      this.redis.hgetall(keys.jobCounts(tenantId, id)),
      this.redis.lrange(keys.jobErrors(tenantId, id), 0, -1),
    ]);
    if (!job.id) return null;
    return {
      id: job.id,
      siteId: job.site,
      source: job.source,
      status: job.status as JobRecord['status'],
      total: Number(job.total),
      accepted: Number(job.accepted),
      rejected: Number(job.rejected),
      created_at: job.created_at,
      finished_at: job.finished_at || null,
      counts: Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Number(v)])),
      errors: errors.map((e) => JSON.parse(e) as ItemError).sort((a, b) => a.index - b.index),
    };
  }

  async items<T>(tenantId: string, id: string, start: number, count: number): Promise<StoredItem<T>[]> {
    const raws = await this.redis.lrange(keys.jobItems(tenantId, id), start, start + count - 1);
    return raws.map((raw) => JSON.parse(raw) as StoredItem<T>);
  }

  /** Which of these item indexes already have a result (a retry skips them). */
  async done(tenantId: string, id: string, indexes: number[]): Promise<boolean[]> {
    if (indexes.length === 0) return [];
    const values = await this.redis.hmget(keys.jobResults(tenantId, id), ...indexes.map(String));
    return values.map((v) => v !== null);
  }

  async setStatus(tenantId: string, id: string, status: JobRecord['status']): Promise<void> {
    const finished = status === 'completed' || status === 'failed';
    await this.redis.hset(keys.job(tenantId, id), { status, ...(finished ? { finished_at: new Date().toISOString() } : {}) });
    if (finished) await this.redis.unlink(keys.jobItems(tenantId, id));
  }

  /** An item that could not be stored: counted once as failed, with its error. */
  async fail(tenantId: string, id: string, index: number, detail: unknown): Promise<void> {
    if ((await this.redis.hsetnx(keys.jobResults(tenantId, id), String(index), 'failed')) === 1) {
      await this.redis.multi().hincrby(keys.jobCounts(tenantId, id), 'failed', 1).rpush(keys.jobErrors(tenantId, id), JSON.stringify({ index, detail })).exec();
    }
  }

  async count(tenantId: string, id: string, field: string, by: number): Promise<void> {
    if (by !== 0) await this.redis.hincrby(keys.jobCounts(tenantId, id), field, by);
  }
}
