// The settings of the search benchmark (bench/search.ts), shared by its parts: the sizes from the
// environment and the fixed shape of the generated catalogue.
import { positiveInt } from './harness.js';

export const PRODUCTS = positiveInt('BENCH_PRODUCTS', 100_000);
export const QUERIES = positiveInt('BENCH_QUERIES', 2_000);
export const RECALL_QUERIES = positiveInt('BENCH_RECALL_QUERIES', 300);
export const SECONDS = positiveInt('BENCH_SECONDS', 5);
export const WARMUP_SECONDS = 1;
/** A server with the search module is given (redisServers.ts queryEngineServer): the redis-query-engine column runs. */
export const QUERY_ENGINE = Boolean(process.env.BENCH_REDIS_URL || (process.env.BENCH_QE_REDIS_SERVER && process.env.BENCH_QE_MODULE));
/** BENCH_ENGINES=redis-query-engine: the Query Engine's column alone (bench:million). */
export const BUILTIN = process.env.BENCH_ENGINES !== 'redis-query-engine';
/** BENCH_MINISEARCH=0: the built-in engine's keyword runs without the MiniSearch server's beside them (searchMiniSearch.ts). */
export const MINISEARCH = process.env.BENCH_MINISEARCH !== '0';
/** BENCH_STAGES=100000,1000000: the catalogue grown in stages, every measurement taken at each (default: PRODUCTS at once). */
export const STAGES = (process.env.BENCH_STAGES || String(PRODUCTS)).split(',').map((n) => Number(n.replaceAll('_', '')));
export const SITES = 100;
export const DIM = 512;
export const CLUSTERS = 200;
export const GERMAN = 0.15;
export const ANCHORS = 0.1;
export const WRITE_BATCH = 1_000;
/** The local embedder's model id (src/embed/local.ts): the serve child with KCS_EMBEDDER=local loads these vectors. */
export const MODEL = 'use-lite-512-en';
/** Connections of each HTTP run (BENCH_CONNECTIONS, e.g. 1,8,32 in bench:million), ascending. */
export const HTTP_CONNECTIONS = (process.env.BENCH_CONNECTIONS || '1,32').split(',').map(Number).sort((a, b) => a - b);
if (HTTP_CONNECTIONS.some((n) => !Number.isInteger(n) || n < 1 || n > 1024)) throw new Error('BENCH_CONNECTIONS: connection counts, e.g. 1,8,32');
/** Distinct queries in the HTTP hybrid/semantic runs: each is embedded once, while warming the cache. */
export const HTTP_VECTOR_QUERIES = 50;
export const TARGET = { keywordP99: 5, hybridP99: 15, recall: 0.95 };

/** Sites are created with these slugs on every server, so one generated query serves both engines. */
export const siteSlug = (site: number) => `site-${site}`;
