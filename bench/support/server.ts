// Benchmark child: a kcs server on a free loopback port against the parent's private Redis,
// with a tenant 'bench', its user, an all-scopes API key and one site.
// Env: BENCH_REDIS_URL or BENCH_REDIS_CLUSTER_NODES, BENCH_DATA_DIR, KCS_WAIT_REPLICAS (optional), KCS_EMBEDDER (optional, kcs's default when unset).
// Ready message: { port, key, siteId, tenant, tenantId }.
import { startServer } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { SCOPES } from '../../src/schemas/scopes.js';
import { createLogger } from '../../src/log.js';
import { runChild } from './child.js';

runChild(async () => {
  const dataDir = process.env.BENCH_DATA_DIR;
  const env = process.env;
  if (!(env.BENCH_REDIS_URL || env.BENCH_REDIS_CLUSTER_NODES) || !dataDir) throw new Error('BENCH_REDIS_URL or BENCH_REDIS_CLUSTER_NODES, and BENCH_DATA_DIR are required');

  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', KCS_DATA_DIR: dataDir, KCS_EMBEDDER: env.KCS_EMBEDDER,
    REDIS_URL: env.BENCH_REDIS_URL, REDIS_CLUSTER_NODES: env.BENCH_REDIS_CLUSTER_NODES, KCS_WAIT_REPLICAS: env.KCS_WAIT_REPLICAS,
  });
  const server = await startServer(config, config.redis!, createLogger(config.logLevel, 'kcs-bench'));
  try {
    const { tenants, users, apiKeys, sites } = server.services;
    const tenant = await tenants.create('bench', 'Benchmark tenant');
    const user = await users.create(tenant.id, { email: 'bench@bench.test', name: 'Bench' });
    const { key } = await apiKeys.create(tenant.id, { userId: user.id, name: 'bench', scopes: [...SCOPES] });
    const site = await sites.create(tenant.id, { slug: 'shop', name: 'Benchmark shop', language: 'en', domain: 'shop.example.com' });
    return { ready: { port: server.port, key, siteId: site.id, tenant: tenant.slug, tenantId: tenant.id }, close: () => server.close() };
  } catch (error) {
    await server.close();
    throw error;
  }
});
