// A document's search projection: hash fields written with the document in its own atomic write
// (an entry's into its hash, a product's into its search and vector hashes), so that an index over
// them (the Redis Query Engine) is current the moment the write is answered, in every process.
// Field/value pairs; an empty value removes the field.
import type { EntryProjection } from './knowledgeEntries.js';
import type { ProductProjection } from './products.js';

export interface DocumentProjection extends ProductProjection, EntryProjection {
  /** Version of the layout, each tenant marked with it once its documents all follow it (keys.searchProjection). */
  readonly version: string;
  /** The hash field each projected document holds the version of its fields in (among the pairs it writes). */
  readonly versionField: string;
  /** The version of an entry's fields: entries written under another one are projected again. */
  readonly entryVersion: string;
}
