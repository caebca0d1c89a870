// The suites that touch search, run against the Redis Query Engine by `npm run test:rqe` (one
// server) and `npm run test:rqe-cluster` (a Redis Cluster): files, and folders standing for every
// *.test.ts file in them.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const SUITES = [
  'test/search/redis-query-engine.contract.test.ts',
  'test/search/redis-query-engine.test.ts',
  'test/search/engine-choice.test.ts',
  'test/search/api-routes.test.ts',
  'test/search/api-writes.test.ts',
  'test/search/semantic.test.ts',
  'test/search/relevance.test.ts',
  'test/search/storefront-api.test.ts',
  'test/search/multi-search.test.ts',
  'test/search/synonyms-api.test.ts',
  'test/search/search-rules-api.test.ts',
  'test/search/search-analytics.test.ts',
  'test/search/search-analytics-abuse.test.ts',
  'test/search/merchandising-limits.test.ts',
  'test/mcp/mcp.test.ts',
  'test/api/products',
  'test/api/bulk',
  'test/api/knowledge-entries',
  'test/workers/embedding.test.ts',
  'test/search/unserved-language.test.ts',
];

/**
 * Run after the others, alone: its workers change the embedding model, and the workers of a model
 * re-embed every tenant of the server, so no suite of another model may run beside it.
 */
export const ALONE = ['test/workers/reembed.test.ts', 'test/workers/language-model-switch.test.ts'];

/** The test files at a path: the file itself, or every *.test.ts below a folder. */
export const testFiles = (path: string): string[] =>
  statSync(path).isDirectory() ? readdirSync(path).sort().flatMap((name) => testFiles(join(path, name))) : path.endsWith('.test.ts') ? [path] : [];
