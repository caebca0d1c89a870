// A document's search projection: extra hash fields written with the document in its own atomic
// write, so that an index over the document hashes (the Redis Query Engine) is current the moment
// the write is answered, in every process. Field/value pairs; an empty value removes the field.
import type { EntryProjection } from './knowledgeEntries.js';
import type { ProductProjection } from './products.js';

export interface DocumentProjection extends ProductProjection, EntryProjection {
  /** Version of the field layout; documents written under another one are projected again. */
  readonly version: string;
  /** The hash field each projected document holds its version in (among the pairs it writes). */
  readonly versionField: string;
}
