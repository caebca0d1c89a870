// A tenant's search rules (domain/searchRules.ts), a versioned collection of at most
// RULES_PER_TENANT: each search of a site scans that site's `contains` rules.
import type { Static } from '@sinclair/typebox';
import type { SearchRule } from '../schemas/searchRules.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';
import { VersionedDocs } from './versionedDocs.js';

export type StoredSearchRule = Static<typeof SearchRule>;

export const RULES_PER_TENANT = 10_000;

export class SearchRuleRepository extends VersionedDocs<StoredSearchRule> {
  constructor(redis: Store) {
    super(
      redis,
      { docs: keys.searchRules, version: keys.searchRulesVersion, weights: keys.searchRuleWeights, entityType: 'search_rule' },
      { docs: RULES_PER_TENANT },
    );
  }
}
