// A tenant's synonym sets (domain/synonyms.ts), a versioned collection.
import type { Static } from '@sinclair/typebox';
import type { SynonymSet } from '../schemas/synonyms.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';
import { VersionedDocs } from './versionedDocs.js';

export type StoredSynonymSet = Static<typeof SynonymSet>;

export class SynonymRepository extends VersionedDocs<StoredSynonymSet> {
  constructor(redis: Store) {
    super(redis, { docs: keys.synonyms, version: keys.synonymsVersion, entityType: 'synonym_set' });
  }
}
