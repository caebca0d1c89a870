// The catalogue and knowledge base as MCP tools and resources, for one authenticated caller.
// One McpServer per request (stateless Streamable HTTP): tools close over the tenant and the
// caller, and every tool checks the same scopes and read rules as the HTTP route it mirrors.
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CategoryService } from '../domain/categories.js';
import type { Caller, KnowledgeEntryService } from '../domain/knowledgeEntries.js';
import type { ProductService } from '../domain/products.js';
import type { SearchService } from '../domain/search.js';
import { describeError } from './errors.js';
import type { Principal } from '../domain/types.js';
import type { Tenant } from '../schemas/records.js';
import { ENTRY_TYPES } from '../schemas/knowledgeEntries.js';

export interface McpDeps {
  search: SearchService;
  products: ProductService;
  knowledgeEntries: KnowledgeEntryService;
  categories: CategoryService;
  version: string;
}

/** Entry types served as MCP resources (what an agent loads before it starts). */
const RESOURCE_TYPES = ['bootstrap', 'skill_index'] as const;
const MEMORY_CATEGORY = 'Memories';

const json = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const refusal = (message: string): CallToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

const mode = z.enum(['hybrid', 'keyword', 'semantic']).optional().describe('hybrid (default) fuses keyword and semantic ranking');
const limit = z.number().int().min(1).max(50).optional().describe('Hits to return (default 10)');
const offset = z.number().int().min(0).max(1000).optional().describe('Hits to skip');
const uuid = z.string().uuid();

export function createMcpServer(deps: McpDeps, tenant: Tenant, principal: Principal): McpServer {
  const server = new McpServer(
    { name: `kcs-${tenant.slug}`, version: deps.version },
    { instructions: `Product catalogue and knowledge base of tenant "${tenant.name}". Search first, then fetch details by id.` },
  );
  const caller: Caller = {
    tenantId: tenant.id,
    userId: principal.userId,
    scopes: principal.scopes,
    credentialId: principal.credentialId,
    clientId: principal.clientId,
    source: 'mcp',
  };

  /** Runs a tool body when the caller holds one of the scopes; domain errors become tool errors. */
  const guarded = <A>(anyOf: string[], body: (args: A) => Promise<CallToolResult>) => async (args: A): Promise<CallToolResult> => {
    if (!anyOf.some((s) => principal.scopes.has(s))) return refusal(`Missing scope: ${anyOf.join(' or ')}`);
    try {
      return await body(args);
    } catch (error) {
      const known = describeError(error);
      if (known) return refusal(known);
      throw error;
    }
  };

  server.registerTool('search_products', {
    title: 'Search products',
    description: 'Search the product catalogue (keyword + semantic). A price phrase in the query ("unter 100 €", "under $80", "50-100€") ' +
      'becomes a price filter (listed in understood). Returns hits with id, score and a compact product.',
    inputSchema: {
      query: z.string().max(500).describe('What to look for'),
      site_id: z.string().min(1).max(100).optional().describe('Site UUID or slug'),
      language: z.string().min(2).max(5).optional(),
      category: z.string().max(500).optional(),
      brand: z.array(z.string().max(200)).max(50).optional(),
      price_min: z.number().min(0).optional(),
      price_max: z.number().min(0).optional(),
      in_stock: z.boolean().optional(),
      understand: z.boolean().optional().describe('Read price phrases of the query as a price filter (default true)'),
      mode, limit, offset,
    },
    annotations: { readOnlyHint: true },
  }, guarded(['catalog:read'], async (a: { query: string; site_id?: string; language?: string; category?: string; brand?: string[]; price_min?: number; price_max?: number; in_stock?: boolean; understand?: boolean; mode?: 'hybrid' | 'keyword' | 'semantic'; limit?: number; offset?: number }) => {
    const result = await deps.search.searchProducts(tenant, {
      query: a.query, site_id: a.site_id, language: a.language, category: a.category, mode: a.mode, limit: a.limit ?? 10, offset: a.offset,
      understand: a.understand ?? true,
      filters: { brand: a.brand, price_min: a.price_min, price_max: a.price_max, in_stock: a.in_stock },
      facets: [],
    }, { credentialId: principal.credentialId, address: null });
    return json({
      total: result.total, mode: result.mode, semantic_fallback: result.semantic_fallback, understood: result.understood ?? [],
      hits: result.hits.map((h) => ({ id: h.id, score: h.score, ...compactProduct(h.product) })),
    });
  }));

  server.registerTool('get_product', {
    title: 'Get a product',
    description: 'The full product by id.',
    inputSchema: { product_id: uuid },
    annotations: { readOnlyHint: true },
  }, guarded(['catalog:read'], async (a: { product_id: string }) => json(await deps.products.get(tenant.id, a.product_id))));

  server.registerTool('related_products', {
    title: 'Related products',
    description: 'Products of the same site most similar to a product (by its similarity anchor), excluding its own variants.',
    inputSchema: { product_id: uuid, limit, offset },
    annotations: { readOnlyHint: true },
  }, guarded(['catalog:read'], async (a: { product_id: string; limit?: number; offset?: number }) => {
    const result = await deps.search.relatedProducts(tenant, a.product_id, { offset: a.offset ?? 0, limit: a.limit ?? 10 });
    return json({ total: result.total, hits: result.hits.map((h) => ({ id: h.id, score: h.score, ...compactProduct(h.product) })) });
  }));

  server.registerTool('search_knowledge', {
    title: 'Search the knowledge base',
    description: 'Search knowledge entries you may read (your visibility ceiling and your own personal memories).',
    inputSchema: {
      query: z.string().max(500),
      type: z.enum(ENTRY_TYPES).optional(),
      category_id: uuid.optional(),
      project_id: uuid.optional(),
      tags: z.array(z.string().max(200)).max(50).optional().describe('Entries carrying any of these tags'),
      language: z.string().min(2).max(5).optional(),
      include_expired: z.boolean().optional(),
      mode, limit, offset,
    },
    annotations: { readOnlyHint: true },
  }, guarded(['knowledge:read'], async (a: { query: string; type?: (typeof ENTRY_TYPES)[number]; category_id?: string; project_id?: string; tags?: string[]; language?: string; include_expired?: boolean; mode?: 'hybrid' | 'keyword' | 'semantic'; limit?: number; offset?: number }) => {
    const result = await deps.search.searchKnowledge(caller, { ...a, limit: a.limit ?? 10 });
    return json({
      total: result.total, mode: result.mode, semantic_fallback: result.semantic_fallback,
      hits: result.hits.map((h) => ({ id: h.id, score: h.score, title: h.entry.title, type: h.entry.type, summary: h.entry.summary, visibility: h.entry.visibility, tags: h.entry.tags })),
    });
  }));

  server.registerTool('get_knowledge_entry', {
    title: 'Get a knowledge entry',
    description: 'The full entry by id (404-like error when you may not read it).',
    inputSchema: { entry_id: uuid, include_expired: z.boolean().optional() },
    annotations: { readOnlyHint: true },
  }, guarded(['knowledge:read'], async (a: { entry_id: string; include_expired?: boolean }) => json(await deps.knowledgeEntries.get(caller, a.entry_id, a.include_expired ?? false))));

  server.registerTool('list_categories', {
    title: 'List categories',
    description: 'The category tree (id, name, children).',
    inputSchema: {},
    annotations: { readOnlyHint: true },
  }, guarded(['catalog:read', 'knowledge:read'], async () => json(await deps.categories.tree(tenant.id))));

  server.registerTool('remember', {
    title: 'Remember',
    description: 'Store a personal memory for the calling user (only this user can ever read it). Optional ttl_seconds makes it expire.',
    inputSchema: {
      title: z.string().min(1).max(500),
      content: z.string().min(1),
      tags: z.array(z.string().max(200)).max(100).optional(),
      ttl_seconds: z.number().int().min(1).optional(),
      category_id: uuid.optional().describe(`Defaults to the "${MEMORY_CATEGORY}" category (created when missing)`),
      language: z.string().min(2).max(5).optional(),
    },
  }, guarded(['knowledge:write'], async (a: { title: string; content: string; tags?: string[]; ttl_seconds?: number; category_id?: string; language?: string }) => {
    const categoryId = a.category_id ?? (await memoryCategory(deps.categories, tenant.id, caller));
    const entry = await deps.knowledgeEntries.create(caller, {
      title: a.title, content: a.content, tags: a.tags, type: 'memory', category_id: categoryId, visibility: 'personal',
      language: a.language ?? 'en', source: 'conversational', metadata: a.ttl_seconds ? { ttl_seconds: a.ttl_seconds } : {},
    }, true);
    return json({ id: entry.id, title: entry.title, expires_at: entry.metadata.expires_at ?? null });
  }));

  server.registerTool('forget', {
    title: 'Forget',
    description: 'Delete one of your own personal memories by id.',
    inputSchema: { entry_id: uuid },
    annotations: { destructiveHint: true },
  }, guarded(['knowledge:write'], async (a: { entry_id: string }) => {
    const entry = await deps.knowledgeEntries.get(caller, a.entry_id, true);
    if (entry.visibility !== 'personal' || entry.created_by_user_id !== caller.userId) return refusal('Only your own personal memories can be forgotten');
    await deps.knowledgeEntries.delete(caller, a.entry_id, null);
    return json({ deleted: a.entry_id });
  }));

  if (principal.scopes.has('knowledge:read')) {
    server.registerResource(
      'knowledge-entry',
      new ResourceTemplate('kcs://knowledge-entries/{entry_id}', {
        list: async () => {
          const resources = [];
          for (const type of RESOURCE_TYPES) {
            const { items } = await deps.knowledgeEntries.list(caller, { type, limit: 200, offset: 0, include_expired: false });
            resources.push(...items.map((e) => ({ uri: `kcs://knowledge-entries/${e.id}`, name: e.title, description: e.summary ?? undefined, mimeType: 'text/markdown' })));
          }
          return { resources };
        },
      }),
      { title: 'Bootstrap and skill index entries', description: 'Knowledge entries of type bootstrap and skill_index', mimeType: 'text/markdown' },
      async (uri, { entry_id }) => {
        const entry = await deps.knowledgeEntries.get(caller, String(entry_id));
        if (!(RESOURCE_TYPES as readonly string[]).includes(entry.type)) throw new Error('Not a bootstrap or skill_index entry');
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: `# ${entry.title}\n\n${entry.content}` }] };
      },
    );
  }
  return server;
}

function compactProduct(p: { title: string; brand: string | null; sku: string | null; price_current: string | null; currency: string; availability: string | null; product_url: string | null; site_id: string; language: string }) {
  return { title: p.title, brand: p.brand, sku: p.sku, price: p.price_current, currency: p.currency, availability: p.availability, url: p.product_url, site_id: p.site_id, language: p.language };
}

/** The tenant's category for memories, created on first use (audited as the caller's write). */
async function memoryCategory(categories: CategoryService, tenantId: string, caller: Caller): Promise<string> {
  const found = (await categories.list(tenantId)).find((c) => c.name === MEMORY_CATEGORY);
  if (found) return found.id;
  return (await categories.create(tenantId, { name: MEMORY_CATEGORY }, caller)).id;
}
