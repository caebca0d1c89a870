// Search benchmark (issue 5): 100,000 generated products with 512-d vectors in one tenant, the
// built-in engine and, with BENCH_REDIS_URL, the Redis Query Engine head to head on the same
// catalogue and the same queries in one run.
//
//   0. The catalogue, generated once and written into each engine's server through the domain
//      path (bench/support/searchCatalogue.ts): the built-in engine's is a private plain
//      redis-server (with BENCH_CLUSTER=1 a private 6-node Redis Cluster); the Query Engine's a
//      fresh tenant on BENCH_REDIS_URL, written with the search
//      projection into indexes that exist already (the server indexes inline). What each takes in
//      Redis (used_memory; FT.INFO).
//   1. Engine time, in this process (bench/support/searchEngineBench.ts): each engine built over
//      the stored catalogue — the built-in replica read from Redis (time, memory); the Query
//      Engine's products index dropped and re-created over the stored documents (time to the first
//      answer and until it has read them all; then the text-only index KCS_EMBEDDER=none
//      searches, the same way) — then keyword, semantic and hybrid searches
//      called directly, one after another (p50/p99, queries/s), related products, and recall@10 of
//      the vector search against an exact brute-force scan, unfiltered and under filters.
//   2. End to end over HTTP (bench/support/searchHttpBench.ts): real `kcs serve` child processes
//      per engine, POST /api/knowledge/search/products with autocannon at 1 and 32 connections:
//      keyword with KCS_EMBEDDER=none; hybrid and semantic with KCS_EMBEDDER=local over a small
//      fixed set of queries whose embeddings are cached (warm LRU) before measuring; the time from
//      serve start to /readyz 200.
//   3. Baselines in the same run: the exact brute-force scan per query (the naive alternative to
//      HNSW), and raw Redis round trips to each server (PING; HMGET of the 20 product hashes a page
//      of hits reads).
//
//   npm run bench:search                         100,000 products, 2,000 queries per mode, built-in engine only
//   BENCH_REDIS_URL=redis://… npm run bench:search   both engines: the Query Engine on that server (it needs the
//                                                 search module); the benchmark writes one tenant
//                                                 `bench-<time>` there and drops it at the end
//   BENCH_CLUSTER=1 npm run bench:search         the built-in engine's column on a private 6-node Redis Cluster
//                                                 (3 masters, one replica each) instead of a plain redis-server;
//                                                 the Query Engine's column (BENCH_REDIS_URL) stays on its server
//   BENCH_PRODUCTS=5000 npm run bench:search     a quick look
//   BENCH_QUERIES=… BENCH_RECALL_QUERIES=… BENCH_SECONDS=…   queries per mode (2,000), recall
//                                                 queries per case (300), seconds per HTTP run (5)
//   BENCH_CPU_PROF=<dir> npm run bench:search    CPU profiles of the serve children (--cpu-prof)
//
// The vectors are stored under the local embedder's model id (use-lite-512-en), so that the HTTP
// hybrid/semantic runs use them too; only timing is measured over HTTP, recall only in process.
import { availableParallelism } from 'node:os';
import { describeTarget } from '../src/store/redis.js';
import { gc } from './support/gc.js';
import { fmt, runBench, type Undo } from './support/harness.js';
import { writeCatalogue } from './support/searchCatalogue.js';
import { BuiltinColumn, type Column } from './support/searchColumn.js';
import {
  ANCHORS, CLUSTER, CLUSTERS, DIM, GERMAN, MODULE_REDIS_URL, PRODUCTS, QUERIES, RECALL_QUERIES, SECONDS, SITES, WARMUP_SECONDS,
} from './support/searchConfig.js';
import { measureEngine, redisFloor } from './support/searchEngineBench.js';
import { overHttp, PATH } from './support/searchHttpBench.js';
import { makePlan, type Plan } from './support/searchQueries.js';
import { QueryEngineColumn } from './support/searchQueryEngineColumn.js';
import { ms, Summary } from './support/searchSummary.js';

// The budget: data, writes, the build, 2 × 3 query sets, recall, two serve builds and 12 HTTP runs
// per engine, with margin. The Query Engine's writes are slower (the server indexes inline) and
// it indexes the catalogue twice more (the products index re-created, the text-only index for
// KCS_EMBEDDER=none), but it has no replica to build; its queries are round trips.
const httpSeconds = 12 * (SECONDS + WARMUP_SECONDS + 10);
const builtinSeconds = PRODUCTS * 0.009 + (QUERIES * 6 + RECALL_QUERIES * 4) * 0.02 + httpSeconds;
const queryEngineSeconds = PRODUCTS * 0.006 + (QUERIES * 6 + RECALL_QUERIES * 4) * 0.03 + httpSeconds;
runBench('bench:search', (300 + builtinSeconds + (MODULE_REDIS_URL ? queryEngineSeconds : 0)) * 1000, main);

async function main(undo: Undo): Promise<number> {
  const summary = new Summary();
  const columns: Column[] = [await BuiltinColumn.open(undo)];
  if (MODULE_REDIS_URL) columns.push(await QueryEngineColumn.open(undo, MODULE_REDIS_URL, columns[0].dataDir));

  console.log(
    `bench:search  ${availableParallelism()} cores, Node ${process.version}; ${columns.map((c) => c.heading).join(' vs ')}\n` +
      `${PRODUCTS.toLocaleString('en')} products over ${SITES} sites (${Math.round((1 - GERMAN) * 100)}% en, ${Math.round(GERMAN * 100)}% de), ` +
      `${DIM}-d vectors in ${CLUSTERS} clusters, ${Math.round(ANCHORS * 100)}% with an anchor vector; ` +
      `${QUERIES.toLocaleString('en')} engine queries per mode, ${RECALL_QUERIES} recall queries per case, HTTP runs ${SECONDS} s after ${WARMUP_SECONDS} s warm-up`,
  );
  if (CLUSTER) {
    console.log(`builtin: on a private 6-node Redis Cluster (3 masters, one replica each; ${describeTarget(columns[0].redis)}), not a plain redis-server (BENCH_CLUSTER=1)`);
  }
  if (!MODULE_REDIS_URL) {
    console.log(
      'redis-query-engine column skipped: set BENCH_REDIS_URL=redis://host:port to a Redis server with the search module ' +
        '(Redis Stack, Redis 8, or redis-server --loadmodule redisearch.so) to compare it in the same run',
    );
  }
  if (MODULE_REDIS_URL && columns.length > 1) {
    const rqe = columns[1];
    console.log(`${rqe.engine}: tenant ${rqe.tenant.slug} on ${MODULE_REDIS_URL}, dropped at the end; its indexes were created before the writes`);
  }
  console.log('');

  const httpQueries = await (async () => {
    const data = await writeCatalogue(columns, PRODUCTS, summary);
    for (const column of columns) await column.reportMemory(summary);
    const plan = makePlan(data);
    await inProcess(columns, plan, summary);
    console.log('\n3. baselines: raw Redis from this process (the floor under every end-to-end search; sequential)');
    summary.noteAll(
      columns.map((c) => c.engine),
      `baseline: exact brute-force scan of ${fmt(data.isEn.reduce((a, b) => a + b, 0), 0)} vectors (JS loop, the same data for every engine)`,
      `p50 ${ms(plan.recall[0].scan.p50)} ms, p99 ${ms(plan.recall[0].scan.p99)} ms per query`,
    );
    for (const column of columns) await redisFloor(column, data, summary);
    return plan.http;
  })();
  // The catalogue's big arrays are garbage now: the load generator runs with a small heap.
  gc();
  console.log(`\n2. over HTTP: POST ${PATH}, ${SECONDS} s per run after ${WARMUP_SECONDS} s warm-up, limit 20 (hits carry their products)`);
  for (const column of columns) await overHttp({ column, queries: httpQueries, undo, summary });

  summary.print(
    `measurement (${PRODUCTS.toLocaleString('en')} products)`,
    columns.map((c) => ({ engine: c.engine, heading: c.heading })),
  );
  if (summary.problems.length > 0) {
    console.error(`\nproblems:\n- ${summary.problems.join('\n- ')}`);
    return 1;
  }
  return 0;
}

/** Each engine in turn, alone: built, measured and closed before the next one starts. */
async function inProcess(columns: Column[], plan: Plan, summary: Summary): Promise<void> {
  console.log('\n1. engine time, in process (each engine called directly, one query after another)');
  for (const column of columns) {
    console.log(`\n   ${column.heading}`);
    const engine = await column.buildEngine(summary);
    try {
      await measureEngine({ engine, column, plan, summary });
    } finally {
      await engine.close();
    }
    // The built-in replica is garbage now: it must not weigh on the next engine's figures.
    gc();
  }
}
