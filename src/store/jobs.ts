// Bulk ingest jobs: a status hash, the accepted items (a list of chunks, removed when done),
// per-item results (first write wins, so retries never double-count; a byte per item,
// lua/lib/jobResults.lua) and counters.
import type { AuditActor } from './audit.js';
import { appendAudit } from './auditLog.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';
import type { JOB_STATUSES } from '../schemas/products.js';

export const JOB_TTL_SECONDS = 7 * 24 * 3600;

export interface ItemError {
  index: number;
  detail: unknown;
}

/**
 * Accepted items as stored, a few hundred per list element: for each its index in the request,
 * the id pinned for it ('' none), its external_id ('' none) and its JSON text exactly as
 * received, as bytes (one line: JSON text holds no raw newline). Only an item without an
 * external_id has an id pinned: a retried job finds the product such an item created by that id
 * alone, while an external_id, claimed in the same write as its product, finds its product anyway.
 */
export interface ItemChunk {
  indexes: number[];
  ids: string[];
  externalIds: string[];
  lines: Buffer[];
}

const NEWLINE = Buffer.from('\n');
/** An item's byte in the job's results while it has none, and the byte of each result (as lua/lib/jobResults.lua writes them). */
const NO_RESULT = '\0';
const RESULT_CODES: Record<string, string> = { created: 'c', updated: 'u', unchanged: 'n', failed: 'f' };

/** The bytes of item results given as index → result name (layout 3's hash, store/layoutMigration.ts); none: one NO_RESULT byte. */
export function resultBytes(results: Record<string, string>): Buffer {
  const indexes = Object.keys(results).map(Number);
  const bytes = Buffer.alloc(Math.max(0, ...indexes) + 1);
  // A result this build has no byte for still is one: the item is done.
  for (const index of indexes) bytes.write(RESULT_CODES[results[index]] ?? '?', index, 'latin1');
  return bytes;
}

/** A header line (JSON: indexes, ids, external ids), then one line per item. */
function encodeChunk(chunk: ItemChunk): Buffer {
  const parts: Buffer[] = [Buffer.from(JSON.stringify({ i: chunk.indexes, id: chunk.ids, e: chunk.externalIds }))];
  for (const line of chunk.lines) parts.push(NEWLINE, line);
  return Buffer.concat(parts);
}

function decodeChunk(raw: Buffer): ItemChunk {
  let end = raw.indexOf(10);
  const header = JSON.parse(raw.toString('utf8', 0, end)) as { i: number[]; id: string[]; e: string[] };
  const lines: Buffer[] = [];
  while (end < raw.length) {
    const start = end + 1;
    end = raw.indexOf(10, start);
    if (end === -1) end = raw.length;
    lines.push(raw.subarray(start, end));
  }
  return { indexes: header.i, ids: header.id, externalIds: header.e, lines };
}

export interface JobRecord {
  id: string;
  siteId: string;
  source: string;
  status: (typeof JOB_STATUSES)[number];
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

  /** Stores the job with its audit event, written by `actor`. */
  async create(
    tenantId: string,
    job: { id: string; siteId: string; source: string; total: number; rejected: ItemError[]; createdAt: string },
    { chunks, actor }: { chunks: ItemChunk[]; actor: AuditActor },
  ): Promise<void> {
    const t = tenantId;
    const accepted = chunks.reduce((sum, c) => sum + c.lines.length, 0);
    const multi = this.redis.multi();
    if (chunks.length > 0) {
      multi.rpush(keys.jobItems(t, job.id), ...chunks.map(encodeChunk));
      // A zero byte per item, none with a result yet: the key exists now, so it takes the TTL below.
      multi.setrange(keys.jobResults(t, job.id), job.total - 1, NO_RESULT);
    }
    if (job.rejected.length > 0) multi.rpush(keys.jobErrors(t, job.id), ...job.rejected.map((e) => JSON.stringify(e)));
    multi.hset(keys.job(t, job.id), {
      id: job.id, site: job.siteId, source: job.source, status: accepted > 0 ? 'queued' : 'completed',
      total: job.total, accepted, rejected: job.rejected.length, created_at: job.createdAt,
      finished_at: accepted > 0 ? '' : job.createdAt,
    });
    multi.hset(keys.jobCounts(t, job.id), 'rejected', job.rejected.length);
    for (const key of [keys.job(t, job.id), keys.jobCounts(t, job.id), keys.jobErrors(t, job.id), keys.jobResults(t, job.id), keys.jobItems(t, job.id)]) {
      multi.expire(key, JOB_TTL_SECONDS);
    }
    const createdMs = Date.parse(job.createdAt);
    multi.zadd(keys.jobs(t), createdMs, job.id).zremrangebyscore(keys.jobs(t), '-inf', createdMs - JOB_TTL_SECONDS * 1000);
    const details = { site_id: job.siteId, total: job.total, accepted, rejected: job.rejected.length };
    await appendAudit(multi, t, { actor, event: { action: 'create', entityType: 'bulk_job', entityId: job.id, details } }).exec();
  }

  /** The ids of the tenant's latest jobs, newest first (some may have expired since). */
  recent(tenantId: string, limit: number): Promise<string[]> {
    return this.redis.zrevrange(keys.jobs(tenantId), 0, limit - 1);
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

  async status(tenantId: string, id: string): Promise<JobRecord['status'] | null> {
    return (await this.redis.hget(keys.job(tenantId, id), 'status')) as JobRecord['status'] | null;
  }

  /** Chunk `n` of the job's accepted items; null past the last (or once the job is done). */
  async chunk(tenantId: string, id: string, n: number): Promise<ItemChunk | null> {
    const raw = await this.redis.lindexBuffer(keys.jobItems(tenantId, id), n);
    return raw === null ? null : decodeChunk(raw);
  }

  /** Which of these item indexes already have a result (a resumed job skips them). */
  async done(tenantId: string, id: string, indexes: number[]): Promise<boolean[]> {
    if (indexes.length === 0) return [];
    const first = Math.min(...indexes);
    const bytes = await this.redis.getrangeBuffer(keys.jobResults(tenantId, id), first, Math.max(...indexes));
    return indexes.map((index) => (bytes[index - first] ?? 0) !== 0);
  }

  async setStatus(tenantId: string, id: string, status: JobRecord['status']): Promise<void> {
    const finished = status === 'completed' || status === 'failed';
    await this.redis.hset(keys.job(tenantId, id), { status, ...(finished ? { finished_at: new Date().toISOString() } : {}) });
    if (finished) await this.redis.unlink(keys.jobItems(tenantId, id));
  }

  /** An item that could not be stored: counted once as failed, with its error. */
  async fail(tenantId: string, id: string, { index, detail }: ItemError): Promise<void> {
    await this.redis.failJobItem(keys.jobResults(tenantId, id), keys.jobCounts(tenantId, id), keys.jobErrors(tenantId, id), index, JSON.stringify({ index, detail }));
  }

  /** Adds `by` to one of the job's counters. */
  async count(tenantId: string, id: string, { field, by }: { field: string; by: number }): Promise<void> {
    if (by !== 0) await this.redis.hincrby(keys.jobCounts(tenantId, id), field, by);
  }
}
