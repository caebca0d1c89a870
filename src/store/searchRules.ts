// A tenant's search rules (domain/searchRules.ts), a versioned collection.
import type { Static } from '@sinclair/typebox';
import type { SearchRule } from '../schemas/searchRules.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';
import { VersionedDocs } from './versionedDocs.js';

export type StoredSearchRule = Static<typeof SearchRule>;

export class SearchRuleRepository extends VersionedDocs<StoredSearchRule> {
  constructor(redis: Store) {
    super(redis, { docs: keys.searchRules, version: keys.searchRulesVersion, entityType: 'search_rule' });
  }
}
