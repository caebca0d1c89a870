import { Type } from '@sinclair/typebox';
import { Nullable } from './common.js';

const StatusCounts = Type.Object(
  {
    pending: Type.Integer({ description: 'Texts changed, vectors not stored yet' }),
    ready: Type.Integer({ description: 'Vectors of the current texts stored' }),
    failed: Type.Integer({ description: 'Given up on after every attempt' }),
    skipped: Type.Integer({ description: 'No vectors: written while embedding was off, or (products) in a language the model does not serve' }),
  },
  { description: 'Documents by embedding status' },
);

/** The progress fields shared by the status route and a bulk job's `embedding`. */
export const EmbeddingRate = {
  rate_per_s: Type.Number({
    description: "The tenant's current embedding rate: documents embedded per second in the latest run of embedding within the last minute " +
      '(from its start; the worker pauses while imports run); 0 when nothing was embedded in the last minute',
  }),
  eta_s: Nullable(Type.Integer({ description: 'Seconds until nothing is pending at that rate (null: nothing pending, or no rate yet)' })),
};

export const EmbeddingOverview = Type.Object(
  {
    model: Nullable(Type.String({ description: 'The model id vectors are computed with (null: embedding is off)' })),
    languages: Type.Array(Type.String(), { description: 'The languages semantic ranking runs for' }),
    products: StatusCounts,
    entries: StatusCounts,
    ...EmbeddingRate,
    /** A re-embed after a change of model, while it runs (null: none). */
    reembedding: Nullable(
      Type.Object({
        model: Type.String({ description: 'The model the documents are embedded again with' }),
        done: Type.Integer(),
        total: Type.Integer({ description: 'Documents whose vectors were of another model when it started' }),
        started_at: Type.String({ format: 'date-time' }),
      }),
    ),
  },
  { $id: 'EmbeddingOverview' },
);
