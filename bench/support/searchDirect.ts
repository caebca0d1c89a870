// The Query Engine column's floor: the direct use of the same Redis server. The same products as
// plain hashes under a prefix of their own, one index over them, and a plain `node:http` server
// (directServer.ts, a process of its own) that answers the bodies kcs gets with one FT.SEARCH and
// one FT.AGGREGATE … GROUPBY per asked facet: what any service on that server has to spend at the
// least for the same answer. The same answer is also sent from this process (engine time's floor).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import type { ProductInput } from '../../src/domain/products.js';
import { parseInfoReply } from '../../src/search/redisQuery/replies.js';
import type { HttpBody } from './searchQueries.js';
import type { Undo } from './harness.js';

/** Where the floor's data is: the server, its index, the key prefix of its hashes. */
export interface FloorAt {
  url: string;
  index: string;
  prefix: string;
}

/** The floor's client: flat RESP2 replies, auto-pipelined as kcs's connection is. */
export const floorClient = (url: string) => new Redis(url, { protocol: 2, enableAutoPipelining: true, maxRetriesPerRequest: 1 });

const usedMemory = async (redis: Redis) => Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1]);

/** Facet name → the field it is grouped by (brand is TEXT for the words and TAG for the facet). */
const FACET_FIELD: Record<string, string> = { brand: 'brand_tag', category: 'category', availability: 'availability' };

/** A TAG value in a query: every character but letters and digits escaped. */
const tag = (value: string) => value.replace(/[^\p{L}\p{N}]/gu, (c) => `\\${c}`);

/** The query string: the words AND-ed (the last also as a prefix), then the filters. */
export function floorQuery(body: HttpBody): string {
  const words: string[] = [...(body.query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const last = words.pop();
  // A prefix needs two characters (the module's MINPREFIX).
  if (last) words.push(last.length >= 2 ? `(${last}|${last}*)` : last);
  const f = body.filters ?? {};
  if (body.site_id) words.push(`@site:{${tag(body.site_id)}}`);
  if (f.price_min !== undefined || f.price_max !== undefined) words.push(`@price:[${f.price_min ?? '-inf'} ${f.price_max ?? '+inf'}]`);
  if (f.brand?.length) words.push(`@brand_tag:{${f.brand.map(tag).join(' | ')}}`);
  if (f.in_stock) words.push('@availability:{InStock}');
  return words.join(' ') || '*';
}

/** The JSON answer `{hits: [{id, product}], total, facets}`: the stored documents spliced in as they are. */
export async function floorAnswer(redis: Redis, at: FloorAt, body: HttpBody): Promise<string> {
  const query = floorQuery(body);
  const facets = (body.facets ?? []).filter((f) => f in FACET_FIELD);
  const [found, ...groups] = (await Promise.all([
    redis.call('FT.SEARCH', at.index, query, 'RETURN', '1', 'doc', 'LIMIT', '0', String(body.limit ?? 20), 'DIALECT', '2'),
    ...facets.map((f) => redis.call('FT.AGGREGATE', at.index, query, 'GROUPBY', '1', `@${FACET_FIELD[f]}`, 'REDUCE', 'COUNT', '0', 'AS', 'count', 'SORTBY', '2', '@count', 'DESC', 'MAX', '50', 'DIALECT', '2')),
  ])) as [unknown[], ...unknown[][]];
  // FT.SEARCH: [total, key, [field, value, …], key, …]; FT.AGGREGATE: [count, [field, value, 'count', n], …].
  const hits: string[] = [];
  for (let i = 1; i < found.length; i += 2) {
    // RETURN 1 doc: the fields are ['doc', <json>].
    hits.push(`{"id":${JSON.stringify(String(found[i]).slice(at.prefix.length))},"product":${(found[i + 1] as string[])[1]}}`);
  }
  const counts = facets.map((f, k) => `${JSON.stringify(f)}:${JSON.stringify(groups[k].slice(1).map((row) => ({ value: (row as string[])[1], count: Number((row as string[])[3]) })))}`);
  return `{"hits":[${hits.join(',')}],"total":${Number(found[0])},"facets":{${counts.join(',')}}}`;
}

export interface Direct {
  at: FloorAt;
  redis: Redis;
  /** used_memory growth while writing, by side: kcs's products (no vectors) and the floor's copy. */
  memory: { kcs: number; direct: number };
  /** Writes a batch of the catalogue as plain hashes (one pipeline). */
  write(rows: { id: string; siteId: string; input: ProductInput }[]): Promise<void>;
  /** Once the index has read every hash: FT.INFO. */
  info(count: number): Promise<Map<string, unknown>>;
  /** The floor server, a child process; stopped by `stop` or at the end. */
  serve(undo: Undo): Promise<{ port: number; pid: number | undefined; stop(): Promise<void> }>;
}

/** The floor's data on `url` under `direct:<run>:`, its index made before the first write (as kcs's are), all dropped at the end. */
export async function openDirect(undo: Undo, url: string, run: string): Promise<Direct> {
  const at: FloorAt = { url, index: `direct:${run}:idx`, prefix: `direct:${run}:p:` };
  const redis = floorClient(url);
  undo(() => void redis.disconnect());
  // DD: the hashes go with the index.
  undo(async () => void (await redis.call('FT.DROPINDEX', at.index, 'DD').then(() => console.log(`dropped the direct floor's index ${at.index} with its hashes`), () => undefined)));
  await redis.call('FT.CREATE', at.index, 'ON', 'HASH', 'PREFIX', '1', at.prefix, 'SCHEMA',
    'title', 'TEXT', 'WEIGHT', '3', 'description', 'TEXT', 'brand', 'TEXT', 'brand', 'AS', 'brand_tag', 'TAG', 'SORTABLE',
    'category', 'TAG', 'SORTABLE', 'availability', 'TAG', 'SORTABLE', 'price', 'NUMERIC', 'site', 'TAG');
  const memory = { kcs: 0, direct: 0 };
  return {
    at, redis, memory,
    async write(rows) {
      const before = await usedMemory(redis);
      const pipeline = redis.pipeline();
      for (const { id, siteId, input } of rows) {
        pipeline.hset(`${at.prefix}${id}`, {
          title: input.title, description: input.description ?? '', brand: input.brand ?? '', category: input.category ?? '',
          availability: input.availability ?? '', price: String(input.price_current ?? ''), site: siteId, doc: JSON.stringify({ id, site_id: siteId, ...input }),
        });
      }
      for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
      memory.direct += (await usedMemory(redis)) - before;
    },
    async info(count) {
      for (;;) {
        const info = parseInfoReply(await redis.call('FT.INFO', at.index));
        if (Number(info.get('indexing')) === 0 && Number(info.get('num_docs')) >= count) return info;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async serve(undo) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'bench/support/directServer.ts'], { env: { ...process.env, BENCH_DIRECT: JSON.stringify(at) }, stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = once(child, 'exit');
      const stop = async () => void (child.exitCode === null && child.signalCode === null && (child.kill(), await exited));
      undo(stop);
      // Its first line is its port; exiting instead, it failed to start.
      const port = Number(await Promise.race([once(child.stdout!, 'data').then(([line]) => String(line)), exited.then(() => '')]));
      if (!port) throw new Error('the direct floor server did not start');
      return { port, pid: child.pid, stop };
    },
  };
}
