// Where a tenant's embeddings stand: its documents by embedding status, kept by the scripts that
// set a status (lua/lib/embeddingCounts.lua), and the documents embedded per 10-second bucket,
// counted by storeVectors, for the current rate.
import { EMBEDDING_STATUSES, type EmbeddingStatus } from '../schemas/common.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';

const RATE_BUCKET_MS = 10_000;
/** Buckets kept (five minutes); the rate looks at the last minute. */
const RATE_BUCKETS_KEPT = 30;
const RATE_WINDOW_BUCKETS = 6;

/** The bucket of `nowMs`, and the one a store drops (older than those kept). */
export const rateBuckets = (nowMs: number): { current: number; expired: number } => {
  const current = Math.floor(nowMs / RATE_BUCKET_MS);
  return { current, expired: current - RATE_BUCKETS_KEPT };
};

export type StatusCounts = Record<EmbeddingStatus, number>;

export interface EmbeddingProgress {
  products: StatusCounts;
  entries: StatusCounts;
  /** Documents embedded per second over the last minute. */
  ratePerSecond: number;
}

const zeroCounts = (): StatusCounts => Object.fromEntries(EMBEDDING_STATUSES.map((s) => [s, 0])) as StatusCounts;

export class EmbeddingProgressRepository {
  constructor(private readonly redis: Store) {}

  async read(tenantId: string, nowMs = Date.now()): Promise<EmbeddingProgress> {
    const [counts, rate] = await Promise.all([this.redis.hgetall(keys.embeddingCounts(tenantId)), this.redis.hgetall(keys.embeddingRate(tenantId))]);
    const out: EmbeddingProgress = { products: zeroCounts(), entries: zeroCounts(), ratePerSecond: 0 };
    for (const [field, n] of Object.entries(counts)) {
      const [kind, status] = field.split(':') as ['product' | 'entry', EmbeddingStatus];
      const into = kind === 'entry' ? out.entries : out.products;
      if (status in into) into[status] = Math.max(0, Number(n));
    }
    // The last full minute and the bucket under way, over the time they span.
    const { current } = rateBuckets(nowMs);
    let embedded = 0;
    for (let bucket = current - RATE_WINDOW_BUCKETS; bucket <= current; bucket++) embedded += Number(rate[bucket] ?? 0);
    const seconds = (RATE_WINDOW_BUCKETS * RATE_BUCKET_MS + (nowMs % RATE_BUCKET_MS)) / 1000;
    out.ratePerSecond = Math.round((embedded / seconds) * 10) / 10;
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
