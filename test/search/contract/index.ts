// The SearchEngine contract: one suite over the port (src/search/engine.ts), run against every
// engine (builtin.contract.test.ts, redis-query-engine.contract.test.ts). Data is written through
// the real domain services (ProductService, KnowledgeEntryService) on a real Redis, vectors through
// VectorRepository.store (the embed worker's path, for the stored textHash), then the engine under
// test is built, started, and asked through the port only. The cases share the suite's data and
// some of them write to it: they run in this order.
import { describe } from 'node:test';
import { useContractData, type EngineTarget } from './fixtures.js';
import { keywordCases } from './keyword.js';
import { knowledgeCases } from './knowledge.js';
import { refreshCases } from './refresh.js';
import { ruleCases } from './rules.js';
import { semanticCases } from './semantic.js';
import { storefrontCases } from './storefront.js';
import { synonymCases } from './synonyms.js';

export type { EngineTarget } from './fixtures.js';

export function searchEngineContract(target: EngineTarget): void {
  describe(`SearchEngine contract: ${target.name}`, () => {
    useContractData(target);
    keywordCases();
    storefrontCases();
    synonymCases();
    ruleCases();
    semanticCases();
    knowledgeCases();
    refreshCases();
  });
}
