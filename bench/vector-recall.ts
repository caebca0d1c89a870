// recall@10 and latency of the Query Engine's vector search against EF_RUNTIME, on bench:search's
// vectors (512-d unit vectors in 200 clusters, stored as FLOAT16; queries half near a product, half
// between two clusters) in an index with kcs's HNSW parameters (schema.ts: M 32, EF_CONSTRUCTION
// 100, COSINE), queried as kcs queries it (the English products through a TAG filter, KNN 100,
// HYBRID_POLICY BATCHES). The index holds the vectors alone: what the graph finds by itself, from
// which vectorSearch.ts's EF_DOCUMENTS is chosen. Each row: recall@10 against an exact scan,
// client-timed p50 and p99, and redis-server's CPU a query (/proc).
//
//   BENCH_QE_REDIS_SERVER=…/redis-server BENCH_QE_MODULE=…/redisearch.so npm run bench:vector-recall
//   BENCH_PRODUCTS=1000000 …                       (default 100,000; ~15 min to load a million)
//   BENCH_EF_RUNTIMES=400,1000,4000 …              (default 100,400,1000,2000,4000 and kcs's own)
//   BENCH_RECALL_QUERIES=200 …                     (default 200)
import { availableParallelism } from 'node:os';
import { connectRedis } from '../src/store/redis.js';
import { toBytes } from '../src/store/vectorBytes.js';
import { parseSearchReply } from '../src/search/redisQuery/replies.js';
import { EF_CONSTRUCTION, HNSW_M } from '../src/search/redisQuery/schema.js';
import { efRuntime } from '../src/search/redisQuery/vectorSearch.js';
import { positiveInt, runBench, summarize, type Undo } from './support/harness.js';
import { cpuSeconds } from './support/proc.js';
import { queryEngineServer } from './support/redisServers.js';
import { Rng } from './support/rng.js';
import { CLUSTERS, DIM } from './support/searchConfig.js';
import { asStored, bruteForce, centroidMix, clusteredVectors, nearby, randomCentroids } from './support/vectors.js';

const N = positiveInt('BENCH_PRODUCTS', 100_000);
const QUERIES = positiveInt('BENCH_RECALL_QUERIES', 200);
/** kcs's semantic window: the k of its KNN. */
const WINDOW = 100;
/** Share of the products in the served language (bench:search: 85% English). */
const ENGLISH = 0.85;
/** Vectors generated (and scanned for the truth) per block: one Float32Array of the whole set would pass 2 GB at a million. */
const BLOCK = 100_000;
const EF_RUNTIMES = process.env.BENCH_EF_RUNTIMES
  ? process.env.BENCH_EF_RUNTIMES.split(',').map(Number)
  : [...new Set([100, 400, 1000, 2000, 4000, efRuntime(WINDOW, Math.round(N * ENGLISH))])].sort((a, b) => a - b);

runBench('bench:vector-recall', (600 + N * 0.003) * 1000, main);

async function main(undo: Undo): Promise<number> {
  const url = await queryEngineServer(undo);
  if (!url) {
    console.log('bench:vector-recall needs a server with the search module: BENCH_REDIS_URL, or BENCH_QE_REDIS_SERVER and BENCH_QE_MODULE');
    return 2;
  }
  const redis = connectRedis(url);
  await redis.connect();
  undo(() => redis.disconnect());
  const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))![1]);
  const index = `bench-vector-recall:${process.pid}`;
  const prefix = `${index}:`;
  await redis.call('FT.CREATE', index, 'ON', 'HASH', 'PREFIX', '1', prefix, 'SCHEMA', 'lang', 'TAG', 'v', 'VECTOR', 'HNSW', '10', 'TYPE', 'FLOAT16',
    'DIM', String(DIM), 'DISTANCE_METRIC', 'COSINE', 'EF_CONSTRUCTION', String(EF_CONSTRUCTION), 'M', String(HNSW_M));
  undo(() => redis.call('FT.DROPINDEX', index, 'DD').then(() => undefined));
  console.log(`bench:vector-recall  ${availableParallelism()} cores, Node ${process.version}; ${N.toLocaleString('en')} vectors of ${DIM} dimensions in ${CLUSTERS} clusters, ` +
    `M ${HNSW_M}, EF_CONSTRUCTION ${EF_CONSTRUCTION}; ${QUERIES} queries, KNN ${WINDOW} among the English ${Math.round(ENGLISH * 100)}%`);

  const rng = new Rng(20240605);
  const centroids = randomCentroids(rng, CLUSTERS, DIM);
  const blocks: Float32Array[] = [];
  const english = new Uint8Array(N);
  const started = performance.now();
  for (let start = 0; start < N; start += BLOCK) {
    const n = Math.min(BLOCK, N - start);
    const clusters = Array.from({ length: n }, () => rng.int(CLUSTERS));
    const vectors = asStored(clusteredVectors(rng, centroids, DIM, (k) => clusters[k], n, 1), DIM);
    blocks.push(vectors);
    for (let i = 0; i < n; i++) english[start + i] = rng.chance(ENGLISH) ? 1 : 0;
    for (let from = 0; from < n; from += 500) {
      const pipeline = redis.pipeline();
      for (let i = from; i < Math.min(n, from + 500); i++) {
        pipeline.hset(`${prefix}${start + i}`, 'lang', english[start + i] ? 'en' : 'de', 'v', toBytes(vectors.subarray(i * DIM, (i + 1) * DIM)));
      }
      await pipeline.exec();
    }
  }
  const loadSeconds = (performance.now() - started) / 1000;
  console.log(`   written and indexed: ${Math.round(N / loadSeconds).toLocaleString('en')} vectors/s (${loadSeconds.toFixed(0)} s)`);

  // The queries as bench:search asks them, and the exact top 10 among the English products.
  const queries = Array.from({ length: QUERIES }, () => {
    const row = rng.int(N);
    return asStored(rng.chance(0.5) ? nearby(rng, blocks[Math.floor(row / BLOCK)], (row % BLOCK) * DIM, DIM, 0.6) : centroidMix(rng, centroids, DIM, 0.5), DIM);
  });
  const truths = queries.map((q) => {
    const best: [number, number][] = [];
    blocks.forEach((block, b) => {
      for (const row of bruteForce(block, DIM, q, 10, (r) => english[b * BLOCK + r] === 1)) {
        let dot = 0;
        for (let j = 0; j < DIM; j++) dot += block[row * DIM + j] * q[j];
        best.push([b * BLOCK + row, dot]);
      }
    });
    return new Set(best.sort((x, y) => y[1] - x[1]).slice(0, 10).map(([row]) => `${prefix}${row}`));
  });

  console.log('\n| EF_RUNTIME | recall@10 | p50 | p99 | redis-server CPU a query |\n|---:|---:|---:|---:|---:|');
  for (const ef of EF_RUNTIMES) {
    let found = 0;
    const times: number[] = [];
    const cpuBefore = cpuSeconds({ redis: pid }).redis;
    const runStarted = performance.now();
    for (let i = 0; i < QUERIES; i++) {
      const t = performance.now();
      const reply = await redis.call('FT.SEARCH', index, `(@lang:{en})=>[KNN ${WINDOW} @v $vec HYBRID_POLICY BATCHES EF_RUNTIME ${ef} AS dist]`,
        'PARAMS', '2', 'vec', toBytes(queries[i]), 'SORTBY', 'dist', 'ASC', 'RETURN', '1', 'dist', 'LIMIT', '0', '10', 'DIALECT', '2');
      times.push(performance.now() - t);
      for (const row of parseSearchReply(reply, { withScores: false, noContent: false }).rows) if (truths[i].has(row.key)) found++;
    }
    const timing = summarize(times, performance.now() - runStarted);
    const cpu = ((cpuSeconds({ redis: pid }).redis - cpuBefore) / QUERIES) * 1e6;
    const rule = ef === efRuntime(WINDOW, Math.round(N * ENGLISH)) ? ' (kcs)' : '';
    console.log(`| ${ef}${rule} | ${(found / (QUERIES * 10)).toFixed(3)} | ${timing.p50.toFixed(2)} ms | ${timing.p99.toFixed(2)} ms | ${Math.round(cpu).toLocaleString('en')} µs |`);
  }
  return 0;
}
