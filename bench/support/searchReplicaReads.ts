// The replica run of the Query Engine's column: two replicas of the column's server (started from
// BENCH_QE_REDIS_SERVER with BENCH_QE_MODULE), then the same keyword bodies at REPLICA_CONNECTIONS on
// a serve reading the master (KCS_SEARCH_READS=primary) and on one reading the replicas, each run's
// Redis CPU split by process: how much of the searches' Redis work leaves the master. Then
// read-your-writes through the replicas: RYW_PAIRS products written over HTTP, each searched for by
// its own word as soon as its write is answered, RYW_LOOPS pairs at a time; a search that does not
// find its product is a miss. It runs last: the pairs add their products to the tenant.
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { collectionOf } from '../../src/search/redisQuery/schema.js';
import { parseInfoReply } from '../../src/search/redisQuery/replies.js';
import { startReplicas } from '../../test/helpers/redisReplicas.js';
import { fmt, type Undo } from './harness.js';
import { request } from './http.js';
import type { LoadResult } from './load.js';
import type { Column } from './searchColumn.js';
import { DIM, MODEL, siteSlug } from './searchConfig.js';
import { checkRun, cpuPerSearch, figures, loadRun, startServe } from './searchServe.js';
import type { Summary } from './searchSummary.js';

const REPLICA_CONNECTIONS = 32;
const RYW_PAIRS = Number(process.env.BENCH_RYW_PAIRS ?? 10_000);
const RYW_LOOPS = 16;
/** A serve starts its replica reads once it has seen a replica for a wait timeout (1 s). */
const READS_START_MS = 1500;

/** A word of letters only, one per number (the analysis splits digits off). */
const wordOf = (n: number) => `zq${n.toString(26).split('').map((d) => String.fromCharCode(97 + parseInt(d, 26))).join('')}x`;

export async function replicaReads(column: Column, keyword: string[], undo: Undo, summary: Summary): Promise<LoadResult[]> {
  const { BENCH_QE_REDIS_SERVER: server, BENCH_QE_MODULE: module } = process.env;
  if (!server || !module || typeof column.redis !== 'string') {
    console.log('   replica run skipped: BENCH_QE_REDIS_SERVER and BENCH_QE_MODULE start its replicas');
    return [];
  }
  const started = await startReplicas(Number(new URL(column.redis).port), { replicas: 2, server, module });
  undo(() => started.stop());
  // Each replica's copy of the products index reads the synced documents itself.
  const { index } = collectionOf('product', column.tenant.id, { modelId: MODEL, dimension: DIM });
  for (const r of started.replicas) {
    const c = new Redis({ port: r.port, host: '127.0.0.1' });
    try {
      for (;;) {
        const info = parseInfoReply(await c.call('FT.INFO', index).catch(() => []));
        if (info.get('indexing') !== undefined && Number(info.get('indexing')) === 0 && Number(info.get('num_docs')) >= column.ids.length) break;
        await delay(200);
      }
    } finally {
      c.disconnect();
    }
  }
  const pids = { 'redis master': column.redisPid, 'replica 1': started.replicas[0].process.pid, 'replica 2': started.replicas[1].process.pid };
  const runs: LoadResult[] = [];
  const e = column.engine;
  for (const reads of ['primary', 'replicas'] as const) {
    const serve = await startServe(column, 'none', undo, summary, keyword[0], { KCS_SEARCH_CACHE_MB: '0', KCS_SEARCH_READS: reads });
    await delay(READS_START_MS);
    const { 'redis-server': _, ...servePids } = serve.pids;
    const r = await loadRun(`   ${e}: keyword, KCS_SEARCH_READS=${reads}, master + 2 replicas, ${REPLICA_CONNECTIONS} conn:`, { ...serve, pids: { ...servePids, ...pids } }, keyword, REPLICA_CONNECTIONS);
    checkRun(column, `keyword, KCS_SEARCH_READS=${reads}`, r, summary);
    runs.push(r);
    summary.note(e, `replica run, KCS_SEARCH_READS=${reads}, ${REPLICA_CONNECTIONS} conn`, `${figures(r)}; CPU a search ${cpuPerSearch(r)}`);
    if (reads === 'replicas') {
      const redis = ['redis master', 'replica 1', 'replica 2'].map((name) => r.cpu[name] ?? 0);
      const share = redis[0] / redis.reduce((a, b) => a + b, 0);
      summary.note(e, 'replica reads: the master\'s share of the searches\' Redis CPU', `${fmt(share * 100, 1)}%`, { target: '≤ 10%', met: share <= 0.1 });
      const misses = await readYourWrites(serve.port, serve.headers);
      summary.note(e, `replica reads: write-then-search pairs, ${RYW_LOOPS} at a time`, `${misses.pairs.toLocaleString('en')} pairs, ${misses.missed} not found, ${misses.failed} failed (${fmt(misses.seconds, 1)} s)`,
        { target: '0 misses', met: misses.missed === 0 && misses.failed === 0 && misses.pairs === RYW_PAIRS });
    }
    await serve.serve.stop();
  }
  const [primary, replicas] = runs;
  summary.note(e, `replica run, replicas ÷ primary, ${REPLICA_CONNECTIONS} conn`, `${fmt(replicas.rps / primary.rps, 2)}× req/s`);
  started.stop();
  return runs;
}

async function readYourWrites(port: number, headers: Record<string, string>): Promise<{ pairs: number; missed: number; failed: number; seconds: number }> {
  let next = 0;
  let missed = 0;
  let failed = 0;
  const t0 = performance.now();
  const loop = async () => {
    for (let i = next++; i < RYW_PAIRS; i = next++) {
      const word = wordOf(i);
      const write = await request(port, { method: 'POST', path: `/api/knowledge/products?site_id=${siteSlug(i % 100)}`, headers, body: JSON.stringify({ external_id: `ryw-${process.pid}-${i}`, title: `Lamp ${word}`, language: 'en' }) });
      if (write.status !== 201) {
        failed++;
        continue;
      }
      const id = (JSON.parse(write.body) as { id: string }).id;
      const found = await request(port, { method: 'POST', path: '/api/knowledge/search/products', headers, body: JSON.stringify({ query: word, mode: 'keyword' }) });
      if (found.status !== 200) failed++;
      else if ((JSON.parse(found.body) as { hits: { id: string }[] }).hits[0]?.id !== id) missed++;
    }
  };
  await Promise.all(Array.from({ length: RYW_LOOPS }, loop));
  return { pairs: Math.min(next, RYW_PAIRS), missed, failed, seconds: (performance.now() - t0) / 1000 };
}
