// Replies that carry stored documents as they are: a search answer's products are JSON texts read
// from Redis, written into the reply between the hits' own fields instead of being parsed and
// serialised again.
import type { Reply } from './route.js';

/** A 200 reply of a search answer whose hits carry their document as JSON text under `key`. */
export function answerWithDocuments(answer: { hits: DocumentHit[] }, key: string): Reply {
  return { status: 200, raw: { contentType: 'application/json', data: answerText(answer, key) } };
}

/** A hit whose document is JSON text; `highlight` where the search asked for it, `pinned` where a rule placed it. */
export interface DocumentHit {
  id: string;
  score: number;
  ranks: unknown;
  documentJson: string;
  highlight?: unknown;
  pinned?: boolean;
}

/** The JSON text of a search answer whose hits carry their document as JSON text under `key`. */
export function answerText(answer: { hits: DocumentHit[] }, key: string): string {
  const { hits, ...rest } = answer;
  const parts: string[] = [];
  for (const h of hits) {
    const highlight = h.highlight === undefined ? '' : `,"highlight":${JSON.stringify(h.highlight)}`;
    const pinned = h.pinned ? ',"pinned":true' : '';
    parts.push(`{"id":${JSON.stringify(h.id)},"score":${JSON.stringify(h.score)},"ranks":${JSON.stringify(h.ranks)},${JSON.stringify(key)}:${h.documentJson}${highlight}${pinned}}`);
  }
  return `{"hits":[${parts.join(',')}],${JSON.stringify(rest).slice(1)}`;
}
