import { EMBEDDING_STATUSES, type EmbeddingStatus } from '../schemas/common.js';
import type { RedisClient } from './redis.js';

/** Documents are JSON strings under their own key; a sorted set (score = created ms) orders them. */
export async function readDoc<T>(redis: RedisClient, key: string): Promise<T | null> {
  const raw = await redis.get(key);
  return raw === null ? null : (JSON.parse(raw) as T);
}

/** A window of a list: `limit` items after `offset` (the wire's offset/limit; limit -1: to the end). */
export interface Page {
  offset: number;
  limit: number;
}
/** The whole list (operator tools, short lists). */
export const WHOLE: Page = { offset: 0, limit: -1 };

/** A page of documents in (created_at, id) order, with the total count. */
export async function listDocs<T>(
  redis: RedisClient,
  { indexKey, docKey }: { indexKey: string; docKey: (id: string) => string },
  { offset, limit }: Page = WHOLE,
): Promise<{ items: T[]; total: number }> {
  const [ids, total] = await Promise.all([
    redis.zrange(indexKey, String(offset), String(limit < 0 ? -1 : offset + limit - 1)),
    redis.zcard(indexKey),
  ]);
  if (ids.length === 0) return { items: [], total };
  const raws = await redis.mget(ids.map(docKey));
  // A document deleted between the two reads is simply skipped.
  const items = raws.filter((raw): raw is string => raw !== null).map((raw) => JSON.parse(raw) as T);
  return { items, total };
}

/** A document's stored embedding status; none yet (or one this version does not know) is pending. */
export const embeddingStatusOf = (raw: string | null): EmbeddingStatus =>
  (EMBEDDING_STATUSES as readonly (string | null)[]).includes(raw) ? (raw as EmbeddingStatus) : 'pending';

/**
 * A product's embedding status as stored: a product the model does not embed for its language is
 * `skipped:<base language>`, so the counts (store/embeddingProgress.ts) tell per language what a
 * model serving it has to embed (store/reembed.ts); plain `skipped` was written with embedding off.
 */
export type StoredEmbeddingStatus = EmbeddingStatus | `skipped:${string}`;

/** The stored status of a product skipped because the model does not serve its language. */
export const skippedForLanguage = (language: string): StoredEmbeddingStatus => `skipped:${language.slice(0, 2).toLowerCase()}`;

/** The base language a stored status skipped a product for (null: not skipped for its language). */
export const skippedLanguageOf = (status: string | null): string | null => (status?.startsWith('skipped:') ? status.slice('skipped:'.length) : null);

/** A product's stored embedding status as read (embeddingStatusOf, keeping a language it was skipped for). */
export const storedEmbeddingStatusOf = (raw: string | null): StoredEmbeddingStatus =>
  skippedLanguageOf(raw) !== null ? (raw as StoredEmbeddingStatus) : embeddingStatusOf(raw);
