// The embedding status of the tenant: its model, documents by embedding status, the current rate.
import type { EmbeddingStatusService } from '../domain/embedding.js';
import { defineRoute, json, type Route } from '../http/route.js';
import { EmbeddingOverview } from '../schemas/embedding.js';

export function embeddingRoutes(embedding: EmbeddingStatusService): Route[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/knowledge/embedding', tags: ['embedding'], summary: 'Embedding progress of the tenant',
      description: 'The model vectors are computed with, the products and knowledge entries by embedding status, ' +
        'the documents embedded per second over the last minute and the seconds until nothing is pending at that rate.',
      auth: { scopes: ['catalog:read'] },
      responses: { 200: { description: 'Progress', schema: EmbeddingOverview } },
      handler: async ({ tenant }) => json(200, await embedding.overview(tenant.id)),
    }),
  ];
}
