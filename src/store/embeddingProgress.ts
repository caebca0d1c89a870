// Where a tenant's embeddings stand: its documents by embedding status, kept by the scripts that
// set a status (lua/lib/embeddingCounts.lua), and the documents embedded per 1-second bucket,
// counted by storeVectors, for the current rate.
import { EMBEDDING_STATUSES, type EmbeddingStatus } from '../schemas/common.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';

const RATE_BUCKET_MS = 1000;
/** Buckets kept (two minutes); the rate looks at the last minute. */
const RATE_BUCKETS_KEPT = 120;
const RATE_WINDOW_BUCKETS = 60;
/**
 * Empty buckets that end a run of embedding: the worker embeds every second while it runs, and
 * stops while an import runs (workers/embed.ts), or when nothing is pending.
 */
const RATE_GAP_BUCKETS = 3;

/** The bucket of `nowMs`, and the one a store drops (older than those kept). */
export const rateBuckets = (nowMs: number): { current: number; expired: number } => {
  const current = Math.floor(nowMs / RATE_BUCKET_MS);
  return { current, expired: current - RATE_BUCKETS_KEPT };
};

export type StatusCounts = Record<EmbeddingStatus, number>;

export interface EmbeddingProgress {
  products: StatusCounts;
  entries: StatusCounts;
  /** Documents embedded per second in the latest run of embedding within the last minute (ratePerSecond). */
  ratePerSecond: number;
}

/**
 * The current rate: documents per second over the latest run of embedding within the last minute
 * (the buckets since the worker last started after a pause), not over the whole minute. Right
 * after a large import the worker has only just begun (it waits while imports run), and a minute's
 * average then said 20,000 s for work done in 50. `counts` are documents by bucket number.
 */
export function currentRate(counts: Record<string, string>, nowMs: number): number {
  const { current } = rateBuckets(nowMs);
  const count = (bucket: number) => Number(counts[bucket] ?? 0);
  let last = current;
  while (last > current - RATE_WINDOW_BUCKETS && count(last) === 0) last--;
  if (count(last) === 0) return 0;
  let first = last;
  let embedded = count(last);
  for (let bucket = last - 1, gap = 0; bucket > current - RATE_WINDOW_BUCKETS && gap < RATE_GAP_BUCKETS; bucket--) {
    if (count(bucket) === 0) gap++;
    else {
      gap = 0;
      first = bucket;
      embedded += count(bucket);
    }
  }
  // The run's time: from its first bucket to now (the bucket under way counts as far as it went), at least a second.
  const endMs = last === current ? nowMs : (last + 1) * RATE_BUCKET_MS;
  const seconds = Math.max(1, (endMs - first * RATE_BUCKET_MS) / 1000);
  return Math.round((embedded / seconds) * 10) / 10;
}

const zeroCounts = (): StatusCounts => Object.fromEntries(EMBEDDING_STATUSES.map((s) => [s, 0])) as StatusCounts;

export class EmbeddingProgressRepository {
  constructor(private readonly redis: Store) {}

  async read(tenantId: string, nowMs = Date.now()): Promise<EmbeddingProgress> {
    const [counts, rate] = await Promise.all([this.redis.hgetall(keys.embeddingCounts(tenantId)), this.redis.hgetall(keys.embeddingRate(tenantId))]);
    const out: EmbeddingProgress = { products: zeroCounts(), entries: zeroCounts(), ratePerSecond: 0 };
    for (const [field, n] of Object.entries(counts)) {
      // `product:skipped:<language>` (store/docs.ts) counts as skipped.
      const [kind, status] = field.split(':') as ['product' | 'entry', EmbeddingStatus];
      const into = kind === 'entry' ? out.entries : out.products;
      if (status in into) into[status] += Math.max(0, Number(n));
    }
    out.ratePerSecond = currentRate(rate, nowMs);
    return out;
  }

  /**
   * The tenant's products skipped without vectors, by the base language they were skipped for
   * ('' for those written while embedding was off, whose language the counts do not tell).
   */
  async skippedProducts(tenantId: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const [field, n] of Object.entries(await this.redis.hgetall(keys.embeddingCounts(tenantId)))) {
      const [kind, status, language] = field.split(':');
      if (kind === 'product' && status === 'skipped' && Number(n) > 0) out.set(language ?? '', Number(n));
    }
    return out;
  }

  /** Sets the counts from the documents' statuses as stored (once, for data stored before they were kept). */
  async recount(tenantId: string, statuses: { kind: 'product' | 'entry'; status: string | null }[]): Promise<void> {
    const tally = new Map<string, number>();
    for (const { kind, status } of statuses) if (status) tally.set(`${kind}:${status}`, (tally.get(`${kind}:${status}`) ?? 0) + 1);
    const key = keys.embeddingCounts(tenantId);
    const multi = this.redis.multi().del(key);
    if (tally.size > 0) multi.hset(key, Object.fromEntries(tally));
    await multi.exec();
  }
}
