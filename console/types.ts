// The wire shapes the console reads and sends: the API's own schemas (types only; nothing of
// them is bundled), so the console cannot drift from the contract unnoticed (`npm run typecheck`).
import type { Static } from '@sinclair/typebox';
import type { Category as CategorySchema, CategoryTreeNode as CategoryTreeSchema } from '../src/schemas/categories.js';
import type { EmbeddingOverview as EmbeddingSchema } from '../src/schemas/embedding.js';
import type { AuditEvent as AuditSchema, Entry as EntrySchema, EntryCreate as EntryCreateSchema } from '../src/schemas/knowledgeEntries.js';
import type { OAuthClient as ClientSchema } from '../src/schemas/oauth.js';
import type {
  BulkAccepted as BulkAcceptedSchema, IngestJob as IngestJobSchema, JobSummary as JobSummarySchema, Product as ProductSchema,
} from '../src/schemas/products.js';
import type {
  KnowledgeSearchRequest as KnowledgeSearchSchema, KnowledgeSearchResult as KnowledgeResultSchema,
  ProductSearchRequest as ProductSearchSchema, ProductSearchResult as ProductResultSchema,
} from '../src/schemas/search.js';
import type { AnalyticsReport as AnalyticsSchema } from '../src/schemas/searchAnalytics.js';
import type { Site as SiteSchema } from '../src/schemas/sites.js';
import type { TenantSettings as SettingsSchema } from '../src/schemas/tenants.js';
import type { ApiKey as ApiKeySchema, ApiKeyCreated as ApiKeyCreatedSchema, User as UserSchema } from '../src/schemas/users.js';

export type Site = Static<typeof SiteSchema>;
export type Category = Static<typeof CategorySchema>;
export type CategoryTreeNode = Static<typeof CategoryTreeSchema>;
export type Product = Static<typeof ProductSchema>;
export type BulkAccepted = Static<typeof BulkAcceptedSchema>;
export type IngestJob = Static<typeof IngestJobSchema>;
export type JobSummary = Static<typeof JobSummarySchema>;
export type EmbeddingOverview = Static<typeof EmbeddingSchema>;
export type KnowledgeEntry = Static<typeof EntrySchema>;
export type KnowledgeEntryCreate = Static<typeof EntryCreateSchema>;
export type AuditEvent = Static<typeof AuditSchema>;
export type ProductSearchRequest = Static<typeof ProductSearchSchema>;
export type ProductSearchResult = Static<typeof ProductResultSchema>;
export type KnowledgeSearchRequest = Static<typeof KnowledgeSearchSchema>;
export type KnowledgeSearchResult = Static<typeof KnowledgeResultSchema>;
export type Settings = Static<typeof SettingsSchema>;
/** `GET /api/knowledge/search/analytics`: rates are null for a range without searches. */
export type SearchAnalytics = Static<typeof AnalyticsSchema>;
export type User = Static<typeof UserSchema>;
export type ApiKey = Static<typeof ApiKeySchema>;
export type ApiKeyCreated = Static<typeof ApiKeyCreatedSchema>;
export type OAuthClient = Static<typeof ClientSchema>;

// Request bodies of the catalogue pages.
import type { CategoryCreate as CategoryCreateSchema, CategoryUpdate as CategoryUpdateSchema } from '../src/schemas/categories.js';
import type { SiteCreate as SiteCreateSchema, SiteUpdate as SiteUpdateSchema } from '../src/schemas/sites.js';
export type SiteCreate = Static<typeof SiteCreateSchema>;
export type SiteUpdate = Static<typeof SiteUpdateSchema>;
export type CategoryCreate = Static<typeof CategoryCreateSchema>;
export type CategoryUpdate = Static<typeof CategoryUpdateSchema>;

// Request shapes of the knowledge and admin pages.
import type { EntryUpdate as EntryUpdateSchema } from '../src/schemas/knowledgeEntries.js';
import type { TenantSettingsUpdate as SettingsUpdateSchema } from '../src/schemas/tenants.js';
import type { ApiKeyCreate as ApiKeyCreateSchema, UserCreate as UserCreateSchema } from '../src/schemas/users.js';
export type KnowledgeEntryUpdate = Static<typeof EntryUpdateSchema>;
export type SettingsUpdate = Static<typeof SettingsUpdateSchema>;
export type ApiKeyCreate = Static<typeof ApiKeyCreateSchema>;
export type UserCreate = Static<typeof UserCreateSchema>;

// Synonym sets of the merchandising pages.
import type { SynonymImportResult as SynonymImportSchema, SynonymSet as SynonymSetSchema, SynonymSetWrite as SynonymWriteSchema } from '../src/schemas/synonyms.js';
export type SynonymSet = Static<typeof SynonymSetSchema>;
export type SynonymSetWrite = Static<typeof SynonymWriteSchema>;
export type SynonymImportResult = Static<typeof SynonymImportSchema>;

// Search rules of the merchandising pages.
import type { SearchRule as SearchRuleSchema, SearchRuleWrite as SearchRuleWriteSchema } from '../src/schemas/searchRules.js';
export type SearchRule = Static<typeof SearchRuleSchema>;
export type SearchRuleWrite = Static<typeof SearchRuleWriteSchema>;
