// FT.SEARCH and FT.AGGREGATE replies in every shape a connection can deliver them: RESP2 (flat
// arrays led by the total), RESP3 as ioredis's default "legacy" mapping gives it (a map flattened
// to [key, value, …]), and RESP3 with ioredis's `replyMapping: 'resp3'` (plain objects). The shape
// is read from the reply itself, so the adapter works on whatever protocol its connection speaks.

/** One row of a reply: the document key (FT.SEARCH), its score when asked for, its fields. */
export interface ReplyRow {
  key: string;
  score: number | null;
  fields: Map<string, string>;
}

export interface ParsedReply {
  total: number;
  rows: ReplyRow[];
}

export interface SearchReplyShape {
  /** The query asked for WITHSCORES (RESP2 puts a score after each key). */
  withScores: boolean;
  /** The query asked for NOCONTENT (RESP2 then has no field list after each key). */
  noContent: boolean;
}

const text = (value: unknown): string => (Buffer.isBuffer(value) ? value.toString() : String(value));

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);

/** The entries of a RESP3 map, whether flattened to [k, v, …] or mapped to an object. */
function entries(value: unknown): [string, unknown][] {
  if (isMap(value)) return Object.entries(value);
  if (!Array.isArray(value)) return [];
  const out: [string, unknown][] = [];
  for (let i = 0; i + 1 < value.length; i += 2) out.push([text(value[i]), value[i + 1]]);
  return out;
}

function fieldMap(value: unknown): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of entries(value)) if (v !== null && v !== undefined) out.set(k, text(v));
  return out;
}

/** A RESP3 search or aggregate reply: a map with `results` and `total_results`. */
function resp3(reply: unknown): { total: number; results: unknown[] } | null {
  const top = new Map(entries(reply));
  if (!top.has('results') || !top.has('total_results')) return null;
  const results = top.get('results');
  return { total: Number(top.get('total_results')), results: Array.isArray(results) ? results : [] };
}

const isResp2 = (reply: unknown): reply is unknown[] => Array.isArray(reply) && (typeof reply[0] === 'number' || reply.length === 0);

export function parseSearchReply(reply: unknown, shape: SearchReplyShape): ParsedReply {
  if (isResp2(reply)) {
    const rows: ReplyRow[] = [];
    for (let i = 1; i < reply.length; ) {
      const key = text(reply[i++]);
      const score = shape.withScores ? Number(text(reply[i++])) : null;
      const fields = shape.noContent ? new Map<string, string>() : fieldMap(reply[i++]);
      rows.push({ key, score, fields });
    }
    return { total: Number(reply[0] ?? 0), rows };
  }
  const map = resp3(reply);
  if (!map) throw new Error(`unexpected FT.SEARCH reply: ${JSON.stringify(reply)?.slice(0, 200)}`);
  const rows = map.results.map((result): ReplyRow => {
    const r = new Map(entries(result));
    const score = r.get('score');
    return { key: text(r.get('id')), score: score === undefined ? null : Number(text(score)), fields: fieldMap(r.get('extra_attributes')) };
  });
  return { total: map.total, rows };
}

/** FT.AGGREGATE rows as field maps (the key is empty: aggregate rows are groups, not documents). */
export function parseAggregateReply(reply: unknown): ParsedReply {
  if (isResp2(reply)) {
    return { total: Number(reply[0] ?? 0), rows: reply.slice(1).map((row) => ({ key: '', score: null, fields: fieldMap(row) })) };
  }
  const map = resp3(reply);
  if (!map) throw new Error(`unexpected FT.AGGREGATE reply: ${JSON.stringify(reply)?.slice(0, 200)}`);
  const rows = map.results.map((result): ReplyRow => ({ key: '', score: null, fields: fieldMap(new Map(entries(result)).get('extra_attributes')) }));
  return { total: map.total, rows };
}

/** FT.INFO as a map of its top-level fields (values as delivered). */
export function parseInfoReply(reply: unknown): Map<string, unknown> {
  return new Map(entries(reply));
}

/**
 * The terms FT.SPELLCHECK reports as not in the index: RESP2 lists `['TERM', term, suggestions]`
 * per unknown term; RESP3 is a map `{results: {term: suggestions}}`.
 */
export function parseSpellcheckReply(reply: unknown): Set<string> {
  const unknown = new Set<string>();
  const top = new Map(entries(reply));
  if (top.has('results')) {
    for (const [term] of entries(top.get('results'))) unknown.add(term);
    return unknown;
  }
  for (const row of Array.isArray(reply) ? reply : []) {
    if (Array.isArray(row) && text(row[0]) === 'TERM') unknown.add(text(row[1]));
  }
  return unknown;
}
