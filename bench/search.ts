// Search benchmark: 100,000 generated products (15% German) with 512-d vectors in one tenant, the
// built-in engine and, with BENCH_REDIS_URL, the Redis Query Engine head to head on the same
// catalogue and the same queries in one run.
//
//   0. The catalogue written into each engine's server through the domain path
//      (support/searchCatalogue.ts), and what it takes in Redis.
//   1. Engine time, in this process (support/searchEngineBench.ts): each engine built over the
//      stored catalogue, then keyword, semantic and hybrid searches called directly, one after
//      another, related products, and recall@10 of the vector search against an exact scan.
//   2. End to end over HTTP (support/searchHttpBench.ts): `kcs serve` child processes per engine,
//      POST /api/knowledge/search/products with autocannon at 1 and 32 connections; on the Query
//      Engine each keyword run beside the direct floor's (support/searchDirect.ts: a plain node:http
//      server answering the same bodies with one FT.SEARCH and an FT.AGGREGATE per facet over the
//      same products as plain hashes on the same server), and kcs ÷ direct; on the built-in engine
//      beside a plain node:http server holding MiniSearch over the same products
//      (support/searchMiniSearch.ts: fuzzy 0.2, the last word a prefix, filters, facets counted over
//      the hits), and kcs ÷ MiniSearch server; each side's CPU a search. Then the skewed storefront
//      workload (support/searchSkewed.ts) on a serve with the cache of recent results and one without.
//   3. Baselines in the same run: the exact brute-force scan per query (the naive alternative to
//      HNSW), raw Redis round trips to each server (PING; HMGET of the 20 product hashes a page
//      of hits reads), and in step 1 the keyword set as the direct floor's commands from this process.
//
//   npm run bench:search                         100,000 products, 2,000 queries per set, built-in engine only
//   BENCH_REDIS_URL=redis://… npm run bench:search   both engines: the Query Engine on that server (with the search
//                                                 module; a tenant `bench-<time>` is written there, dropped at the end),
//                                                 or on a private one of BENCH_QE_REDIS_SERVER with BENCH_QE_MODULE
//   BENCH_CLUSTER=1 ...                          the built-in engine's column on a private 6-node Redis Cluster
//   npm run bench:million                        the Query Engine alone (BENCH_ENGINES), grown to 100,000, then
//                                                 1,000,000 products (BENCH_STAGES), measured at each
//   BENCH_PRODUCTS=5000 BENCH_SECONDS=2 ...      a quick look
//   BENCH_QUERIES=… BENCH_RECALL_QUERIES=…       queries per set (2,000), recall queries per case (300)
//   BENCH_CONNECTIONS=1,8,32 ...                 connections of the HTTP runs (1,32; bench:million 1,8,32)
//   BENCH_MINISEARCH=0 ...                       without the MiniSearch server beside the built-in keyword runs (it
//                                                 holds the catalogue in its heap: ~0.5 GiB at 100,000 products)
//   BENCH_CPU_PROF=<dir> ...                     CPU profiles of the serve children
//
// The vectors are stored under the local embedder's model id (use-lite-512-en), so that the HTTP
// hybrid/semantic runs use them too; only timing is measured over HTTP, recall only in process.
import { availableParallelism } from 'node:os';
import { gc } from './support/gc.js';
import { noteOtherLoad, runBench, type Undo } from './support/harness.js';
import { queryEngineServer } from './support/redisServers.js';
import { openBuiltinColumn } from './support/searchBuiltinColumn.js';
import { catalogueWriter, type Catalogued } from './support/searchCatalogue.js';
import type { Column } from './support/searchColumn.js';
import { ANCHORS, BUILTIN, CLUSTERS, DIM, GERMAN, HTTP_CONNECTIONS, MINISEARCH, QUERIES, QUERY_ENGINE, RECALL_QUERIES, SECONDS, SITES, STAGES, WARMUP_SECONDS } from './support/searchConfig.js';
import { directKeyword, measureEngine, redisFloor } from './support/searchEngineBench.js';
import { overHttp, PATH, type HttpQueries } from './support/searchHttpBench.js';
import { makePlan } from './support/searchQueries.js';
import { openQueryEngineColumn } from './support/searchQueryEngineColumn.js';
import { latency, Summary } from './support/searchSummary.js';

// The budget: data, writes, the build, the query sets, recall, two serve builds and 12 HTTP runs per
// engine and stage (each drained), with margin. The Query Engine's writes are slower (the server
// indexes inline, and the direct floor's copy is written too), its queries are round trips. The
// MiniSearch server loads the catalogue at each stage (~0.2 ms a product) and runs twice.
const PRODUCTS = Math.max(...STAGES);
const perEngine = (writeSeconds: number, querySeconds: number) =>
  PRODUCTS * writeSeconds + STAGES.length * ((QUERIES * 5 + RECALL_QUERIES * 2) * querySeconds + 6 * HTTP_CONNECTIONS.length * (SECONDS + WARMUP_SECONDS + 10));
const miniSearch = STAGES.length * (PRODUCTS * 0.0005 + 2 * (SECONDS + WARMUP_SECONDS + 10));
runBench('bench:search', (300 + (BUILTIN ? perEngine(0.009, 0.02) + (MINISEARCH ? miniSearch : 0) : 0) + (QUERY_ENGINE ? perEngine(0.008, 0.036) : 0)) * 1000, main);

async function main(undo: Undo): Promise<number> {
  const summary = new Summary();
  const columns: Column[] = BUILTIN ? [await openBuiltinColumn(undo, { miniSearch: MINISEARCH })] : [];
  const moduleUrl = await queryEngineServer(undo);
  if (moduleUrl) columns.push(await openQueryEngineColumn(undo, moduleUrl));
  if (columns.length === 0) return (console.log('bench:search: BENCH_ENGINES=redis-query-engine needs BENCH_REDIS_URL, or BENCH_QE_REDIS_SERVER and BENCH_QE_MODULE; skipped'), 0);
  console.log(`bench:search  ${availableParallelism()} cores, Node ${process.version}; ${columns.map((c) => c.heading).join(' vs ')}\n` +
    `${STAGES.map((n) => n.toLocaleString('en')).join(', then ')} products over ${SITES} sites (${Math.round(GERMAN * 100)}% German), ${DIM}-d vectors in ${CLUSTERS} clusters, ` +
    `${Math.round(ANCHORS * 100)}% with an anchor vector; ${QUERIES.toLocaleString('en')} engine queries per set, ${RECALL_QUERIES} recall queries per case`);
  if (!moduleUrl) console.log('redis-query-engine column skipped: set BENCH_REDIS_URL (a server with the search module), or BENCH_QE_REDIS_SERVER and BENCH_QE_MODULE');

  const write = catalogueWriter(columns, PRODUCTS, summary);
  const runs = [];
  for (const stage of STAGES) {
    summary.prefix = STAGES.length > 1 ? `${stage.toLocaleString('en')} products: ` : '';
    console.log(`\n0. the catalogue, written through the domain path into each server${summary.prefix ? `, up to ${stage.toLocaleString('en')} products` : ''}`);
    const queries = await inProcess(columns, summary, await write(stage));
    // The queries' garbage goes first: the load generator runs with a small heap.
    gc();
    console.log(`\n2. over HTTP: POST ${PATH}, ${SECONDS} s per run after ${WARMUP_SECONDS} s warm-up, limit 20 (hits carry their products)`);
    for (const column of columns) runs.push(...(await overHttp(column, queries, undo, summary)));
  }
  noteOtherLoad(runs.map((r) => r.cpu));

  summary.print(`measurement (${STAGES.map((n) => n.toLocaleString('en')).join(', ')} products)`, columns);
  if (summary.problems.length > 0) console.error(`\nproblems:\n- ${summary.problems.join('\n- ')}`);
  return summary.problems.length > 0 ? 1 : 0;
}

/** Steps 1 and 3 over the catalogue written so far: what it takes in Redis, each engine in turn built and measured alone, the baselines. */
async function inProcess(columns: Column[], summary: Summary, data: Catalogued): Promise<HttpQueries> {
  for (const column of columns) await column.reportMemory(summary);
  const plan = makePlan(data);

  console.log('\n1. engine time, in process (each engine called directly, one query after another)');
  for (const column of columns) {
    // The Query Engine's indexes are built again from the stored catalogue only in a run of one stage.
    const engine = await column.buildEngine(summary, { rebuild: STAGES.length === 1 });
    try {
      await directKeyword(column, plan, await measureEngine(engine, column, plan, summary), summary);
    } finally {
      await engine.close();
    }
    // The built-in replica is garbage now: it must not weigh on the next engine's figures.
    gc();
  }

  console.log('\n3. baselines: the exact scan, and raw Redis from this process (the floor under every end-to-end search)');
  for (const column of columns) {
    summary.note(column.engine, 'baseline: exact brute-force scan of the English vectors, per query', latency(plan.recall[0].scan));
    await redisFloor(column, data, summary);
  }
  return plan.http;
}
