// Knowledge entries: create throughput over HTTP while filling a tenant with 100,000 entries, then
// list throughput and latency on that tenant, unfiltered and with filters. The baseline in the same
// run is the same pages read straight from Redis, the floor of what a list can cost. kcs serve and
// its redis-server run in their own processes; this process generates the load (autocannon).
//
//   npm run bench:knowledge-entries                                 100,000 entries, 5 s per list run
//   BENCH_ENTRIES=20000 BENCH_SECONDS=2 npm run bench:knowledge-entries   a quick look
import { keys } from '../src/store/keys.js';
import { fmt, noteOtherLoad, positiveInt, runBench, timeSequential, type Undo } from './support/harness.js';
import { request } from './support/http.js';
import { formatCpu, load, type LoadResult } from './support/load.js';
import { startBenchStack } from './support/stack.js';

const ENTRIES = positiveInt('BENCH_ENTRIES', 100_000);
const SECONDS = positiveInt('BENCH_SECONDS', 5);
const CONNECTIONS = 32;
const TYPES = ['knowledge', 'skill', 'process', 'glossary', 'memory'];
const VISIBILITIES = ['public', 'community', 'internal', 'restricted'];
const LAYERS = ['core', 'ops', 'sales', 'support'];
const ENTRIES_PATH = '/api/knowledge/knowledge-entries';

interface Row { name: string; rps: number; p50: number; p99: number; failed: number }

runBench('bench:knowledge-entries', (120 + ENTRIES * 0.01 + 6 * (SECONDS + 5)) * 1000, main);

async function main(undo: Undo): Promise<number> {
  const { redis, serve, tenantId } = await startBenchStack(undo, 'knowledge', { env: { KCS_EMBEDDER: 'none' } });
  const { port, key, host } = serve;
  const base = `http://127.0.0.1:${port}`;
  const headers = { host, authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body: unknown, as = key) => {
    const reply = await request(port, { method, path, headers: { ...headers, authorization: `Bearer ${as}` }, body: JSON.stringify(body) });
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${reply.body}`);
    return JSON.parse(reply.body) as { id: string; key: string };
  };
  const rows: Row[] = [];
  const watched = { kcs: serve.pid, ...redis.pids };
  const cpus: Record<string, number>[] = [];
  const run = async (name: string, options: Omit<Parameters<typeof load>[0], 'url'> & { url?: string }) => {
    const r: LoadResult = await load({ ...options, url: options.url ?? base }, watched);
    rows.push({ name, rps: r.rps, p50: r.p50, p99: r.p99, failed: r.non2xx + r.errors });
    cpus.push(r.cpu);
    console.log(`${name}: ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms, non-2xx/errors ${r.non2xx + r.errors} (CPU ${formatCpu(r.cpu)})`);
  };

  const categories: string[] = [];
  for (let i = 0; i < 20; i++) categories.push((await call('POST', '/api/knowledge/categories', { name: `Category ${i}` })).id);
  const projects = Array.from({ length: 10 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  let n = 0;
  const entry = () => {
    const i = n++;
    return JSON.stringify({
      title: `Entry ${i}: how to handle case ${i % 997}`,
      content: `Step by step description number ${i}. `.repeat(8),
      category_id: categories[i % categories.length],
      visibility: VISIBILITIES[i % VISIBILITIES.length],
      type: TYPES[i % TYPES.length],
      layer: LAYERS[i % LAYERS.length],
      tags: ['bench', `t${i % 50}`],
      project_ids: [projects[i % projects.length]],
      language: 'en',
    });
  };
  console.log(`bench:knowledge-entries  creating ${ENTRIES.toLocaleString('en')} entries over HTTP at ${CONNECTIONS * 2} connections…`);
  await run(`create (POST, ${CONNECTIONS * 2} conns, ${ENTRIES.toLocaleString('en')} entries)`, {
    connections: CONNECTIONS * 2, amount: ENTRIES,
    requests: [{ method: 'POST', path: ENTRIES_PATH, headers, setupRequest: (req) => ({ ...req, body: entry() }) }],
  });

  const lists: [string, string][] = [
    ['list, no filter (all-scopes key)', '?limit=50'],
    [`list, offset ${Math.floor(ENTRIES / 2).toLocaleString('en')}`, `?limit=50&offset=${Math.floor(ENTRIES / 2)}`],
    ['list, type', '?type=skill&limit=50'],
    ['list, category + type', `?category_id=${categories[3]}&type=process&limit=50`],
    ['list, project + layer + visibility', `?project_id=${projects[2]}&layer=ops&visibility=internal&limit=50`],
  ];
  for (const [name, query] of lists) {
    await run(`${name} (${CONNECTIONS} conns)`, { url: `${base}${ENTRIES_PATH}${query}`, connections: CONNECTIONS, duration: SECONDS, headers });
  }
  // A caller without visibility scopes sees only the public quarter.
  const publicKey = (await call('POST', '/api/knowledge/api-keys', { name: 'reader', scopes: ['knowledge:read'] })).key;
  await run(`list, public-only key (${CONNECTIONS} conns)`, {
    url: `${base}${ENTRIES_PATH}?limit=50`, connections: CONNECTIONS, duration: SECONDS, headers: { ...headers, authorization: `Bearer ${publicKey}` },
  });

  // The baseline: the same page straight from Redis (one sorted set, then the documents).
  const client = redis.store;
  const raw = async (name: string, count: number, op: () => Promise<unknown>) => {
    const t = await timeSequential(op, count);
    rows.push({ name, rps: t.rate, p50: t.p50, p99: t.p99, failed: 0 });
    console.log(`${name}: ${fmt(t.rate, 0)} ops/s (sequential), p50 ${fmt(t.p50, 2)} ms, p99 ${fmt(t.p99, 2)} ms`);
  };
  await raw('baseline: raw Redis, ZRANGE 50 of one type + HMGET docs', 2000, async () => {
    const ids = await client.zrange(keys.entriesByType(tenantId, 'skill'), '0', '49');
    const pipeline = client.pipeline();
    for (const id of ids) pipeline.hmget(keys.entry(tenantId, id), 'doc', 'rev');
    await pipeline.exec();
  });
  await raw('baseline: raw Redis, ZUNIONSTORE of the 4 visibility sets + ZRANGE 50', 300, async () => {
    const tmp = keys.entriesByType(tenantId, 'bench-scratch');
    await client.multi().zunionstore(tmp, 4, ...VISIBILITIES.map((v) => keys.entriesByVisibility(tenantId, v))).zrange(tmp, '0', '49').unlink(tmp).exec();
  });

  console.log(`\n| measurement (${ENTRIES.toLocaleString('en')} entries) | req/s | p50 ms | p99 ms | non-2xx |\n|---|---:|---:|---:|---:|`);
  for (const r of rows) console.log(`| ${r.name} | ${fmt(r.rps, 0)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${r.failed} |`);
  noteOtherLoad(cpus);
  return rows.some((r) => r.failed > 0) ? 1 : 0;
}
