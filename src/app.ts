// The composition root of `kcs serve`: stores, services, routes, and the request pipeline.
import { adminRoutes } from './api/admin.js';
import { categoryRoutes } from './api/categories.js';
import { Guard } from './api/guard.js';
import { buildOpenApi } from './api/openapi.js';
import { productRoutes } from './api/products.js';
import { siteRoutes } from './api/sites.js';
import { systemRoutes } from './api/system.js';
import type { Config } from './config.js';
import { ApiKeyService } from './domain/apiKeys.js';
import { CategoryService } from './domain/categories.js';
import { ProductService, type EmbeddingScheduler } from './domain/products.js';
import { SiteService } from './domain/sites.js';
import { TenantService, UserService } from './domain/tenants.js';
import { parseInput } from './http/input.js';
import { HttpMetrics } from './http/metrics.js';
import type { Route, RouteContext } from './http/route.js';
import { HttpServer } from './http/server.js';
import type { Logger } from './log.js';
import { EmbedQueue, noEmbedding } from './queue/embed.js';
import { MaintenanceQueue, queueConnection } from './queue/maintenance.js';
import { CategoryRepository } from './store/categories.js';
import { connectRedis, type Store } from './store/redis.js';
import { ProductRepository } from './store/products.js';
import { SiteRepository } from './store/sites.js';
import { ApiKeyRepository, TenantRepository, UserRepository } from './store/tenants.js';

export const VERSION = '0.1.0';

/** The services of one process, built on one Redis connection (queues only where jobs are sent). */
export function createServices(redis: Store, maintenance?: MaintenanceQueue, embedding: EmbeddingScheduler = noEmbedding) {
  const tenants = new TenantService(new TenantRepository(redis));
  const users = new UserService(new UserRepository(redis));
  const apiKeys = new ApiKeyService(new ApiKeyRepository(redis), users);
  const sites = new SiteService(new SiteRepository(redis), async (tenantId, siteId) => {
    if (!maintenance) throw new Error('no maintenance queue in this process');
    await maintenance.schedulePurge(tenantId, siteId);
  });
  const categories = new CategoryService(new CategoryRepository(redis));
  const products = new ProductService(new ProductRepository(redis), embedding);
  return { tenants, users, apiKeys, sites, categories, products };
}
export type Services = ReturnType<typeof createServices>;

export interface RunningServer {
  port: number;
  services: Services;
  close(): Promise<void>;
}

export async function startServer(config: Config, redisUrl: string, log: Logger): Promise<RunningServer> {
  const redis = connectRedis(redisUrl, {}, (err) => log.warn({ err: err.message }, 'redis connection error'));
  await redis.connect();
  const queues = queueConnection(redisUrl);
  const maintenance = new MaintenanceQueue(queues);
  const embedQueue = config.embedding.provider === 'none' ? null : new EmbedQueue(queues);
  const services = createServices(redis, maintenance, embedQueue ?? noEmbedding);
  const guard = new Guard(config.baseDomain, config.publicScheme, services.tenants, services.apiKeys);
  const metrics = new HttpMetrics();

  let openApiDoc: unknown;
  const routes: Route[] = [
    ...systemRoutes({
      metrics,
      ready: async () => redis.status === 'ready' && (await redis.ping().then(() => true, () => false)),
      openApi: () => (openApiDoc ??= buildOpenApi(routes, { title: 'kcs', version: VERSION })),
    }),
    ...siteRoutes(services.sites),
    ...categoryRoutes(services.categories),
    ...productRoutes(services.products, services.sites),
    ...adminRoutes(services.tenants, services.users, services.apiKeys),
  ];

  const server = new HttpServer(
    routes,
    async (route, params, req) => {
      const ctx = { req } as RouteContext<unknown, unknown, unknown>;
      if (route.auth !== 'none') {
        ctx.tenant = await guard.tenant(req);
        if (route.auth !== 'tenant') ctx.principal = await guard.authenticate(ctx.tenant, req, route.auth.scopes);
      }
      Object.assign(ctx, parseInput(route, params, req));
      return route.handler(ctx as never);
    },
    log,
    metrics,
  );
  const port = await server.listen(config.host, config.port);
  log.info({ host: config.host, port }, 'listening');

  return {
    port,
    services,
    async close() {
      await server.close(config.shutdownGraceMs);
      await Promise.all([maintenance.close(), embedQueue?.close()]);
      queues.disconnect();
      redis.disconnect();
    },
  };
}
