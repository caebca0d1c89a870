// The built-in engine's column of the search benchmark: a private plain redis-server, or with
// BENCH_CLUSTER=1 a private 6-node Redis Cluster, the catalogue written as without a search module;
// its engine is the replica a serve process builds in memory from Redis.
import { createServices } from '../../src/app.js';
import { createLogger } from '../../src/log.js';
import { BuiltinEngine } from '../../src/search/builtin/engine.js';
import { ServingModels } from '../../src/search/servingModels.js';
import { keys } from '../../src/store/keys.js';
import { gc } from './gc.js';
import { fmt, type Undo } from './harness.js';
import { CLUSTER, describeServer, openPrivateRedis, usedMemory } from './redisServers.js';
import { column, setUpTenant, type Column } from './searchColumn.js';
import { DIM, MODEL } from './searchConfig.js';
import { openMiniSearchCopy } from './searchMiniSearch.js';
import { mib } from './searchSummary.js';

/** `miniSearch`: the catalogue is also copied for the MiniSearch baseline (bench:search's HTTP keyword runs). */
export async function openBuiltinColumn(undo: Undo, { miniSearch = false } = {}): Promise<Column> {
  const { at, store, pidOf } = await openPrivateRedis(undo, 'search', { cluster: CLUSTER });
  const services = createServices(store);
  const tenant = await setUpTenant(services, 'bench');
  const engine = 'builtin' as const;
  const self: Column = column({
    engine, store, services, tenant, redis: at, server: await describeServer(store), readyTargetMs: null,
    // On a cluster, the master of the tenant's slot: it holds all of the tenant's keys.
    redisPid: await pidOf(keys.tenant(tenant.id)),
    miniSearch: miniSearch ? openMiniSearchCopy(undo) : undefined,
    async reportMemory(summary) {
      // The private server holds nothing but the catalogue (and the tenant's few other keys).
      summary.note(engine, `memory: Redis used_memory for the catalogue${CLUSTER ? ', summed over the masters' : ''}`, mib(await usedMemory(store)));
    },
    async buildEngine(summary) {
      const n = self.ids.length;
      gc();
      const before = process.memoryUsage();
      const built = new BuiltinEngine(store, createLogger('silent', 'bench'), { models: new ServingModels(store, { configured: { modelId: MODEL, dimension: DIM } }) });
      const started = performance.now();
      await built.start();
      const buildMs = performance.now() - started;
      gc();
      const after = process.memoryUsage();
      const delta = (k: keyof NodeJS.MemoryUsage) => mib(after[k] - before[k]);
      summary.note(engine, 'index build from the stored catalogue', `${fmt(buildMs / 1000, 1)} s (${fmt(n / (buildMs / 1000), 0)}/s), replica in process`);
      // usearch's graph is native memory, counted in rss only.
      summary.note(engine, 'index memory', `rss +${delta('rss')} in each serve process (heapUsed +${delta('heapUsed')}, arrayBuffers +${delta('arrayBuffers')})`);
      return built;
    },
    searchEngine: 'builtin',
  });
  return self;
}
