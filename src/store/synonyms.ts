// A tenant's synonym sets (domain/synonyms.ts), a versioned collection within caps: sets, and
// entries in all (a set's synonyms, and its root), which bound the memory a tenant's sets take in
// Redis and in every serve process.
import type { Static } from '@sinclair/typebox';
import type { SynonymSet } from '../schemas/synonyms.js';
import { keys } from './keys.js';
import type { Store } from './redis.js';
import { VersionedDocs } from './versionedDocs.js';

export type StoredSynonymSet = Static<typeof SynonymSet>;

export const SYNONYM_CAPS = { sets: 100_000, entries: 250_000 } as const;

/** A set's entries: its synonyms, and its root. */
export const entriesOf = (set: Pick<StoredSynonymSet, 'root' | 'synonyms'>): number => set.synonyms.length + (set.root === null ? 0 : 1);

export class SynonymRepository extends VersionedDocs<StoredSynonymSet> {
  constructor(redis: Store) {
    super(
      redis,
      { docs: keys.synonyms, version: keys.synonymsVersion, weights: keys.synonymWeights, entityType: 'synonym_set' },
      { docs: SYNONYM_CAPS.sets, weight: { of: entriesOf, max: SYNONYM_CAPS.entries } },
    );
  }
}
