// Replies that carry stored documents as they are: a search answer's products are JSON texts read
// from Redis, written into the reply between the hits' own fields instead of being parsed and
// serialised again.
import type { Reply } from './route.js';

/** A 200 reply of a search answer whose hits carry their document as JSON text under `key`. */
export function answerWithDocuments(answer: { hits: { id: string; score: number; ranks: unknown; documentJson: string }[] }, key: string): Reply {
  const { hits, ...rest } = answer;
  const parts: string[] = [];
  for (const h of hits) parts.push(`{"id":${JSON.stringify(h.id)},"score":${JSON.stringify(h.score)},"ranks":${JSON.stringify(h.ranks)},${JSON.stringify(key)}:${h.documentJson}}`);
  return { status: 200, raw: { contentType: 'application/json', data: `{"hits":[${parts.join(',')}],${JSON.stringify(rest).slice(1)}` } };
}
