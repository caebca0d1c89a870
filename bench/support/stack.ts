// What most benchmarks start first: a private Redis, `kcs serve` on it (which creates the demo
// tenant and shows its key), an API client, and the benchmarks' site.
import { keys } from '../../src/store/keys.js';
import { Api } from './bulkApi.js';
import type { Undo } from './harness.js';
import { startKcs, type Kcs } from './kcs.js';
import { openPrivateRedis, type PrivateRedis } from './redisServers.js';

export interface BenchStack {
  redis: PrivateRedis;
  serve: Kcs;
  api: Api;
  tenantId: string;
  siteId: string;
}

/** `env`: kcs settings of the serve process (KCS_EMBEDDER, …); `cluster`: a private 6-node Redis Cluster. */
export async function startBenchStack(undo: Undo, name: string, { env = {}, cluster = false } = {}): Promise<BenchStack> {
  const redis = await openPrivateRedis(undo, name, { cluster });
  const serve = await startKcs(undo, 'serve', { redis: redis.at, env, key: true });
  const api = new Api(serve.port, serve.host, serve.key);
  undo(() => api.close());
  const tenantId = (await redis.store.hget(keys.tenantSlugs, 'demo'))!;
  return { redis, serve, api, tenantId, siteId: await api.createSite() };
}
